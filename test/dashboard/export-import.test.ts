import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import { launch, screenshot, signIn, signInAt } from './browser.ts';

/**
 * Export and import in the data browser (docs/dashboard.md "Export and import"): a class of more
 * than one export page is exported as CSV and JSON (the filtered rows), the CSV is imported into
 * another class with two bad lines added, and the report names them with their reasons.
 */
const ROWS = 1100;
const FIELDS = { name: { type: 'String' }, score: { type: 'Number' }, done: { type: 'Boolean' }, at: { type: 'Date' }, tags: { type: 'Array' } };

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

function row(i: number): Record<string, unknown> {
  // One name holds what CSV must quote: a comma, a quote and a line break.
  const name = i === 7 ? 'seven, "the" odd\nline' : `row-${String(i).padStart(4, '0')}`;
  return { name, score: i % 100, done: i % 2 === 0, tags: [`t${i % 3}`, i], at: { __type: 'Date', iso: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString() } };
}

async function seed(client: AppClient, className: string): Promise<void> {
  for (let start = 0; start < ROWS; start += 50) {
    const requests = Array.from({ length: 50 }, (_, k) => ({ method: 'POST', path: `/1/classes/${className}`, body: row(start + k) }));
    const answer = await client.post('/1/batch', { requests }, { key: 'master' });
    assert.equal(answer.status, 200, answer.text);
  }
}

async function allRows(client: AppClient, className: string): Promise<Map<string, Record<string, unknown>>> {
  const answer = await client.get(`/1/classes/${className}`, { key: 'master', query: { limit: 5000, keys: 'name,score,done,at,tags' } });
  assert.equal(answer.status, 200, answer.text);
  const rows = new Map<string, Record<string, unknown>>();
  for (const { name, score, done, at, tags } of answer.body.results) rows.set(name, { score, done, at, tags });
  return rows;
}

async function download(page: Page, button: string): Promise<string> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button }).click()]);
  return readFileSync((await file.path())!, 'utf8');
}

eachBackend('dashboard: export and import', (target) => {
  let client: AppClient;
  let page: Page;
  const source = unique('Export');
  const destination = unique('Import');
  let csv = '';

  before(async () => {
    client = await newApp(target);
    await seed(client, source);
    const created = await client.post(`/1/schemas/${destination}`, { className: destination, fields: FIELDS }, { key: 'master' });
    assert.equal(created.status, 201, created.text);
    page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await signIn(page, target);
  });
  after(async () => {
    await page?.close();
  });

  async function openClass(className: string, query = ''): Promise<void> {
    await signInAt(page, `${target.url}/dashboard/apps/${client.app.applicationId}/browser/${className}${query}`);
    await page.locator('[data-total]').filter({ hasText: 'objects' }).waitFor();
  }

  it('exports a whole class as CSV across several keyset pages, every row once', async () => {
    await openClass(source);
    csv = await download(page, 'Export CSV');
    assert.match(csv, /^objectId,name,score,done,tags,at,createdAt,updatedAt,ACL\r\n/);
    assert.ok(csv.includes('"seven, ""the"" odd\nline"'), 'the odd name is quoted');
    // Lines are records here except the one quoted line break.
    assert.equal(csv.split('\r\n').filter(Boolean).length, ROWS + 1);
    const ids = csv.split('\r\n').slice(1).filter(Boolean).map((line) => line.split(',')[0]);
    assert.equal(new Set(ids).size, ROWS);
    await page.getByText(`Exported ${ROWS} rows as CSV.`).waitFor();
    await screenshot(page, target, 'export-01-csv');
  });

  it('exports the filtered rows as JSON', async () => {
    await openClass(source, '?filter=score.lt.10');
    const json = JSON.parse(await download(page, 'Export JSON')) as Record<string, unknown>[];
    assert.equal(json.length, 110);
    assert.ok(json.every((object) => (object.score as number) < 10 && typeof object.objectId === 'string'));
    const seven = json.find((object) => object.name === row(7).name)!;
    assert.deepEqual({ score: seven.score, done: seven.done, tags: seven.tags, at: seven.at }, { score: 7, done: false, tags: ['t1', 7], at: row(7).at });
  });

  it('imports the CSV into another class with a progress bar, and reports the refused lines with why', async () => {
    await openClass(destination);
    const header = csv.split('\r\n')[0]!;
    assert.equal(header, 'objectId,name,score,done,tags,at,createdAt,updatedAt,ACL');
    const bad = [',not a number,abc,true,[],2024-01-01T00:00:00.000Z,,,', ',wrong tags,1,true,"{""a"":1}",2024-01-01T00:00:00.000Z,,,'].join('\r\n');
    await page.locator('input[type="file"]').setInputFiles({ name: 'rows.csv', mimeType: 'text/csv', buffer: Buffer.from(`${csv}${bad}\r\n`) });
    await page.getByText(`Imported ${ROWS} of ${ROWS + 2} rows from rows.csv; 2 refused.`).waitFor({ timeout: 60_000 });
    const refused = await page.getByRole('table', { name: 'Rows refused' }).locator('tbody tr').allTextContents();
    assert.equal(refused.length, 2);
    // Rows are counted as records, the header being the first (a quoted line break is one record).
    assert.match(refused[0]!, new RegExp(`^${ROWS + 2}—not sent: score: "abc" is not a number$`));
    assert.match(refused[1]!, new RegExp(`^${ROWS + 3}111`));
    await page.locator('[data-total]').filter({ hasText: `${ROWS.toLocaleString('en')} objects` }).waitFor();
    await screenshot(page, target, 'export-02-imported');
    assert.deepEqual(await allRows(client, destination), await allRows(client, source));
  });

  it('an import that updates: a known objectId is changed, an unknown one refused by the server (ids are its own), a row without one created', async () => {
    const source = await client.get(`/1/classes/${destination}`, { key: 'master', query: { where: { name: 'row-0003' } } });
    const known = source.body.results[0];
    const file = JSON.stringify([
      { objectId: known.objectId, score: 999, tags: ['updated'] },
      { objectId: 'NoSuchObject123', name: 'unknown id' },
      { name: 'brand new', score: 1 },
    ]);
    await openClass(destination);
    await page.getByLabel('Update objects whose objectId exists').check();
    await page.locator('input[type="file"]').setInputFiles({ name: 'update.json', mimeType: 'application/json', buffer: Buffer.from(file) });
    await page.getByText('Imported 2 of 3 rows from update.json (1 updated, 1 created); 1 refused.').waitFor();
    const refused = await page.getByRole('table', { name: 'Rows refused' }).locator('tbody tr td').allTextContents();
    assert.equal(refused[0], '2');
    assert.equal(refused[1], '105');
    await screenshot(page, target, 'export-03-updated');
    const after = await client.get(`/1/classes/${destination}/${known.objectId}`, { key: 'master' });
    // The fields of the row are written; the others stay as they were.
    assert.deepEqual({ name: after.body.name, score: after.body.score, tags: after.body.tags, done: after.body.done, at: after.body.at }, { name: 'row-0003', score: 999, tags: ['updated'], done: known.done, at: known.at });
    assert.equal((await client.get(`/1/classes/${destination}/NoSuchObject123`, { key: 'master' })).status, 404);
    const created = await client.get(`/1/classes/${destination}`, { key: 'master', query: { where: { name: { $in: ['brand new', 'unknown id'] } } } });
    assert.deepEqual(created.body.results.map((o: { name: string; score: number }) => [o.name, o.score]), [['brand new', 1]]);
    await page.locator('[data-total]').filter({ hasText: `${(ROWS + 1).toLocaleString('en')} objects` }).waitFor();
  });
});
