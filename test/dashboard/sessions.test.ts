import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, type AppClient } from '../helpers/client.ts';
import { ADMIN } from '../helpers/targets.ts';
import { launch, screenshot } from './browser.ts';

/**
 * The sessions page (docs/dashboard.md "Sessions"): every session of the app in keyset pages of
 * 50, filtered by a user picked from a search, one session revoked and all of a user's, checked
 * through the REST API (the tokens answer 209, the `_Session` objects are gone).
 */
let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

eachBackend('dashboard: sessions', (target) => {
  let client: AppClient;
  let page: Page;
  const tokens: Record<string, string[]> = { grace: [], alan: [] };
  let ids: string[] = [];

  before(async () => {
    client = await newApp(target, { sessionLength: 3600 });
    const grace = await client.post('/1/users', { username: 'grace', password: 'hopper-1' });
    assert.equal(grace.status, 201, grace.text);
    tokens.grace!.push(grace.body.sessionToken);
    const login = await client.get('/1/login', { query: { username: 'grace', password: 'hopper-1' }, headers: { 'X-Svc-Installation-Id': 'inst-grace-phone' } });
    assert.equal(login.status, 200, login.text);
    tokens.grace!.push(login.body.sessionToken);
    // 50 more sessions of grace (restricted ones, as POST /1/sessions makes): 52 in all, more than a page.
    for (let i = 0; i < 50; i++) {
      const made = await client.post('/1/sessions', {}, { headers: { 'X-Svc-Session-Token': tokens.grace![0]! } });
      assert.equal(made.status, 201, made.text);
      tokens.grace!.push(made.body.sessionToken);
    }
    const alan = await client.post('/1/users', { username: 'alan', password: 'turing-1' });
    assert.equal(alan.status, 201, alan.text);
    tokens.alan!.push(alan.body.sessionToken);
    const all = await client.get('/1/classes/_Session', { key: 'master', query: { order: 'objectId', limit: 1000, keys: 'objectId' } });
    ids = (all.body.results as { objectId: string }[]).map((one) => one.objectId);
    assert.equal(ids.length, 53);

    page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.goto(`${target.url}/dashboard/apps/${client.app.applicationId}/sessions`);
    await page.getByLabel('Email', { exact: true }).fill(ADMIN.email);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('table', { name: 'Sessions' }).waitFor();
  });
  after(async () => {
    await page?.close();
  });

  const shown = () => page.locator('tr[data-session]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-session')));
  const works = async (token: string) => (await client.get('/1/users/me', { headers: { 'X-Svc-Session-Token': token } })).status;

  it('lists every session in keyset pages of 50 with its user, how it was made, its installation and expiry', async () => {
    await page.locator('tr[data-session]').nth(49).waitFor();
    assert.deepEqual(await shown(), ids.slice(0, 50));
    await page.getByRole('button', { name: 'More sessions' }).click();
    await page.locator('tr[data-session]').nth(52).waitFor();
    assert.deepEqual(await shown(), ids);
    await page.getByRole('button', { name: 'More sessions' }).waitFor({ state: 'detached' });
    const phone = page.locator('tr[data-session]').filter({ hasText: 'inst-grace-phone' });
    assert.equal(await phone.count(), 1);
    const cells = await phone.locator('td').allTextContents();
    assert.equal(cells[0], 'grace');
    assert.equal(cells[1], 'login · password');
    assert.match(cells[3]!, /^\d{4}-\d\d-\d\dT/);
    assert.equal(await page.locator('tr[data-user="alan"] td').first().textContent(), 'alan');
    await screenshot(page, target, 'sessions-01-list');
  });

  it("revokes every session of a user picked from the search; another user's session keeps working", async () => {
    await page.getByLabel('Filter sessions by user').fill('gr');
    await page.getByRole('button', { name: 'Pick the user grace' }).click();
    await page.getByText('Sessions of grace').waitFor();
    await page.locator('tr[data-user="alan"]').waitFor({ state: 'detached' });
    assert.equal(await page.locator('tr[data-session]').count(), 50);
    await page.getByRole('button', { name: 'Revoke every session of grace' }).click();
    await page.getByRole('alertdialog', { name: 'Confirm revoking every session of grace' }).getByRole('button', { name: 'Revoke all' }).click();
    await page.getByText('Revoked 52 sessions of grace.').waitFor();
    await page.getByText('No sessions.').waitFor();
    await screenshot(page, target, 'sessions-02-revoked-user');
    for (const token of [tokens.grace![0]!, tokens.grace![1]!, tokens.grace![51]!]) assert.equal(await works(token), 400);
    const left = await client.get('/1/classes/_Session', { key: 'master', query: { keys: 'objectId' } });
    assert.equal(left.body.results.length, 1);
    assert.equal(await works(tokens.alan![0]!), 200);
  });

  it('revokes one session after a confirmation', async () => {
    await page.getByRole('button', { name: "Show every user's" }).click();
    const row = page.locator('tr[data-user="alan"]');
    await row.waitFor();
    const id = (await row.getAttribute('data-session'))!;
    await page.getByRole('button', { name: `Revoke the session ${id}` }).click();
    await page.getByRole('alertdialog', { name: `Confirm revoking the session ${id}` }).getByRole('button', { name: 'Revoke' }).click();
    await page.getByText(`Revoked the session ${id} of alan.`).waitFor();
    await page.getByText('No sessions.').waitFor();
    const me = await client.get('/1/users/me', { headers: { 'X-Svc-Session-Token': tokens.alan![0]! } });
    assert.equal(me.status, 400, me.text);
    assert.equal(me.body.code, 209);
    assert.equal((await client.get(`/1/classes/_Session/${id}`, { key: 'master' })).status, 404);
  });
});
