import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, type AppClient } from '../helpers/client.ts';
import { ADMIN } from '../helpers/targets.ts';
import { launch, screenshot } from './browser.ts';

/**
 * The roles page (docs/dashboard.md "Roles"): a role created with a user and a child role, checked
 * through the REST API, and a role of 1,001 users listed whole, a keyset page of 1,000 at a time.
 */
let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

eachBackend('dashboard: roles', (target) => {
  let client: AppClient;
  let page: Page;

  before(async () => {
    // No limit on sign-ups: 1,001 users are signed up at once below.
    client = await newApp(target, { rateLimits: { authRequestsPerMinute: 0 } });
    page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.goto(`${target.url}/dashboard/apps/${client.app.applicationId}/roles`);
    await page.getByLabel('Email', { exact: true }).fill(ADMIN.email);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('No roles yet.').waitFor();
  });
  after(async () => {
    await page?.close();
  });

  async function roleId(name: string): Promise<string> {
    const found = await client.get('/1/roles', { key: 'master', query: { where: { name } } });
    assert.equal(found.status, 200, found.text);
    assert.equal(found.body.results.length, 1);
    return found.body.results[0].objectId;
  }
  async function related(className: string, roleObjectId: string, key: string): Promise<string[]> {
    const answer = await client.get(`/1/classes/${className}`, { key: 'master', query: { where: { $relatedTo: { object: { __type: 'Pointer', className: '_Role', objectId: roleObjectId }, key } } } });
    assert.equal(answer.status, 200, answer.text);
    return (answer.body.results as { username?: string; name?: string }[]).map((o) => o.username ?? o.name ?? '').sort();
  }

  it('creates roles, adds a user and a child role, and removes the user', async () => {
    const user = await client.post('/1/users', { username: 'linus', password: 'kernel-1' });
    assert.equal(user.status, 201, user.text);
    for (const name of ['Moderators', 'Admins']) {
      await page.getByLabel('Name of the new role').fill(name);
      await page.getByRole('button', { name: 'Create role' }).click();
      await page.getByText(`Created the role ${name}.`).waitFor();
    }
    await page.getByRole('button', { name: 'Open the role Moderators' }).click();
    await page.getByLabel('Username to add to Moderators').fill('nobody');
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.getByText('No user is named nobody.').waitFor();
    await page.getByLabel('Username to add to Moderators').fill('linus');
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.getByText('Added linus to Moderators.').waitFor();
    await page.getByLabel('Role name to add to Moderators').fill('Admins');
    await page.getByRole('button', { name: 'Add role' }).click();
    await page.getByText('Added Admins to Moderators.').waitFor();
    await page.getByRole('list', { name: 'Users of Moderators' }).getByText('linus').waitFor();
    await screenshot(page, target, 'roles-01-members');

    const moderators = await roleId('Moderators');
    assert.deepEqual(await related('_User', moderators, 'users'), ['linus']);
    assert.deepEqual(await related('_Role', moderators, 'roles'), ['Admins']);
    // A role anyone may read: the ACL the page gives.
    const role = await client.get(`/1/roles/${moderators}`, { key: 'master' });
    assert.deepEqual(role.body.ACL, { '*': { read: true } });

    await page.getByRole('button', { name: 'Remove the user linus from Moderators' }).click();
    await page.getByText('Removed linus from Moderators.').waitFor();
    assert.deepEqual(await related('_User', moderators, 'users'), []);
    assert.deepEqual(await related('_Role', moderators, 'roles'), ['Admins']);
  });

  it('offers the users whose username or email starts with the text typed; picking one adds it, members are not offered', async () => {
    for (const [username, email] of [['ada', 'ada@example.com'], ['adam', 'adam@example.com'], ['bob', 'adbob@example.com'], ['carol', 'carol@example.com']]) {
      const user = await client.post('/1/users', { username, password: 'secret-1', email });
      assert.equal(user.status, 201, user.text);
    }
    await page.getByRole('button', { name: 'Open the role Admins' }).click();
    const offered = page.getByRole('list', { name: 'Users to add to Admins' });
    await page.getByLabel('Username to add to Admins').fill('ad');
    await offered.getByRole('button', { name: 'Add the user bob to Admins' }).waitFor();
    assert.deepEqual(await offered.getByRole('button').allTextContents(), ['ada', 'adam', 'bob']);
    await screenshot(page, target, 'roles-02-user-picker');
    await page.getByLabel('Username to add to Admins').fill('ada');
    await offered.getByRole('button', { name: 'Add the user bob to Admins' }).waitFor({ state: 'detached' });
    assert.deepEqual(await offered.getByRole('button').allTextContents(), ['ada', 'adam']);
    await offered.getByRole('button', { name: 'Add the user adam to Admins' }).click();
    await page.getByText('Added adam to Admins.').waitFor();
    await page.getByRole('list', { name: 'Users of Admins' }).getByText('adam').waitFor();
    assert.equal(await page.getByLabel('Username to add to Admins').inputValue(), '', 'the text is cleared once picked');
    assert.deepEqual(await related('_User', await roleId('Admins'), 'users'), ['adam']);

    // adam is a member now: typing again offers only ada.
    await page.getByLabel('Username to add to Admins').fill('ad');
    await offered.getByRole('button', { name: 'Add the user bob to Admins' }).waitFor();
    assert.deepEqual(await offered.getByRole('button').allTextContents(), ['ada', 'bob']);
    // Regex characters are taken literally: nothing starts with "a.".
    await page.getByLabel('Username to add to Admins').fill('a.');
    await offered.waitFor({ state: 'detached' });
  });

  it('lists a role of more than 1,000 users a page at a time, by objectId', async () => {
    await page.getByLabel('Name of the new role').fill('Crowd');
    await page.getByRole('button', { name: 'Create role' }).click();
    await page.getByText('Created the role Crowd.').waitFor();
    // 1,001 anonymous users (no password to hash), 50 per batch.
    const userIds: string[] = [];
    for (let start = 0; start < 1001; start += 50) {
      const requests = Array.from({ length: Math.min(50, 1001 - start) }, () => ({ method: 'POST', path: '/1/users', body: { authData: { anonymous: { id: randomUUID() } } } }));
      const answer = await client.post('/1/batch', { requests });
      assert.equal(answer.status, 200, answer.text);
      for (const one of answer.body as { success?: { objectId: string } }[]) userIds.push(one.success!.objectId);
    }
    const crowd = await roleId('Crowd');
    const added = await client.put(`/1/roles/${crowd}`, { users: { __op: 'AddRelation', objects: userIds.map((objectId) => ({ __type: 'Pointer', className: '_User', objectId })) } }, { key: 'master' });
    assert.equal(added.status, 200, added.text);

    const end = async (order: string) => {
      const answer = await client.get('/1/classes/_User', { key: 'master', query: { where: { $relatedTo: { object: { __type: 'Pointer', className: '_Role', objectId: crowd }, key: 'users' } }, order, limit: 1 } });
      return answer.body.results[0].username as string;
    };
    await page.getByRole('button', { name: 'Open the role Crowd' }).click();
    const items = page.getByRole('list', { name: 'Users of Crowd' }).locator('li');
    await items.nth(999).waitFor();
    assert.equal(await items.count(), 1000);
    await page.getByText('Showing 1000 users and 0 child roles, by objectId.').waitFor();
    assert.ok((await items.first().textContent())!.startsWith(await end('objectId')));
    await page.getByRole('button', { name: 'More users' }).click();
    await items.nth(1000).waitFor();
    assert.equal(await items.count(), 1001);
    await page.getByRole('button', { name: 'More users' }).waitFor({ state: 'detached' });
    assert.ok((await items.last().textContent())!.startsWith(await end('-objectId')));
    const names = await items.evaluateAll((lis) => lis.map((li) => li.firstChild?.textContent ?? ''));
    assert.equal(new Set(names).size, 1001);
    await screenshot(page, target, 'roles-03-many-members');
  });
});
