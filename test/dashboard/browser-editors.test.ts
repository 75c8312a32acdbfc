import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import { launch, screenshot, signInAt } from './browser.ts';

/**
 * The data browser's editors with lists and uploads (docs/dashboard.md "What it does"): a File
 * uploaded (an image previewed, a text file linked) and removed, an ACL edited by principal with a
 * user and a role picked and as JSON, a Pointer picked from its class's objects. Every change is
 * read back through the REST API.
 */
let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** A 1×1 transparent PNG. */
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

eachBackend('dashboard: File, ACL and Pointer editors', (target) => {
  let client: AppClient;
  let page: Page;
  const team = unique('Team');
  const player = unique('Player');
  const teams: Record<string, string> = {};
  const users: Record<string, string> = {};
  let playerId = '';

  async function made(path: string, body: Record<string, unknown>): Promise<string> {
    const answer = await client.post(path, body, { key: 'master' });
    assert.equal(answer.status, 201, answer.text);
    return answer.body.objectId;
  }
  async function stored(): Promise<Record<string, any>> {
    const answer = await client.get(`/1/classes/${player}/${playerId}`, { key: 'master' });
    assert.equal(answer.status, 200, answer.text);
    return answer.body;
  }
  /** The object once a write the page sent has landed: the editor closes before the server answers. */
  async function storedOnce(landed: (object: Record<string, any>) => boolean): Promise<Record<string, any>> {
    for (let tries = 0; ; tries++) {
      const object = await stored();
      if (landed(object) || tries === 100) return object;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const cell = (column: string) => page.locator(`.grid-row[data-object-id="${playerId}"] [data-column="${column}"]`);

  before(async () => {
    client = await newApp(target);
    for (const name of ['Red', 'Blue', 'Green']) teams[name] = await made(`/1/classes/${team}`, { name });
    const schema = await client.post(`/1/schemas/${player}`, { className: player, fields: { name: { type: 'String' }, team: { type: 'Pointer', targetClass: team }, photo: { type: 'File' }, notes: { type: 'File' } } }, { key: 'master' });
    assert.equal(schema.status, 201, schema.text);
    playerId = await made(`/1/classes/${player}`, { name: 'p1', ACL: { '*': { read: true, write: true } } });
    for (const username of ['alice', 'albert', 'bob']) users[username] = await made('/1/classes/_User', { username, password: 'secret-pass' });
    await made('/1/roles', { name: 'editors', ACL: { '*': { read: true } } });
    page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await signInAt(page, `${target.url}/dashboard/apps/${client.app.applicationId}/browser/${player}`);
    await cell('objectId').waitFor();
  });
  after(async () => {
    await page?.close();
  });

  it('a File is uploaded with its bytes and type, shown as a thumbnail (an image) or a link, and removed', async () => {
    await cell('photo').dblclick();
    await page.getByLabel('Upload a file for photo').setInputFiles({ name: 'pixel.png', mimeType: 'image/png', buffer: PIXEL });
    await cell('photo').locator('img.thumb').waitFor();
    const photo = (await stored()).photo;
    assert.equal(photo.__type, 'File');
    assert.match(photo.name, /_pixel\.png$/);
    assert.equal(await cell('photo').locator('img').getAttribute('src'), photo.url);
    const served = await fetch(photo.url);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), PIXEL);
    // The image really loaded in the page (the page's policy allows it).
    assert.equal(await cell('photo').locator('img').evaluate((img) => (img as HTMLImageElement).naturalWidth), 1);

    await cell('notes').dblclick();
    await page.getByLabel('Upload a file for notes').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('some notes') });
    await cell('notes').locator('a.file-link').waitFor();
    const notes = (await stored()).notes;
    assert.match(notes.name, /_notes\.txt$/);
    assert.equal(await cell('notes').locator('img').count(), 0);
    assert.equal(await cell('notes').locator('a').getAttribute('href'), notes.url);
    assert.equal(await (await fetch(notes.url)).text(), 'some notes');

    await cell('photo').dblclick();
    const dialog = page.getByRole('dialog', { name: 'Edit photo' });
    await dialog.getByRole('img', { name: /^Preview of / }).waitFor();
    await screenshot(page, target, 'editors-01-file');
    await dialog.getByRole('button', { name: 'Remove file' }).click();
    await page.waitForFunction((selector) => document.querySelector(selector)?.textContent === '', `.grid-row[data-object-id="${playerId}"] [data-column="photo"]`);
    const after = await stored();
    assert.equal('photo' in after, false);
    assert.equal(after.notes.name, notes.name);
  });

  it('an ACL is edited by principal: public read only, a user found by username, a role picked, one removed', async () => {
    await cell('ACL').dblclick();
    const dialog = page.getByRole('dialog', { name: 'Edit ACL' });
    await dialog.getByLabel('Write: *').uncheck();
    await dialog.getByLabel('Add a user').fill('al');
    const matches = dialog.getByRole('list', { name: 'Matching users' });
    await matches.getByRole('button').nth(1).waitFor();
    assert.deepEqual(await matches.getByRole('button').allTextContents(), [`albert (${users.albert})`, `alice (${users.alice})`]);
    await matches.getByRole('button', { name: `alice (${users.alice})` }).click();
    await dialog.getByLabel(`Write: ${users.alice}`).check();
    await dialog.getByLabel('Add a user').fill('bob');
    await dialog.getByRole('list', { name: 'Matching users' }).getByRole('button', { name: `bob (${users.bob})` }).click();
    await dialog.getByLabel('Add a role').selectOption('editors');
    await dialog.getByRole('button', { name: 'Add role' }).click();
    await dialog.getByLabel(`Remove ${users.bob}`).click();
    assert.deepEqual(await dialog.locator('tbody tr td:first-child').allTextContents(), ['Public (*)', `User alice (${users.alice})`, 'Role editors']);
    await screenshot(page, target, 'editors-02-acl');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    const expected = { '*': { read: true }, [users.alice!]: { read: true, write: true }, 'role:editors': { read: true } };
    assert.deepEqual((await storedOnce((object) => 'role:editors' in (object.ACL ?? {}))).ACL, expected);

    // Opened again, the user is named by username; the JSON view is the fallback.
    await cell('ACL').dblclick();
    await dialog.getByText(`User alice (${users.alice})`).waitFor();
    await dialog.getByRole('button', { name: 'Edit as JSON' }).click();
    const json = page.getByLabel('New value of ACL');
    assert.deepEqual(JSON.parse(await json.inputValue()), expected);
    await json.fill('{"*": {"read": true}}');
    await page.getByRole('dialog', { name: 'Edit ACL' }).getByRole('button', { name: 'Save' }).click();
    await page.waitForFunction((selector) => document.querySelector(selector)?.textContent === '{"*":{"read":true}}', `.grid-row[data-object-id="${playerId}"] [data-column="ACL"]`);
    assert.deepEqual((await stored()).ACL, { '*': { read: true } });
  });

  it('a Pointer is picked from its class\'s objects by name or objectId, or typed', async () => {
    await cell('team').dblclick();
    const dialog = page.getByRole('dialog', { name: 'Edit team' });
    const input = dialog.getByLabel('New value of team');
    await input.fill('Gr');
    const list = dialog.getByRole('list', { name: `Matching ${team} objects` });
    await list.getByRole('button', { name: `${teams.Green} · Green` }).waitFor();
    assert.equal(await list.getByRole('button').count(), 1);
    await screenshot(page, target, 'editors-03-pointer');
    await list.getByRole('button').click();
    await page.waitForFunction(([selector, text]) => document.querySelector(selector!)?.textContent === text, [`.grid-row[data-object-id="${playerId}"] [data-column="team"]`, `→${team} ${teams.Green}`]);
    assert.deepEqual((await stored()).team, { __type: 'Pointer', className: team, objectId: teams.Green });

    // By the objectId's start: the whole id matches one object.
    await cell('team').dblclick();
    await input.fill(teams.Blue!);
    await list.getByRole('button', { name: `${teams.Blue} · Blue` }).waitFor();
    // A typed value that cannot be an objectId is refused there; a typed objectId is saved with Enter.
    await input.fill('not an id');
    await input.press('Enter');
    assert.equal(await dialog.getByRole('alert').textContent(), `Write the objectId of a ${team} object.`);
    await input.fill(teams.Red!);
    await input.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await page.waitForFunction(([selector, text]) => document.querySelector(selector!)?.textContent === text, [`.grid-row[data-object-id="${playerId}"] [data-column="team"]`, `→${team} ${teams.Red}`]);
    assert.deepEqual((await stored()).team, { __type: 'Pointer', className: team, objectId: teams.Red });
  });
});
