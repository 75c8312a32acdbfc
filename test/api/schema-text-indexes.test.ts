import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient, type Response } from '../helpers/client.ts';
import { openTextIndexDb, type TextIndexDb } from '../helpers/text-index-db.ts';
import type { Target } from '../helpers/targets.ts';

/**
 * Text indexes of the schema API, `{"indexes": {name: {field: "text"}}}`: checked, built from the
 * objects already stored, kept in step with every write, and dropped with the index, the field
 * or the class, on both backends.
 */

const MASTER = { key: 'master' } as const;
const FIELDS = {
  body: { type: 'String' }, title: { type: 'String' }, n: { type: 'Number' }, when: { type: 'Date' }, tags: { type: 'Array' },
  owner: { type: 'Pointer', targetClass: '_User' }, meta: { type: 'Object' },
};

function assertError(response: Response, status: number, code: number, label = ''): void {
  assert.equal(response.status, status, `${label}: status (body ${response.text})`);
  assert.deepEqual(Object.keys(response.body ?? {}).sort(), ['code', 'error'], `${label}: body ${response.text}`);
  assert.equal(response.body.code, code, `${label}: code (${response.body.error})`);
}

/** What each backend builds for one text index (see test/helpers/text-index-db.ts). */
function built(target: Target, className: string, index: string): string[] {
  const base = `${className}_idx:${index}`;
  if (target.backend === 'postgres') return [`function ${base}`, `index ${base}`].sort();
  const fts = `${base}:words`;
  return [
    `trigger ${base}:delete`, `trigger ${base}:insert`, `trigger ${base}:update`,
    `table ${fts}`, `table ${fts}_config`, `table ${fts}_content`, `table ${fts}_data`, `table ${fts}_docsize`, `table ${fts}_idx`,
  ].sort();
}

