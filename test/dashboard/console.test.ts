import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import { launch, screenshot, signInAt } from './browser.ts';

/** The API console (docs/dashboard.md "API console"): requests as the master key and as a user, checked through the REST API. */
let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

eachBackend('dashboard: API console', (target) => {
  let client: AppClient;
  let page: Page;
  const className = unique('Console');

  before(async () => {
    client = await newApp(target);
    page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await signInAt(page, `${target.url}/dashboard/apps/${client.app.applicationId}/console`);
    await page.getByRole('heading', { name: 'API console' }).waitFor();
  });
  after(async () => {
    await page?.close();
  });

  async function send(method: string, path: string, body = ''): Promise<{ status: string; answer: unknown }> {
    await page.getByLabel('Method').selectOption(method);
    await page.getByLabel('Path').fill(path);
    if (body) await page.getByLabel('Body (JSON)').fill(body);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    // Wait for this request's answer: the curl command names its path.
    await page.getByLabel('curl command').filter({ hasText: path }).waitFor();
    const status = (await page.getByLabel('Answer status').textContent())!;
    return { status, answer: JSON.parse((await page.getByLabel('Answer body').textContent())!) };
  }

  it('a POST as the master key creates the object, with its curl command', async () => {
    const result = await send('POST', `/1/classes/${className}`, '{"score": 42, "name": "it\'s me"}');
    assert.equal(result.status, 'Status 201');
    const objectId = (result.answer as { objectId: string }).objectId;
    assert.match(objectId, /^\w+$/);
    const curl = (await page.getByLabel('curl command').textContent())!;
    assert.ok(curl.startsWith(`curl -X POST '${target.url}/1/classes/${className}'`), curl);
    assert.ok(curl.includes(`-H 'X-Svc-Master-Key: ${client.app.masterKey}'`), curl);
    assert.ok(curl.includes(`-d '{"score": 42, "name": "it'\\''s me"}'`), curl);
    const stored = await client.get(`/1/classes/${className}/${objectId}`, { key: 'master' });
    assert.equal(stored.status, 200, stored.text);
    assert.equal(stored.body.score, 42);
    assert.equal(stored.body.name, "it's me");
    await screenshot(page, target, 'console-01-post');
  });

  it('a GET answers the objects, and a bad path or body is refused before sending', async () => {
    const result = await send('GET', `/1/classes/${className}?where=${encodeURIComponent('{"score":42}')}`);
    assert.equal(result.status, 'Status 200');
    const results = (result.answer as { results: { score: number }[] }).results;
    assert.equal(results.length, 1);
    assert.equal(results[0]!.score, 42);
    await page.getByLabel('Path').fill('classes/x');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'The path starts with /1/' }).waitFor();
  });

  it('as a user logged in by username and password: the session decides, and the curl shows its token', async () => {
    const signUp = await client.post('/1/users', { username: 'ada', password: 'lovelace1' });
    assert.equal(signUp.status, 201, signUp.text);
    await page.getByRole('radio', { name: 'a user' }).check();
    await page.getByLabel('Username').fill('ada');
    await page.getByLabel("User's password").fill('lovelace1');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForFunction(() => (document.querySelector('input[aria-label="Session token"]') as HTMLInputElement | null)?.value.startsWith('r:'));
    const token = await page.getByLabel('Session token').inputValue();
    const me = await send('GET', '/1/users/me');
    assert.equal(me.status, 'Status 200');
    assert.equal((me.answer as { username: string }).username, 'ada');
    const curl = (await page.getByLabel('curl command').textContent())!;
    assert.ok(curl.includes(`-H 'X-Svc-Session-Token: ${token}'`), curl);
    assert.ok(!curl.includes('Master-Key'), curl);
    // A user may not read the schemas: the server's refusal is shown as it came.
    const schemas = await send('GET', '/1/schemas');
    assert.equal(schemas.status, 'Status 403');
    assert.equal((schemas.answer as { code: number }).code, 119);
    await screenshot(page, target, 'console-02-user');
  });
});
