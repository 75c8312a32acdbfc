import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import { ADMIN } from '../helpers/targets.ts';
import { launch, screenshot, signIn } from './browser.ts';

/**
 * The dashboard in Chromium against the real server on each backend (docs/dashboard.md): sign in,
 * the apps page with its keys and settings, the data browser over a class of 3,000 objects
 * (scrolling, sorting, filtering, editing, adding and deleting rows), sign out.
 */
const ROWS = 3000;

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

async function seed(client: AppClient, className: string): Promise<void> {
  for (let start = 0; start < ROWS; start += 50) {
    const requests = Array.from({ length: 50 }, (_, k) => {
      const i = start + k;
      return { method: 'POST', path: `/1/classes/${className}`, body: { name: `row-${String(i).padStart(4, '0')}`, score: i % 100, done: i % 2 === 0, tags: [`t${i % 3}`], at: { __type: 'Date', iso: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString() } } };
    });
    const answer = await client.post('/1/batch', { requests }, { key: 'master' });
    assert.equal(answer.status, 200, answer.text);
  }
}

/** The grid's row count as it tells assistive technology: rows loaded, +1 while more are coming, +1 for the header. */
function rowCount(page: Page): Promise<number> {
  return page.locator('[role="grid"]').evaluate((grid) => Number(grid.getAttribute('aria-rowcount')));
}

/** Scrolls the grid to its end until every row is loaded; answers how many rows the DOM held at most. */
async function scrollToEnd(page: Page, expectedRows: number): Promise<number> {
  let mostInDom = 0;
  while ((await rowCount(page)) !== expectedRows + 1) {
    mostInDom = Math.max(mostInDom, await page.locator('.grid-row').count());
    await page.locator('[role="grid"]').evaluate((grid) => grid.scrollTo(0, grid.scrollHeight));
    await page.waitForTimeout(50);
  }
  return mostInDom;
}

async function firstRow(page: Page, column: string): Promise<string> {
  return (await page.locator(`.grid-row[data-object-id] [data-column="${column}"]`).first().textContent()) ?? '';
}

async function waitForText(page: Page, selector: string, text: string): Promise<void> {
  await page.waitForFunction(([s, t]) => document.querySelector(s!)?.textContent === t, [selector, text]);
}