eachBackend('schema text indexes', (target) => {
  let app: AppClient;
  let db: TextIndexDb;

  before(async () => {
    app = await newApp(target);
    const marker = unique('Marker');
    assert.equal((await app.post(`/1/schemas/${marker}`, {}, MASTER)).status, 201);
    db = await openTextIndexDb(target, marker);
  });

  after(async () => {
    await db?.close();
  });

  const search = (className: string, term: string) =>
    app.get(`/1/classes/${className}`, { query: { where: { body: { $text: { $search: { $term: term } } } }, order: 'title' } }).then((response) => {
      assert.equal(response.status, 200, response.text);
      return (response.body.results as { title?: string }[]).map((object) => object.title);
    });

  it('are created with the class or later, listed with the schema, and built in the database', async () => {
    const cls = unique('Texts');
    const created = await app.post(`/1/schemas/${cls}`, { fields: FIELDS, indexes: { byBody: { body: 'text' } } }, MASTER);
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.indexes, { byBody: { body: 'text' } });
    assert.deepEqual(await db.objects(cls), built(target, cls, 'byBody'));

    // A second text index on another field, and an ordinary index on a text-indexed field.
    const added = await app.put(`/1/schemas/${cls}`, { indexes: { byTitle: { title: 'text' }, sortBody: { body: 1 } } }, MASTER);
    assert.equal(added.status, 200, added.text);
    assert.deepEqual(added.body.indexes, { byBody: { body: 'text' }, byTitle: { title: 'text' }, sortBody: { body: 1 } });
    const read = await app.get(`/1/schemas/${cls}`, MASTER);
    assert.deepEqual(read.body.indexes, added.body.indexes);
    const objects = await db.objects(cls);
    for (const object of [...built(target, cls, 'byBody'), ...built(target, cls, 'byTitle')]) assert.ok(objects.includes(object), `${object} in ${objects.join(', ')}`);
  });

  it('are refused (400/102) on anything but one String field of the class, and nothing is built', async () => {
    const cls = unique('TextRules');
    const created = await app.post(`/1/schemas/${cls}`, { fields: FIELDS, indexes: { byBody: { body: 'text' } } }, MASTER);
    assert.equal(created.status, 201, created.text);
    const objectsBefore = await db.objects(cls);
    const bad: [string, Record<string, unknown>][] = [
      ['a Number field', { ix: { n: 'text' } }],
      ['a Date field', { ix: { when: 'text' } }],
      ['an Array field', { ix: { tags: 'text' } }],
      ['a Pointer field', { ix: { owner: 'text' } }],
      ['an Object field', { ix: { meta: 'text' } }],
      ['objectId', { ix: { objectId: 'text' } }],
      ['createdAt', { ix: { createdAt: 'text' } }],
      ['a field that does not exist', { ix: { nope: 'text' } }],
      ['a dotted key', { ix: { 'meta.sub': 'text' } }],
      ['text beside a direction', { ix: { title: 'text', n: 1 } }],
      ['a direction beside text', { ix: { n: 1, title: 'text' } }],
      ['two text fields', { ix: { title: 'text', body: 'text' } }],
      ['"TEXT"', { ix: { title: 'TEXT' } }],
      ['a second text index of a field', { again: { body: 'text' } }],
      ['two text indexes of one field at once', { one: { title: 'text' }, two: { title: 'text' } }],
      ['a name differing only in case from an index', { BYBODY: { title: 'text' } }],
    ];
    for (const [label, indexes] of bad) {
      assertError(await app.put(`/1/schemas/${cls}`, { indexes }, MASTER), 400, 102, `PUT ${label}`);
    }
    for (const [label, indexes] of bad.slice(0, 13)) {
      assertError(await app.post(`/1/schemas/${unique('TextRules')}`, { fields: FIELDS, indexes }, MASTER), 400, 102, `POST ${label}`);
    }
    assert.deepEqual((await app.get(`/1/schemas/${cls}`, MASTER)).body, created.body);
    assert.deepEqual(await db.objects(cls), objectsBefore);
  });

  it('index the objects a class already holds, and every write after: create, update, operators, batch, delete', async () => {
    const cls = unique('Written');
    assert.equal((await app.post(`/1/schemas/${cls}`, { fields: FIELDS }, MASTER)).status, 201);
    const create = async (body: Record<string, unknown>) => {
      const response = await app.post(`/1/classes/${cls}`, body);
      assert.equal(response.status, 201, response.text);
      return String(response.body.objectId);
    };
    const a = await create({ title: 'a', body: 'Alpha beta' });
    const none = await create({ title: 'none', n: 1 });
    assert.equal((await app.put(`/1/schemas/${cls}`, { indexes: { byBody: { body: 'text' } } }, MASTER)).status, 200);
    assert.deepEqual(await search(cls, 'ALPHA'), ['a']);

    const batch = await app.post('/1/batch', {
      requests: [
        { method: 'POST', path: `/1/classes/${cls}`, body: { title: 'b', body: 'beta gamma' } },
        { method: 'POST', path: `/1/classes/${cls}`, body: { title: 'c', body: 'gamma' } },
        { method: 'PUT', path: `/1/classes/${cls}/${none}`, body: { body: 'Gamma, at last' } },
      ],
    });
    assert.equal(batch.status, 200, batch.text);
    const [b, c] = (batch.body as { success: { objectId: string } }[]).map((entry) => entry.success.objectId);
    assert.deepEqual(await search(cls, 'beta'), ['a', 'b']);
    assert.deepEqual(await search(cls, 'gamma'), ['b', 'c', 'none']);

    const steps: [string, () => Promise<Response>, Record<string, string[]>][] = [
      ['a new text', () => app.put(`/1/classes/${cls}/${a}`, { body: 'delta' }), { beta: ['b'], delta: ['a'], alpha: [] }],
      ['another field changes', () => app.put(`/1/classes/${cls}/${b}`, { n: { __op: 'Increment', amount: 2 }, title: 'b' }), { beta: ['b'] }],
      ['the ACL changes', () => app.put(`/1/classes/${cls}/${b}`, { ACL: { '*': { read: true, write: true } } }), { beta: ['b'] }],
      ['the Delete operator', () => app.put(`/1/classes/${cls}/${b}`, { body: { __op: 'Delete' } }), { beta: [], gamma: ['c', 'none'] }],
      ['set again', () => app.put(`/1/classes/${cls}/${b}`, { body: 'epsilon beta' }), { beta: ['b'], epsilon: ['b'] }],
      ['null', () => app.put(`/1/classes/${cls}/${c}`, { body: null }), { gamma: ['none'] }],
      ['a deleted object', () => app.request('DELETE', `/1/classes/${cls}/${a}`), { delta: [] }],
      [
        'a batch of updates and deletes',
        () => app.post('/1/batch', { requests: [{ method: 'PUT', path: `/1/classes/${cls}/${c}`, body: { body: 'zeta' } }, { method: 'DELETE', path: `/1/classes/${cls}/${none}` }] }),
        { zeta: ['c'], gamma: [], last: [] },
      ],
    ];
    for (const [label, write, expected] of steps) {
      const response = await write();
      assert.equal(response.status, 200, `${label}: ${response.text}`);
      for (const [term, titles] of Object.entries(expected)) assert.deepEqual(await search(cls, term), titles, `${label}: ${term}`);
    }
    if (target.backend === 'sqlite') assert.deepEqual(await db.indexedIds(cls, 'byBody'), [b, c].sort());
  });

  it('dropped, leave nothing behind, and the same searches answer alike; made again, find the objects', async () => {
    const cls = unique('Dropped');
    assert.equal((await app.post(`/1/schemas/${cls}`, { fields: FIELDS, indexes: { byBody: { body: 'text' } } }, MASTER)).status, 201);
    for (const [title, body] of [['x', 'one two'], ['y', 'two three']]) assert.equal((await app.post(`/1/classes/${cls}`, { title, body })).status, 201);
    assert.deepEqual(await search(cls, 'two'), ['x', 'y']);

    const dropped = await app.put(`/1/schemas/${cls}`, { indexes: { byBody: { __op: 'Delete' } } }, MASTER);
    assert.equal(dropped.status, 200, dropped.text);
    assert.deepEqual(dropped.body.indexes, {});
    assert.deepEqual(await db.objects(cls), []);
    assert.deepEqual(await search(cls, 'two'), ['x', 'y']);
    // Writes go on without the index's triggers.
    assert.equal((await app.post(`/1/classes/${cls}`, { title: 'z', body: 'three' })).status, 201);
    assert.deepEqual(await search(cls, 'three'), ['y', 'z']);

    const again = await app.put(`/1/schemas/${cls}`, { indexes: { byBody: { body: 'text' } } }, MASTER);
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(await db.objects(cls), built(target, cls, 'byBody'));
    assert.deepEqual(await search(cls, 'three'), ['y', 'z']);
  });

  it('go with their field', async () => {
    const cls = unique('FieldGone');
    assert.equal((await app.post(`/1/schemas/${cls}`, { fields: FIELDS, indexes: { byBody: { body: 'text' }, byTitle: { title: 'text' } } }, MASTER)).status, 201);
    assert.equal((await app.post(`/1/classes/${cls}`, { title: 'kept', body: 'words here' })).status, 201);
    const gone = await app.put(`/1/schemas/${cls}`, { fields: { body: { __op: 'Delete' } } }, MASTER);
    assert.equal(gone.status, 200, gone.text);
    assert.deepEqual(gone.body.indexes, { byTitle: { title: 'text' } });
    assert.deepEqual(await db.objects(cls), built(target, cls, 'byTitle'));
    const found = await app.get(`/1/classes/${cls}`, { query: { where: { title: { $text: { $search: { $term: 'KEPT' } } } } } });
    assert.deepEqual(found.body.results.map((object: { title: string; body?: string }) => [object.title, object.body]), [['kept', undefined]]);
    // The field may come back, with another type even, and no trigger of the old index fires.
    assert.equal((await app.put(`/1/schemas/${cls}`, { fields: { body: { type: 'Number' } } }, MASTER)).status, 200);
    assert.equal((await app.post(`/1/classes/${cls}`, { title: 'n', body: 5 })).status, 201);
  });

  it('go with their class, which can be made again with the same index', async () => {
    const cls = unique('ClassGone');
    const definition = { fields: FIELDS, indexes: { byBody: { body: 'text' } } };
    assert.equal((await app.post(`/1/schemas/${cls}`, definition, MASTER)).status, 201);
    const object = await app.post(`/1/classes/${cls}`, { title: 't', body: 'short lived' });
    assert.equal(object.status, 201);
    assertError(await app.request('DELETE', `/1/schemas/${cls}`, { key: 'master' }), 400, 255, 'a class holding objects');
    assert.equal((await app.request('DELETE', `/1/classes/${cls}/${object.body.objectId}`)).status, 200);
    const deleted = await app.request('DELETE', `/1/schemas/${cls}`, { key: 'master' });
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(await db.objects(cls), []);

    assert.equal((await app.post(`/1/schemas/${cls}`, definition, MASTER)).status, 201);
    assert.deepEqual(await db.objects(cls), built(target, cls, 'byBody'));
    assert.equal((await app.post(`/1/classes/${cls}`, { title: 'u', body: 'born again' })).status, 201);
    assert.deepEqual(await search(cls, 'again'), ['u']);
  });
});
