import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import { launch, screenshot, signIn, signInAt } from './browser.ts';

/**
 * The schema page (docs/dashboard.md "Schema"): a column added and one removed, an index created
 * by hand and one from the suggestion of GET /1/scans, one dropped, the class-level permissions
 * edited as JSON, users and roles picked from a search, pointer permissions and protected fields
 * from their own editors, and a class deleted (emptied first); every change read back through
 * GET /1/schemas/<className>.
 */
let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

eachBackend('dashboard: the schema page', (target) => {
  let client: AppClient;
  let page: Page;
  const className = unique('Shape');
  const schema = async () => {
    const answer = await client.get(`/1/schemas/${className}`, { key: 'master' });
    assert.equal(answer.status, 200, answer.text);
    return answer.body as { fields: Record<string, { type: string }>; indexes?: Record<string, unknown>; classLevelPermissions: Record<string, unknown> };
  };

  before(async () => {
    // A threshold of 2 rows makes this 3-row class "large", so a query on color is counted as a scan.
    client = await newApp(target, { rateLimits: { scanWarningRows: 2 } });
    for (const color of ['a', 'b', 'c']) assert.equal((await client.post(`/1/classes/${className}`, { color, old: 1 }, { key: 'master' })).status, 201);
    assert.equal((await client.get(`/1/classes/${className}`, { key: 'master', query: { where: { color: 'b' } } })).status, 200);
    page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await signIn(page, target);
    await signInAt(page, `${target.url}/dashboard/apps/${client.app.applicationId}/schema/${className}`);
    await page.getByRole('heading', { name: `Schema of ${className}` }).waitFor();
  });
  after(async () => {
    await page?.close();
  });

  it('adds a column with its type and removes another after a confirmation', async () => {
    await page.getByText('Add column').click();
    await page.getByLabel('Column name').fill('level');
    await page.getByLabel('Column type').selectOption('Number');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.locator('tr[data-field="level"]').waitFor();
    await page.getByRole('button', { name: 'Remove column old' }).click();
    await page.getByRole('alertdialog', { name: 'Confirm removing old' }).getByRole('button', { name: 'Remove' }).click();
    await page.locator('tr[data-field="old"]').waitFor({ state: 'detached' });
    const fields = (await schema()).fields;
    assert.deepEqual(fields.level, { type: 'Number' });
    assert.equal('old' in fields, false);
    const objects = await client.get(`/1/classes/${className}`, { key: 'master' });
    assert.ok(objects.body.results.every((object: Record<string, unknown>) => !('old' in object)));
  });

  it('creates an index by hand and one suggested by /1/scans, and drops one', async () => {
    await page.getByLabel('Index name').fill('byLevel');
    await page.getByLabel('Index field').selectOption('level');
    await page.getByLabel('Index direction').selectOption('-1');
    await page.getByRole('button', { name: 'Create index' }).click();
    await page.locator('tr[data-index="byLevel"]').waitFor();
    await page.getByRole('list', { name: 'Index suggestions' }).getByText('{"color":1}').waitFor();
    await screenshot(page, target, 'schema-01-suggestion');
    await page.getByRole('button', { name: 'Create by_color' }).click();
    await page.locator('tr[data-index="by_color"]').waitFor();
    // Served now, the suggestion is not offered again.
    await page.getByRole('button', { name: 'Create by_color' }).waitFor({ state: 'detached' });
    let indexes = (await schema()).indexes ?? {};
    assert.deepEqual(indexes.byLevel, { level: -1 });
    assert.deepEqual(indexes.by_color, { color: 1 });
    await page.getByRole('button', { name: 'Drop index byLevel' }).click();
    await page.getByRole('alertdialog', { name: 'Confirm dropping byLevel' }).getByRole('button', { name: 'Drop' }).click();
    await page.locator('tr[data-index="byLevel"]').waitFor({ state: 'detached' });
    indexes = (await schema()).indexes ?? {};
    assert.equal('byLevel' in indexes, false);
    assert.deepEqual(indexes.by_color, { color: 1 });
  });

  it('edits the class-level permissions as JSON, refusing what is not valid first', async () => {
    const editor = page.getByLabel('Class-level permissions as JSON');
    await editor.fill('{"find": {"*": true}, "fetch": {"*": true}}');
    await page.getByRole('button', { name: 'Save permissions' }).click();
    await page.getByRole('alert').filter({ hasText: '"fetch" is no operation' }).waitFor();
    const permissions: Record<string, Record<string, boolean>> = { find: { 'role:admin': true }, count: { 'role:admin': true }, get: { requiresAuthentication: true }, create: { '*': true }, update: {}, delete: {}, addField: {} };
    await editor.fill(JSON.stringify(permissions));
    await page.getByRole('button', { name: 'Save permissions' }).click();
    await page.getByText('Saved the class-level permissions.').waitFor();
    // The check boxes follow the JSON and write into it.
    assert.equal(await page.getByLabel('Signed-in users: get').isChecked(), true);
    assert.equal(await page.getByLabel('Anyone: find').isChecked(), false);
    await page.getByLabel('Anyone: delete').check();
    await page.getByLabel('Anyone: create').uncheck();
    await page.getByRole('button', { name: 'Save permissions' }).click();
    // After the save the editor shows the schema the server answered.
    await page.waitForFunction(() => /"delete": \{\s*"\*": true/.test((document.querySelector('[aria-label="Class-level permissions as JSON"]') as HTMLTextAreaElement).value) && !/"create": \{\s*"\*"/.test((document.querySelector('[aria-label="Class-level permissions as JSON"]') as HTMLTextAreaElement).value));
    await screenshot(page, target, 'schema-02-permissions');
    const stored = (await schema()).classLevelPermissions;
    const expected = { ...permissions, create: {}, delete: { '*': true } };
    for (const [operation, value] of Object.entries(expected)) assert.deepEqual(stored[operation], value, operation);
    assert.equal((await client.get(`/1/classes/${className}`)).status, 403);
  });

  /** The page's own navigation, so the signed-in state (in memory only) is kept. */
  async function open(path: string): Promise<void> {
    await page.evaluate((to) => {
      history.pushState(null, '', to);
      dispatchEvent(new PopStateEvent('popstate'));
    }, path);
  }

  it('adds a user and a role found by search, pointer permissions and protected fields, all saved with the JSON', async () => {
    const ada = await client.post('/1/users', { username: 'ada', password: 'engine-1' });
    assert.equal(ada.status, 201, ada.text);
    assert.equal((await client.post('/1/roles', { name: 'Editors', ACL: { '*': { read: true } } }, { key: 'master' })).status, 201);
    const fields = { owner: { type: 'Pointer', targetClass: '_User' }, editors: { type: 'Array' }, secret: { type: 'String' } };
    assert.equal((await client.put(`/1/schemas/${className}`, { fields }, { key: 'master' })).status, 200);
    // Left and opened again, the page reads the new columns.
    await page.getByRole('button', { name: 'Browse data' }).click();
    await page.getByRole('button', { name: 'Schema', exact: true }).click();
    await page.getByRole('heading', { name: `Schema of ${className}` }).waitFor();

    await page.getByLabel('Add a user or role to the permissions').fill('ad');
    await page.getByRole('button', { name: 'Pick the user ada' }).click();
    await page.getByLabel('ada: update').check();
    await page.getByLabel('Add a user or role to the permissions').fill('Edi');
    await page.getByRole('button', { name: 'Pick the role Editors' }).click();
    await page.getByLabel('role Editors: find').check();

    // Only the Pointer-to-_User and Array columns are offered as pointer permissions.
    assert.deepEqual(await page.locator('tr[data-pointer-field]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-pointer-field'))), ['owner', 'editors']);
    await page.getByLabel('pointer owner: readUserFields').check();
    await page.getByLabel('pointer editors: writeUserFields').check();
    await page.getByLabel('pointer owner: delete').check();

    await page.getByLabel('Audience to hide columns from').selectOption('authenticated');
    await page.getByRole('button', { name: 'Add audience' }).click();
    await page.getByLabel('Hide secret from signed-in users').check();
    await page.getByLabel('Audience to hide columns from').selectOption('userField:owner');
    await page.getByRole('button', { name: 'Add audience' }).click();
    await page.getByLabel('Hide color from users named in owner').check();
    await page.getByLabel('Add a user or role to the protected fields').fill('Edi');
    await page.getByRole('button', { name: 'Pick the role Editors' }).click();
    await page.getByLabel('Hide secret from role Editors').check();
    await page.getByLabel('Hide level from role Editors').check();
    await page.getByLabel('Hide level from role Editors').uncheck();
    await screenshot(page, target, 'schema-03-editors');
    await page.getByRole('button', { name: 'Save permissions' }).click();
    await page.getByText('Saved the class-level permissions.').waitFor();

    const stored = (await schema()).classLevelPermissions;
    const adaId = ada.body.objectId as string;
    assert.deepEqual(stored.update, { [adaId]: true });
    assert.deepEqual(stored.find, { 'role:admin': true, 'role:Editors': true });
    assert.deepEqual(stored.delete, { '*': true, pointerFields: ['owner'] });
    assert.deepEqual(stored.readUserFields, ['owner']);
    assert.deepEqual(stored.writeUserFields, ['editors']);
    assert.deepEqual(stored.protectedFields, { authenticated: ['secret'], 'userField:owner': ['color'], 'role:Editors': ['secret'] });
    // The user's column is titled by username, read back from the id the server answered.
    await page.getByLabel('ada: update').waitFor();
    assert.equal(await page.getByLabel('ada: update').isChecked(), true);
    // readUserFields lets ada find the objects whose owner is she, and only those.
    const objects = await client.get(`/1/classes/${className}`, { key: 'master', query: { order: 'color' } });
    const owned = objects.body.results[0].objectId as string;
    assert.equal((await client.put(`/1/classes/${className}/${owned}`, { owner: { __type: 'Pointer', className: '_User', objectId: adaId } }, { key: 'master' })).status, 200);
    const login = await client.get('/1/login', { query: { username: 'ada', password: 'engine-1' } });
    const asAda = await client.get(`/1/classes/${className}`, { headers: { 'X-Svc-Session-Token': login.body.sessionToken } });
    assert.equal(asAda.status, 200, asAda.text);
    assert.deepEqual((asAda.body.results as { objectId: string }[]).map((one) => one.objectId), [owned]);
  });

  it('deletes a class: the server refuses one that holds objects, and the page empties it first after a confirmation', async () => {
    const trash = unique('Trash');
    assert.equal((await client.post(`/1/schemas/${trash}`, { className: trash }, { key: 'master' })).status, 201);
    await open(`/dashboard/apps/${client.app.applicationId}/schema/${trash}`);
    await page.getByRole('heading', { name: `Schema of ${trash}` }).waitFor();
    await page.getByRole('button', { name: 'Delete class' }).click();
    const dialog = page.getByRole('alertdialog', { name: `Confirm deleting the class ${trash}` });
    await dialog.getByText(`Delete the class ${trash} and its schema?`).waitFor();
    // An object arrives after the page counted none: the server's refusal is shown.
    assert.equal((await client.post(`/1/classes/${trash}`, { n: 1 }, { key: 'master' })).status, 201);
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('alert').filter({ hasText: `Class ${trash} is not empty: it holds 1 object.` }).waitFor();
    assert.equal((await client.get(`/1/schemas/${trash}`, { key: 'master' })).status, 200);

    assert.equal((await client.post(`/1/classes/${trash}`, { n: 2 }, { key: 'master' })).status, 201);
    await page.getByRole('button', { name: 'Delete class' }).click();
    await dialog.getByText(`${trash} holds 2 objects. Delete every one of them, then the class and its schema?`).waitFor();
    await screenshot(page, target, 'schema-04-delete-class');
    await dialog.getByRole('button', { name: 'Empty and delete' }).click();
    // Gone, the page shows the app's classes.
    await page.waitForURL(`**/dashboard/apps/${client.app.applicationId}/browser`);
    const gone = await client.get(`/1/schemas/${trash}`, { key: 'master' });
    assert.equal(gone.status, 400, gone.text);
    assert.equal(gone.body.code, 103);
    const all = await client.get('/1/schemas', { key: 'master' });
    assert.equal((all.body.results as { className: string }[]).some((one) => one.className === trash), false);
    assert.equal((await client.get(`/1/schemas/${className}`, { key: 'master' })).status, 200);
  });
});
