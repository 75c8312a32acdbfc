import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { newApp, type AppClient } from './client.ts';
import { assertError } from './users.ts';
import { upload, type FileTarget } from './files.ts';

/**
 * GET /1/files (docs/api.md "Listing files"), for every file store: each files test file runs it
 * against its servers. Each run has an app of its own, so the listing holds only its files.
 */
export function fileListScenarios(target: () => FileTarget): void {
  let app: AppClient;
  const uploads = [
    { name: 'b-notes.txt', bytes: Buffer.from('notes, two lines\nsecond'), contentType: 'text/plain' },
    { name: 'a-photo.png', bytes: Buffer.alloc(321, 7), contentType: 'image/png' },
    { name: 'c-data.json', bytes: Buffer.from('{"a":1}'), contentType: 'application/json' },
    { name: 'd-blob.bin', bytes: Buffer.alloc(0), contentType: 'application/octet-stream' },
    { name: 'e-page.html', bytes: Buffer.from('<p>hi</p>'), contentType: 'text/html' },
  ];
  const stored: { name: string; url: string; size: number; contentType: string }[] = [];
  let startedAt = 0;

  before(async () => {
    app = await newApp(target());
  });

  function list(query: Record<string, string | number> = {}, key: 'master' | 'rest' | 'client' | 'javascript' | 'windows' | 'none' = 'master') {
    return app.get('/1/files', { key, query });
  }

  it('lists no files of an app that has none: {results: []}', async () => {
    const answer = await list();
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body, { results: [] });
  });

  it('lists the files by name in keyset pages: limit, after, and next while more follow', async () => {
    startedAt = Date.now();
    for (const file of uploads) {
      const answer = await upload(app, file.name, file.bytes, { contentType: file.contentType });
      assert.equal(answer.status, 201, answer.text);
      stored.push({ name: answer.body.name, url: answer.body.url, size: file.bytes.length, contentType: file.contentType });
    }
    stored.sort((a, b) => (a.name < b.name ? -1 : 1));

    const whole = await list();
    assert.equal(whole.status, 200, whole.text);
    assert.deepEqual(Object.keys(whole.body), ['results'], 'no next: nothing follows');
    assert.deepEqual(whole.body.results.map(({ createdAt: _, ...file }: Record<string, unknown>) => file), stored);
    for (const file of whole.body.results) {
      assert.deepEqual(Object.keys(file).sort(), ['contentType', 'createdAt', 'name', 'size', 'url']);
      assert.match(file.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      // The store's clock: S3 keeps whole seconds, so the bound is a second wide.
      assert.ok(Date.parse(file.createdAt) >= startedAt - 1000, file.createdAt);
    }

    const first = await list({ limit: 2 });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body.results.map((f: { name: string }) => f.name), [stored[0]!.name, stored[1]!.name]);
    assert.equal(first.body.next, stored[1]!.name);
    const second = await list({ limit: 2, after: first.body.next });
    assert.deepEqual(second.body.results.map((f: { name: string }) => f.name), [stored[2]!.name, stored[3]!.name]);
    assert.equal(second.body.next, stored[3]!.name);
    const last = await list({ limit: 2, after: second.body.next });
    assert.deepEqual(last.body, { results: [whole.body.results[4]] });

    // `after` need not be a stored name: the page starts at the first name sorting after it.
    const fromText = await list({ after: stored[2]!.name.slice(0, 5) });
    assert.ok(fromText.body.results.every((f: { name: string }) => f.name > stored[2]!.name.slice(0, 5)));
    const zero = await list({ limit: 0 });
    assert.equal(zero.status, 200, zero.text);
    assert.deepEqual(zero.body, { results: [] });
  });

  it('leaves out what the store holds under other names, and still fills each page', async () => {
    // Sorted among the stored names (digits, then letters), so that they fall inside pages.
    const strays = [`${stored[1]!.name.slice(0, 10)}-stray.txt`, `${stored[2]!.name.slice(0, 10)}`, 'zz-notes.txt'];
    for (const name of strays) await target().plant(app, stored[0]!.name, name, Buffer.from('not Basalt'));
    const names: string[] = [];
    let after = '';
    for (let pages = 0; pages < 10; pages++) {
      const answer = await list({ limit: 2, ...(after ? { after } : {}) });
      assert.equal(answer.status, 200, answer.text);
      names.push(...answer.body.results.map((f: { name: string }) => f.name));
      if (!answer.body.next) break;
      assert.equal(answer.body.results.length, 2, 'a page followed by another is full');
      after = answer.body.next;
    }
    assert.deepEqual(names, stored.map((f) => f.name));
  });

  it('leaves a deleted file out of the listing', async () => {
    const gone = stored[0]!;
    assert.equal((await app.delete(`/1/files/${gone.name}`, { key: 'master' })).status, 200);
    const answer = await list();
    assert.deepEqual(answer.body.results.map((f: { name: string }) => f.name), stored.slice(1).map((f) => f.name));
  });

  it('lists for the master key only: other keys 403/119, no key 401/903', async () => {
    for (const key of ['rest', 'client', 'javascript', 'windows'] as const) assertError(await list({}, key), 403, 119, key);
    assertError(await list({}, 'none'), 401, 903);
  });

  it('refuses a limit that is not a whole number (400/117) and an after longer than a stored name (400/102)', async () => {
    for (const limit of ['abc', '-1', '1.5', '1e3']) assertError(await list({ limit }), 400, 117, limit);
    assertError(await list({ after: 'x'.repeat(162) }), 400, 102);
    assertError(await app.get('/1/files?after=a&after=b', { key: 'master' }), 400, 102, 'two afters');
  });
}