eachBackend('dashboard: sign in, apps and the data browser', (target) => {
  let client: AppClient;
  let page: Page;
  const className = unique('Browse');

  before(async () => {
    client = await newApp(target);
    await seed(client, className);
    page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  });
  after(async () => {
    await page?.close();
  });

  it('a browser at / is sent to /dashboard and signs in with the account', async () => {
    await signIn(page, target);
    assert.equal(new URL(page.url()).pathname, '/dashboard');
    await page.getByRole('link', { name: String(client.app.appName) }).waitFor();
    await screenshot(page, target, '01-apps');
  });

  it('an app shows its keys hidden, shows one on demand, and rotates one', async () => {
    await page.getByRole('link', { name: String(client.app.appName) }).click();
    assert.equal(new URL(page.url()).pathname, `/dashboard/apps/${client.app.applicationId}`);
    const master = page.locator('[data-key="masterKey"]');
    assert.equal(await master.textContent(), '•'.repeat(12));
    await page.getByRole('button', { name: 'Show Master key' }).click();
    assert.equal(await master.textContent(), client.app.masterKey);

    await page.getByRole('button', { name: 'Show REST API key' }).click();
    await page.getByRole('button', { name: 'Rotate REST API key' }).click();
    await page.getByRole('button', { name: 'Confirm rotating REST API key' }).click();
    await page.waitForFunction((old) => document.querySelector('[data-key="restKey"]')?.textContent !== old, client.app.restKey);
    const shown = await page.locator('[data-key="restKey"]').textContent();
    const stored = await fetch(`${target.url}/1/apps/${client.app.applicationId}`, { headers: { 'X-Svc-Email': ADMIN.email, 'X-Svc-Password': ADMIN.password } }).then((r) => r.json() as Promise<Record<string, string>>);
    assert.equal(stored.restKey, shown);
    assert.notEqual(stored.restKey, client.app.restKey);
    await screenshot(page, target, '02-app-keys');
  });

  it('a setting the server refuses shows the server\'s message', async () => {
    await page.getByLabel('sessionLength').fill('-5');
    await page.getByRole('button', { name: 'Save settings' }).click();
    const alert = page.locator('.settings [role="alert"]');
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /sessionLength/);
    await screenshot(page, target, '03-settings-refused');
  });

  it('the class list counts objects; the grid holds only the rows in view and pages by objectId to the end', async () => {
    await page.getByRole('button', { name: `Browse data of ${String(client.app.appName)}` }).click();
    await waitForText(page, `[data-count-of="${className}"]`, '3,000');
    await page.getByRole('link', { name: new RegExp(`^${className}`) }).click();
    assert.equal(new URL(page.url()).pathname, `/dashboard/apps/${client.app.applicationId}/browser/${className}`);
    await waitForText(page, '[data-total]', '3,000 objects');
    const idAt = async (order: string) => (await client.get(`/1/classes/${className}`, { key: 'master', query: { order, keys: 'objectId', limit: 1 } })).body.results[0].objectId as string;
    await page.locator('.grid-row[data-object-id]').first().waitFor();
    assert.equal(await firstRow(page, 'objectId'), await idAt('objectId'));
    await screenshot(page, target, '04-class');
    const mostInDom = await scrollToEnd(page, ROWS);
    assert.ok(mostInDom < 100, `the DOM held ${mostInDom} rows`);
    assert.equal(await page.locator('.grid-row[data-object-id]').last().getAttribute('data-object-id'), await idAt('-objectId'));
    await screenshot(page, target, '05-scrolled-to-end');
  });

  it('sorting by a column with ties pages through every row once, both ways', async () => {
    await page.getByRole('button', { name: 'Sort by score' }).click();
    await page.locator('[role="columnheader"][aria-sort="ascending"]').waitFor();
    await waitForText(page, '.grid-row[data-object-id] [data-column="score"]', '0');
    await scrollToEnd(page, ROWS);
    await page.getByRole('button', { name: 'Sort by score' }).click();
    await page.locator('[role="columnheader"][aria-sort="descending"]').waitFor();
    await waitForText(page, '.grid-row[data-object-id] [data-column="score"]', '99');
    await scrollToEnd(page, ROWS);
    await screenshot(page, target, '06-sorted-descending');
  });

  it('filters built from the query language narrow the rows and the count', async () => {
    await page.getByLabel('Filter column').selectOption('score');
    await page.getByLabel('Filter operator').selectOption('lt');
    await page.getByLabel('Filter value').fill('10');
    await page.getByRole('button', { name: 'Add filter' }).click();
    await waitForText(page, '[data-total]', '300 objects');
    await page.getByLabel('Filter column').selectOption('done');
    await page.getByLabel('Filter operator').selectOption('eq');
    await page.getByLabel('Filter value').fill('true');
    await page.getByRole('button', { name: 'Add filter' }).click();
    await waitForText(page, '[data-total]', '150 objects');
    // Still sorted by score, highest first: 8 is the highest even score under 10.
    await waitForText(page, '.grid-row[data-object-id] [data-column="score"]', '8');
    await scrollToEnd(page, 150);
    // The view is in the URL: a reload asks to sign in again (nothing was kept) and comes back to it.
    assert.equal(new URL(page.url()).search, '?sort=-score&filter=score.lt.10&filter=done.eq.true');
    await page.reload();
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await waitForText(page, '[data-total]', '150 objects');
    await waitForText(page, '.grid-row[data-object-id] [data-column="score"]', '8');
    await screenshot(page, target, '07-filtered');
  });

  it('String and Number cells are edited in place, an Array in a JSON panel, and stored with their types', async () => {
    const objectId = (await page.locator('.grid-row[data-object-id]').first().getAttribute('data-object-id'))!;
    // The keyboard: arrows move the focused cell, Enter opens its editor, Escape leaves it.
    await page.locator('.grid-row[data-object-id]').first().locator('[data-column="objectId"]').click();
    await page.keyboard.press('ArrowRight');
    await page.locator('.grid-row[data-object-id]').first().locator('[data-column="name"].active:focus').waitFor();
    await page.keyboard.press('Enter');
    await page.getByLabel('New value of name').waitFor();
    await page.keyboard.press('Escape');
    await page.getByLabel('New value of name').waitFor({ state: 'detached' });
    await page.locator('.grid-row[data-object-id]').first().locator('[data-column="name"]').dblclick();
    await page.getByLabel('New value of name').fill('renamed in the dashboard');
    await page.getByLabel('New value of name').press('Enter');
    await waitForText(page, `.grid-row[data-object-id="${objectId}"] [data-column="name"]`, 'renamed in the dashboard');
    await page.locator(`.grid-row[data-object-id="${objectId}"] [data-column="score"]`).dblclick();
    await page.getByLabel('New value of score').fill('12345');
    await page.getByLabel('New value of score').press('Enter');
    await waitForText(page, `.grid-row[data-object-id="${objectId}"] [data-column="score"]`, '12345');
    // An Array in the JSON panel: a value that is not an array is refused there, not sent.
    await page.locator(`.grid-row[data-object-id="${objectId}"] [data-column="tags"]`).dblclick();
    const editor = page.getByLabel('New value of tags');
    await editor.fill('{"not": "an array"}');
    await page.getByRole('dialog', { name: 'Edit tags' }).getByRole('button', { name: 'Save' }).click();
    assert.equal(await page.getByRole('dialog', { name: 'Edit tags' }).getByRole('alert').textContent(), 'An Array column takes a JSON array: [ … ].');
    await editor.fill('["edited", 2]');
    await screenshot(page, target, '08-json-editor');
    await page.getByRole('dialog', { name: 'Edit tags' }).getByRole('button', { name: 'Save' }).click();
    await waitForText(page, `.grid-row[data-object-id="${objectId}"] [data-column="tags"]`, '["edited",2]');
    const stored = await client.get(`/1/classes/${className}/${objectId}`, { key: 'master' });
    assert.equal(stored.body.name, 'renamed in the dashboard');
    assert.equal(stored.body.score, 12345);
    assert.deepEqual(stored.body.tags, ['edited', 2]);
    await screenshot(page, target, '08-edited');
  });

  it('a row is added, then deleted after a confirmation', async () => {
    await page.getByRole('button', { name: 'Add row' }).click();
    await screenshot(page, target, '09-added');
    const notice = page.locator('.notice');
    await page.waitForFunction(() => /^Added /.test(document.querySelector('.notice')?.textContent ?? ''));
    const objectId = ((await notice.textContent()) ?? '').replace(/^Added |\.$/g, '');
    assert.equal((await client.get(`/1/classes/${className}/${objectId}`, { key: 'master' })).status, 200);
    await page.getByLabel(`Select ${objectId}`).check();
    await page.getByRole('button', { name: 'Delete selected (1)' }).click();
    await page.getByRole('alertdialog', { name: 'Confirm deletion' }).waitFor();
    await screenshot(page, target, '10-confirm-delete');
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
    await waitForText(page, '.notice', '1 deleted.');
    const gone = await client.get(`/1/classes/${className}/${objectId}`, { key: 'master' });
    assert.equal(gone.status, 404);
  });

  it('a class is created, a column added to it, and a new row\'s cell filled', async () => {
    const created = unique('Made');
    await page.getByLabel('New class').fill(created);
    await page.getByRole('button', { name: 'Create class' }).click();
    await waitForText(page, '[data-total]', '0 objects');
    assert.equal(new URL(page.url()).pathname, `/dashboard/apps/${client.app.applicationId}/browser/${created}`);
    await page.getByText('Add column').click();
    await page.getByLabel('Column name').fill('title');
    await page.getByLabel('Column type').selectOption('String');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('button', { name: 'Sort by title' }).waitFor();
    const schema = await client.get(`/1/schemas/${created}`, { key: 'master' });
    assert.deepEqual(schema.body.fields.title, { type: 'String' });
    await page.getByRole('button', { name: 'Add row' }).click();
    await page.waitForFunction(() => /^Added /.test(document.querySelector('.notice')?.textContent ?? ''));
    const objectId = ((await page.locator('.notice').textContent()) ?? '').replace(/^Added |\.$/g, '');
    await page.locator(`.grid-row[data-object-id="${objectId}"] [data-column="title"]`).dblclick();
    await page.getByLabel('New value of title').fill('hello');
    await page.getByLabel('New value of title').press('Enter');
    await waitForText(page, `.grid-row[data-object-id="${objectId}"] [data-column="title"]`, 'hello');
    const stored = await client.get(`/1/classes/${created}/${objectId}`, { key: 'master' });
    assert.equal(stored.body.title, 'hello');
    await screenshot(page, target, '11-new-class');
  });

  it('signing out forgets the keys: nothing was kept in the browser\'s storage', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const stored = await page.evaluate(() => ({ local: localStorage.length, session: sessionStorage.length, cookie: document.cookie }));
    assert.deepEqual(stored, { local: 0, session: 0, cookie: '' });
    await page.reload();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await screenshot(page, target, '12-signed-out');
  });
});
