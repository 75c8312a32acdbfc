import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, type AppClient } from '../helpers/client.ts';
import { upload } from '../helpers/files.ts';
import { ADMIN } from '../helpers/targets.ts';
import { launch, screenshot } from './browser.ts';

/** The files page (docs/dashboard.md "Files"): pages of GET /1/files, previews, a delete; checked through the REST API. */
let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** A 2×2 red PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg==', 'base64');
const TEXT = 'First line of the notes,\nand a second one.\n';
/** 70 KB: longer than the 64 KB a text preview reads. */
const LONG_TEXT = Buffer.from('0123456789abcde\n'.repeat(4480));

eachBackend('dashboard: files', (target) => {
  let client: AppClient;
  let page: Page;
  const names = { image: '', text: '', pdf: '', log: '', empty: '' };
  const rows = () => page.locator('tr[data-file]');

  async function listed(): Promise<string[]> {
    const answer = await client.get('/1/files', { key: 'master', query: { limit: 1000 } });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.results.map((file: { name: string }) => file.name);
  }

  before(async () => {
    client = await newApp(target);
    const stored = async (name: string, bytes: Buffer, contentType: string) => {
      const answer = await upload(client, name, bytes, { contentType });
      assert.equal(answer.status, 201, answer.text);
      return answer.body.name as string;
    };
    names.image = await stored('dot.png', PNG, 'image/png');
    names.text = await stored('notes.txt', Buffer.from(TEXT), 'text/plain; charset=utf-8');
    names.pdf = await stored('paper.pdf', Buffer.from('%PDF-1.4 not really'), 'application/pdf');
    names.log = await stored('server.log', LONG_TEXT, 'text/plain');
    names.empty = await stored('empty.txt', Buffer.alloc(0), 'text/plain');
    // 50 more, so that the first page (50) is full and the rest is read from `next`.
    for (let i = 0; i < 50; i++) await stored(`filler-${i}.txt`, Buffer.from(String(i)), 'text/plain');

    page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.goto(`${target.url}/dashboard/apps/${client.app.applicationId}/files`);
    await page.getByLabel('Email', { exact: true }).fill(ADMIN.email);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Files' }).waitFor();
  });
  after(async () => {
    await page?.close();
  });

  it('lists the files by name in pages of 50: name, size, content type, date', async () => {
    await page.getByRole('button', { name: 'More files' }).waitFor();
    assert.equal(await rows().count(), 50);
    await page.getByRole('button', { name: 'More files' }).click();
    await page.getByRole('button', { name: 'More files' }).waitFor({ state: 'detached' });
    const shown = await rows().evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-file')!));
    assert.deepEqual(shown, await listed(), 'every file once, in the order of GET /1/files');
    assert.equal(shown.length, 55);
    const cells = await page.locator(`tr[data-file="${names.image}"] td`).allTextContents();
    assert.equal(cells[0], `dot.png${names.image}`);
    assert.equal(cells[1], `${PNG.length} B`);
    assert.equal(cells[2], 'image/png');
    assert.match(cells[3]!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('previews an image inline, text as text, and links anything else', async () => {
    await page.getByRole('button', { name: `Preview ${names.image}` }).click();
    const image = page.getByRole('region', { name: `Preview of ${names.image}` }).getByRole('img', { name: 'dot.png' });
    await image.waitFor();
    await page.waitForFunction(() => (document.querySelector('.preview-image') as HTMLImageElement | null)?.complete === true);
    assert.equal(await image.evaluate((img: HTMLImageElement) => img.naturalWidth), 2, 'the image loaded');
    await screenshot(page, target, 'files-01-image');

    await page.getByRole('button', { name: `Preview ${names.text}` }).click();
    const text = page.getByRole('region', { name: `Preview of ${names.text}` }).getByLabel('File text');
    await text.waitFor();
    assert.equal(await text.textContent(), TEXT);
    await screenshot(page, target, 'files-02-text');

    await page.getByRole('button', { name: `Preview ${names.log}` }).click();
    const long = page.getByRole('region', { name: `Preview of ${names.log}` });
    await long.getByLabel('File text').waitFor();
    assert.equal(await long.getByLabel('File text').textContent(), LONG_TEXT.subarray(0, 64 * 1024).toString());
    await long.getByText('The first 64.0 KB of 70.0 KB.').waitFor();

    // An empty file is read whole (a Range of it would answer 416).
    await page.getByRole('button', { name: `Preview ${names.empty}` }).click();
    const empty = page.getByRole('region', { name: `Preview of ${names.empty}` }).getByLabel('File text');
    await empty.waitFor();
    assert.equal(await empty.textContent(), '');

    await page.getByRole('button', { name: `Preview ${names.pdf}` }).click();
    const preview = page.getByRole('region', { name: `Preview of ${names.pdf}` });
    await preview.getByText('No preview for application/pdf; use the download link.').waitFor();
    assert.equal(await preview.getByRole('link', { name: 'Download' }).getAttribute('href'), `${target.url}/files/${client.app.applicationId}/${names.pdf}`);
  });

  it('deletes a file after a confirmation: gone from the list and from its URL', async () => {
    await page.getByRole('button', { name: `Delete ${names.pdf}` }).click();
    await page.getByRole('alertdialog', { name: `Confirm deleting ${names.pdf}` }).getByRole('button', { name: 'Cancel' }).click();
    assert.ok((await listed()).includes(names.pdf), 'kept after Cancel');
    await page.getByRole('button', { name: `Delete ${names.pdf}` }).click();
    await page.getByRole('alertdialog', { name: `Confirm deleting ${names.pdf}` }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText(`Deleted ${names.pdf}.`).waitFor();
    await page.locator(`tr[data-file="${names.pdf}"]`).waitFor({ state: 'detached' });
    assert.equal((await listed()).includes(names.pdf), false);
    assert.equal((await fetch(`${target.url}/files/${client.app.applicationId}/${names.pdf}`)).status, 404);
    assert.equal(await rows().count(), 54);
  });
});
