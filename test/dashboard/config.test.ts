import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, type AppClient } from '../helpers/client.ts';
import { launch, screenshot, signIn, signInAt } from './browser.ts';

/**
 * The config page (docs/dashboard.md "Config"): parameters of every type added, edited and
 * deleted, a File uploaded from the page, and changes put back from the tab's history; all read
 * back through GET /1/config.
 */
let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

const NEW = 'the new parameter';

eachBackend('dashboard: config parameters', (target) => {
  let client: AppClient;
  let page: Page;

  before(async () => {
    client = await newApp(target);
    page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await signIn(page, target);
    await signInAt(page, `${target.url}/dashboard/apps/${client.app.applicationId}/config`);
    await page.getByText('No parameters yet.').waitFor();
  });
  after(async () => {
    await page?.close();
  });

  async function add(name: string, type: string, value: string, masterKeyOnly = false): Promise<void> {
    await page.getByLabel('Name of the new parameter').fill(name);
    await page.getByLabel(`Type of ${NEW}`).selectOption(type);
    if (type === 'Boolean') await page.getByLabel(`Value of ${NEW}`).selectOption(value);
    else await page.getByLabel(`Value of ${NEW}`).fill(value);
    await page.getByLabel(`Master key only: ${NEW}`).setChecked(masterKeyOnly);
    await page.getByRole('button', { name: 'Add parameter' }).click();
  }

  it('adds a parameter of every type, one master-key-only, and refuses a value that does not fit its type', async () => {
    await add('maxUploads', 'Number', 'five');
    await page.getByRole('alert').filter({ hasText: 'A Number is digits' }).waitFor();
    await add('welcome', 'String', 'Hello, world');
    await page.getByText('Saved welcome.').waitFor();
    const values: [string, string, string, boolean][] = [
      ['maxUploads', 'Number', '5', false],
      ['beta', 'Boolean', 'true', false],
      ['launch', 'Date', '2026-03-01T09:30:00.000Z', false],
      ['tags', 'Array', '["a", 2]', false],
      ['limits', 'Object', '{"daily": 10}', false],
      ['office', 'GeoPoint', '48.85, 2.35', false],
      ['paymentKey', 'String', 'pk_live_1', true],
    ];
    for (const [name, type, value, flag] of values) {
      await add(name, type, value, flag);
      await page.getByText(`Saved ${name}.`).waitFor();
    }
    await page.locator('tr[data-param="paymentKey"]').waitFor();
    await screenshot(page, target, 'config-01-added');
    const config = await client.get('/1/config', { key: 'master' });
    assert.equal(config.status, 200, config.text);
    assert.deepEqual(config.body.params, {
      welcome: 'Hello, world',
      maxUploads: 5,
      beta: true,
      launch: { __type: 'Date', iso: '2026-03-01T09:30:00.000Z' },
      tags: ['a', 2],
      limits: { daily: 10 },
      office: { __type: 'GeoPoint', latitude: 48.85, longitude: 2.35 },
      paymentKey: 'pk_live_1',
    });
    assert.equal(config.body.masterKeyOnly.paymentKey, true);
    assert.notEqual(config.body.masterKeyOnly.welcome, true);
    const asClient = await client.get('/1/config', { key: 'rest' });
    assert.equal(asClient.body.params.paymentKey, undefined);
  });

  it('a name the server refuses shows its message', async () => {
    await add('x'.repeat(129), 'String', 'long');
    await page.getByRole('alert').filter({ hasText: 'A config parameter name has 1 to 128 characters.' }).waitFor();
    const config = await client.get('/1/config', { key: 'master' });
    assert.equal(Object.keys(config.body.params).length, 8);
  });

  it('edits a value and its flag, and deletes a parameter after a confirmation', async () => {
    await page.getByRole('button', { name: 'Edit welcome' }).click();
    await page.getByLabel('Value of welcome').fill('Welcome back');
    await page.getByLabel('Master key only: welcome').check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved welcome.').waitFor();
    await page.getByRole('button', { name: 'Delete beta' }).click();
    await page.getByRole('alertdialog', { name: 'Confirm deleting beta' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Deleted beta.').waitFor();
    await screenshot(page, target, 'config-02-edited');
    const config = await client.get('/1/config', { key: 'master' });
    assert.equal(config.body.params.welcome, 'Welcome back');
    assert.equal(config.body.masterKeyOnly.welcome, true);
    assert.equal('beta' in config.body.params, false);
    assert.equal(Object.keys(config.body.params).length, 7);
  });

  it('uploads a File parameter from the page and previews the image', async () => {
    // A 1×1 PNG.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    await page.getByLabel('Name of the new parameter').fill('logo');
    await page.getByLabel(`Type of ${NEW}`).selectOption('File');
    await page.getByLabel(`File for ${NEW}`).setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: png });
    await page.getByText('Uploaded logo.png.').waitFor();
    await page.getByRole('button', { name: 'Add parameter' }).click();
    await page.getByText('Saved logo.').waitFor();
    const config = await client.get('/1/config', { key: 'master' });
    const logo = config.body.params.logo as { __type: string; name: string; url: string };
    assert.equal(logo.__type, 'File');
    assert.match(logo.name, /^[0-9a-f]{32}_logo\.png$/);
    const bytes = await fetch(logo.url);
    assert.equal(bytes.status, 200);
    assert.equal(bytes.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await bytes.arrayBuffer()), png);
    // The row shows the image itself, loaded from the file's URL.
    const preview = page.locator('tr[data-param="logo"]').getByRole('img', { name: `Preview of ${logo.name}` });
    await page.waitForFunction((name) => (document.querySelector(`img[alt="Preview of ${name}"]`) as HTMLImageElement | null)?.naturalWidth === 1, logo.name);
    assert.equal(await preview.getAttribute('src'), logo.url);
    await screenshot(page, target, 'config-03-file');
  });

  it("lists this tab's changes and puts one back as it was", async () => {
    const rows = page.getByRole('table', { name: 'Config changes' }).locator('tbody tr');
    // Eight added, one edited, one deleted, one File: refusals are not changes.
    assert.equal(await rows.count(), 11);
    assert.equal(await page.locator('tr[data-change="welcome"]').count(), 2);
    await page.getByRole('button', { name: 'Put welcome back as before change 9' }).click();
    await page.getByText('Saved welcome.').waitFor();
    await page.getByRole('button', { name: 'Put beta back as before change 10' }).click();
    await page.getByText('Saved beta.').waitFor();
    assert.equal(await rows.count(), 13);
    await screenshot(page, target, 'config-04-history');
    const config = await client.get('/1/config', { key: 'master' });
    assert.equal(config.body.params.welcome, 'Hello, world');
    assert.notEqual(config.body.masterKeyOnly.welcome, true);
    assert.equal(config.body.params.beta, true);
  });
});
