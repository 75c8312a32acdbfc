import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, type AppClient } from '../helpers/client.ts';
import { ADMIN } from '../helpers/targets.ts';
import { launch, screenshot } from './browser.ts';

/** The users page (docs/dashboard.md "Users"): a user created, its password reset and its sessions revoked, checked through the REST API. */
let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

eachBackend('dashboard: users', (target) => {
  let client: AppClient;
  let page: Page;

  before(async () => {
    client = await newApp(target);
    page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.goto(`${target.url}/dashboard/apps/${client.app.applicationId}/users`);
    await page.getByLabel('Email', { exact: true }).fill(ADMIN.email);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('No users.').waitFor();
  });
  after(async () => {
    await page?.close();
  });

  function login(username: string, password: string) {
    return client.get('/1/login', { query: { username, password } });
  }

  it('creates a user who can then log in', async () => {
    await page.getByLabel('Username of the new user').fill('grace');
    await page.getByLabel('Password of the new user').fill('hopper-1');
    await page.getByLabel('Email of the new user').fill('grace@example.com');
    await page.getByRole('button', { name: 'Create user' }).click();
    await page.getByText('Created grace.').waitFor();
    await page.locator('tr[data-user="grace"]').waitFor();
    const logged = await login('grace', 'hopper-1');
    assert.equal(logged.status, 200, logged.text);
    assert.equal(logged.body.email, 'grace@example.com');
    await screenshot(page, target, 'users-01-created');
  });

  it('resets a password: the old one is refused, the new one logs in', async () => {
    await page.getByRole('button', { name: 'Reset the password of grace' }).click();
    await page.getByLabel('New password for grace').fill('cobol-1959');
    await page.getByRole('button', { name: 'Save password' }).click();
    await page.getByText('Set a new password for grace.').waitFor();
    assert.equal((await login('grace', 'hopper-1')).status, 404);
    assert.equal((await login('grace', 'cobol-1959')).status, 200);
  });

  it("revokes a user's sessions: their tokens stop working, another user's keep working", async () => {
    const first = (await login('grace', 'cobol-1959')).body.sessionToken as string;
    const second = (await login('grace', 'cobol-1959')).body.sessionToken as string;
    const other = await client.post('/1/users', { username: 'alan', password: 'turing-1' });
    assert.equal(other.status, 201, other.text);
    await page.getByLabel('Search users').fill('gr');
    await page.locator('tr[data-user="alan"]').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Revoke the sessions of grace' }).click();
    await page.getByRole('alertdialog', { name: 'Confirm revoking the sessions of grace' }).getByRole('button', { name: 'Revoke' }).click();
    // Three logins since the reset, plus the one of the first test: every one of grace's sessions.
    await page.getByText(/^Revoked \d+ sessions of grace\.$/).waitFor();
    await screenshot(page, target, 'users-02-revoked');
    for (const token of [first, second]) {
      const me = await client.get('/1/users/me', { headers: { 'X-Svc-Session-Token': token } });
      assert.equal(me.status, 400, me.text);
      assert.equal(me.body.code, 209);
    }
    const sessionsOf = async (username: string) => {
      const user = await client.get('/1/classes/_User', { key: 'master', query: { where: { username } } });
      const pointer = { __type: 'Pointer', className: '_User', objectId: user.body.results[0].objectId };
      const sessions = await client.get('/1/classes/_Session', { key: 'master', query: { where: { user: pointer } } });
      assert.equal(sessions.status, 200, sessions.text);
      return sessions.body.results as unknown[];
    };
    assert.deepEqual(await sessionsOf('grace'), []);
    assert.equal((await sessionsOf('alan')).length, 1);
    const alan = await client.get('/1/users/me', { headers: { 'X-Svc-Session-Token': other.body.sessionToken } });
    assert.equal(alan.status, 200, alan.text);
  });
});
