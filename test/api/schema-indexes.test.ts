import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient, type Response } from '../helpers/client.ts';
import { isReaderIndex, openStorage, type Storage } from '../helpers/storage.ts';
import type { Target } from '../helpers/targets.ts';

/**
 * Indexes of the schema API (decisions.md: `{name: {field: 1 | -1}}`): checked, and built as real
 * database indexes that the queries of their fields can use, on both backends.
 */

const MASTER = { key: 'master' } as const;

function assertError(response: Response, status: number, code: number, label = ''): void {
  assert.equal(response.status, status, `${label}: status (body ${response.text})`);
  assert.deepEqual(Object.keys(response.body ?? {}).sort(), ['code', 'error'], `${label}: body ${response.text}`);
  assert.equal(response.body.code, code, `${label}: code (${response.body.error})`);
}

function pointer(className: string, objectId: string) {
  return { __type: 'Pointer', className, objectId };
}

/**
 * How the query compiler reads a field of each type (src/sql/<dialect>). An index serves a query
 * only if it is built on the very same expression, so the plans below use exactly these. On
 * PostgreSQL an indexed field is read from the column its index made (storage/sql-schema-store.ts).
 */
const READ_AS: Record<Target['backend'], Record<'String' | 'Number' | 'Date' | 'Pointer', (field: string) => string>> = {
  postgres: {
    String: (field) => `("f.${field}" COLLATE "C")`,
    Number: (field) => `"f.${field}"`,
    Date: (field) => `("f.${field}.iso" COLLATE "C")`,
    Pointer: (field) => `("f.${field}.objectId" COLLATE "C")`,
  },
  sqlite: {
    String: (field) => `json_extract("data", '$.${field}')`,
    Number: (field) => `json_extract("data", '$.${field}')`,
    Date: (field) => `json_extract("data", '$.${field}.iso')`,
    Pointer: (field) => `json_extract("data", '$.${field}.objectId')`,
  },
};

eachBackend('schema indexes', (target) => {
  let app: AppClient;
  let storage: Storage;

  before(async () => {
    app = await newApp(target);
    const marker = unique('Marker');
    assert.equal((await app.post(`/1/schemas/${marker}`, {}, MASTER)).status, 201);
    storage = await openStorage(target, marker);
  });

  after(async () => {
    await storage?.close();
  });

  async function schemaOf(className: string): Promise<Response> {
    return app.get(`/1/schemas/${className}`, MASTER);
  }

  /** Polls until `check` answers, for up to 20 s. */
  async function until(what: string, check: () => Promise<true | null>): Promise<void> {
    const deadline = Date.now() + 20_000;
    while ((await check()) === null) {
      assert.ok(Date.now() < deadline, `waited 20 s for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('indexes are real database indexes: created, listed and dropped with the schema', async () => {
    const cls = unique('Indexed');
    const created = await app.post(`/1/schemas/${cls}`, { fields: { title: { type: 'String' }, score: { type: 'Number' } }, indexes: { ixTitle: { title: 1 } } }, MASTER);
    assert.equal(created.status, 201);
    assert.deepEqual(created.body.indexes, { ixTitle: { title: 1 } });
    const title = await storage.indexesNamed(cls, 'ixTitle');
    assert.equal(title.length, 1);
    assert.match(title[0]![1], target.backend === 'postgres' ? /\("f\.title".*\) INCLUDE \(_rperm, _public\)$/ : /'\$\.title'/);
    // A reader index beside it (docs/architecture.md, "Reader indexes") once the class holds an
    // object anyone may not read: its write queues the job that makes it.
    const readers = async () => [...(await storage.indexes(cls)).keys()].filter(isReaderIndex).sort();
    assert.deepEqual(await readers(), []);
    const everyone = await app.post(`/1/classes/${cls}`, { title: 'a', ACL: { '*': { read: true }, someone: { write: true } } }, MASTER);
    assert.equal(everyone.status, 201, everyone.text);
    const owned = await app.post(`/1/classes/${cls}`, { title: 'b', ACL: { someone: { read: true } } }, MASTER);
    assert.equal(owned.status, 201, owned.text);
    await until('the reader index', async () => ((await readers()).length > 0 ? true : null));
    assert.deepEqual(await readers(), [`${cls}_rdr:ixTitle`]);

    const added = await app.put(`/1/schemas/${cls}`, { indexes: { ixScoreTitle: { score: -1, title: 1 }, ixCreated: { createdAt: -1 } } }, MASTER);
    assert.equal(added.status, 200);
    assert.deepEqual(added.body.indexes, { ixTitle: { title: 1 }, ixScoreTitle: { score: -1, title: 1 }, ixCreated: { createdAt: -1 } });
    const compound = await storage.indexesNamed(cls, 'ixScoreTitle');
    assert.equal(compound.length, 1);
    assert.match(compound[0]![1], /score.*DESC.*title/s);
    assert.equal((await storage.indexesNamed(cls, 'ixCreated')).length, 1);
    assert.deepEqual((await schemaOf(cls)).body.indexes, added.body.indexes);

    const removed = await app.put(`/1/schemas/${cls}`, { indexes: { ixTitle: { __op: 'Delete' } } }, MASTER);
    assert.equal(removed.status, 200);
    assert.deepEqual(removed.body.indexes, { ixScoreTitle: { score: -1, title: 1 }, ixCreated: { createdAt: -1 } });
    assert.deepEqual(await storage.indexesNamed(cls, 'ixTitle'), []);
    assert.deepEqual(await readers(), [`${cls}_rdr:ixScoreTitle`], 'the reader index went with its index');

    // An index goes with a field it covers.
    const fieldGone = await app.put(`/1/schemas/${cls}`, { fields: { score: { __op: 'Delete' } } }, MASTER);
    assert.equal(fieldGone.status, 200);
    assert.deepEqual(fieldGone.body.indexes, { ixCreated: { createdAt: -1 } });
    assert.deepEqual(await storage.indexesNamed(cls, 'ixScoreTitle'), []);
    assert.equal((await storage.indexesNamed(cls, 'ixCreated')).length, 1);
    assert.deepEqual(await readers(), [], 'createdAt is a column of its own, not a stored one');
  });

  it('an update that leaves an object anyone may not read brings the reader indexes, which clients never see', async () => {
    const cls = unique('Updated');
    const created = await app.post(`/1/schemas/${cls}`, { fields: { score: { type: 'Number' } }, indexes: { byScore: { score: 1 } } }, MASTER);
    assert.equal(created.status, 201, created.text);
    const object = await app.post(`/1/classes/${cls}`, { score: 1 }, MASTER);
    assert.equal(object.status, 201, object.text);
    const readers = async () => [...(await storage.indexes(cls)).keys()].filter(isReaderIndex);
    assert.deepEqual(await readers(), []);
    const hidden = await app.put(`/1/classes/${cls}/${object.body.objectId}`, { ACL: { someone: { read: true } } }, MASTER);
    assert.equal(hidden.status, 200, hidden.text);
    await until('the reader index', async () => ((await readers()).length > 0 ? true : null));
    assert.deepEqual(await readers(), [`${cls}_rdr:byScore`]);
    const schema = await schemaOf(cls);
    assert.deepEqual(Object.keys(schema.body).sort(), ['classLevelPermissions', 'className', 'fields', 'indexes']);
  });

  it('index definitions are checked: unknown field, bad direction, bad name → 400/102, and nothing is built', async () => {
    const cls = unique('IndexRules');
    const created = await app.post(`/1/schemas/${cls}`, { fields: { title: { type: 'String' }, pals: { type: 'Relation', targetClass: cls } } }, MASTER);
    assert.equal(created.status, 201);
    const indexesBefore = await storage.indexes(cls);
    const bad: [string, unknown][] = [
      ['not an object', ['title']],
      ['a field that does not exist', { ix1: { nope: 1 } }],
      ['a field named like an inherited method', { ix1: { toString: 1 } }],
      ['a key that is not a field name', { ix1: { 'title.sub': 1 } }],
      ['a Relation field', { ix1: { pals: 1 } }],
      ['direction 2', { ix1: { title: 2 } }],
      ['direction 0', { ix1: { title: 0 } }],
      ['direction "1"', { ix1: { title: '1' } }],
      ['direction "hashed"', { ix1: { title: 'hashed' } }],
      ['no keys', { ix1: {} }],
      ['keys not an object', { ix1: 'title' }],
      ['a name starting with a digit', { '1ix': { title: 1 } }],
      ['a name with a dash', { 'ix-1': { title: 1 } }],
      ['a name with a space', { 'ix 1': { title: 1 } }],
      ['an empty name', { '': { title: 1 } }],
      ['a name of 41 characters', { ['i'.repeat(41)]: { title: 1 } }],
    ];
    for (const [name, indexes] of bad) {
      assertError(await app.put(`/1/schemas/${cls}`, { indexes }, MASTER), 400, 102, `PUT ${name}`);
      assertError(await app.post(`/1/schemas/${unique('IndexRules')}`, { fields: { title: { type: 'String' } }, indexes }, MASTER), 400, 102, `POST ${name}`);
    }
    assert.deepEqual((await schemaOf(cls)).body, created.body);
    assert.deepEqual(await storage.indexes(cls), indexesBefore);
  });

  it('an index on a String, Number, Date or Pointer field serves the query the compiler writes for that field', async () => {
    const cls = unique('Planned');
    const created = await app.post(
      `/1/schemas/${cls}`,
      {
        fields: { title: { type: 'String' }, score: { type: 'Number' }, due: { type: 'Date' }, owner: { type: 'Pointer', targetClass: '_User' } },
        indexes: { ixTitle: { title: 1 }, ixScore: { score: -1 }, ixDue: { due: 1 }, ixOwner: { owner: 1 } },
      },
      MASTER,
    );
    assert.equal(created.status, 201);
    for (let i = 1; i <= 3; i++) {
      const body = { title: `t${i}`, score: i * 10, due: { __type: 'Date', iso: `2024-0${i}-01T00:00:00.000Z` }, owner: pointer('_User', `user${i}`) };
      assert.equal((await app.post(`/1/classes/${cls}`, body, MASTER)).status, 201);
    }
    const read = READ_AS[target.backend];
    const cases = [
      { index: 'ixTitle', sql: `${read.String('title')} = 't2'`, where: { title: 't2' }, titles: ['t2'] },
      { index: 'ixScore', sql: `${read.Number('score')} > 15`, where: { score: { $gt: 15 } }, titles: ['t2', 't3'] },
      { index: 'ixDue', sql: `${read.Date('due')} >= '2024-02-01T00:00:00.000Z'`, where: { due: { $gte: { __type: 'Date', iso: '2024-02-01T00:00:00.000Z' } } }, titles: ['t2', 't3'] },
      { index: 'ixOwner', sql: `${read.Pointer('owner')} = 'user3'`, where: { owner: pointer('_User', 'user3') }, titles: ['t3'] },
    ];
    for (const { index, sql, where, titles } of cases) {
      const [physical] = await storage.indexesNamed(cls, index);
      assert.ok(physical, `${index} exists`);
      const plan = await storage.plan(cls, sql);
      assert.ok(plan.includes(physical[0]), `${index}: the plan for ${sql} uses ${physical[0]}:\n${plan}`);
      if (target.backend === 'sqlite') assert.match(plan, /USING (COVERING )?INDEX/);
      const found = await app.get(`/1/classes/${cls}`, { query: { where, order: 'title' } });
      assert.deepEqual(found.body.results.map((object: { title: string }) => object.title), titles, index);
    }
  });

  it('an index on a GeoPoint field covers its latitude cell, longitude and latitude: the box every geo query starts with', async () => {
    const cls = unique('Placed');
    const created = await app.post(`/1/schemas/${cls}`, { fields: { name: { type: 'String' }, loc: { type: 'GeoPoint' } }, indexes: { ixLoc: { loc: 1 } } }, MASTER);
    assert.equal(created.status, 201);
    for (const [name, latitude] of [['north', 40], ['south', -40], ['equator', 1]] as const) {
      assert.equal((await app.post(`/1/classes/${cls}`, { name, loc: { __type: 'GeoPoint', latitude, longitude: 10 } }, MASTER)).status, 201);
    }
    const [physical] = await storage.indexesNamed(cls, 'ixLoc');
    assert.ok(physical, 'ixLoc exists');
    assert.match(physical[1], /floor\(.*latitude.*longitude.*latitude/);
    const [lat, lng] = target.backend === 'postgres' ? [`(("data"#>>'{loc,latitude}')::float8)`, `(("data"#>>'{loc,longitude}')::float8)`] : [`json_extract("data", '$.loc.latitude')`, `json_extract("data", '$.loc.longitude')`];
    const box = `floor(${lat} * 10) IN (0, 1, 2) AND ${lng} BETWEEN 9 AND 11 AND ${lat} BETWEEN 0 AND 0.25`;
    const plan = await storage.plan(cls, box);
    assert.ok(plan.includes(physical[0]), `the plan for ${box} uses ${physical[0]}:\n${plan}`);
    const near = await app.get(`/1/classes/${cls}`, { query: { where: { loc: { $nearSphere: { __type: 'GeoPoint', latitude: 1, longitude: 10 }, $maxDistanceInKilometers: 500 } } } });
    assert.deepEqual(near.body.results.map((object: { name: string }) => object.name), ['equator']);
  });

  it('index names of different classes never collide with each other or with built-in indexes', async () => {
    const base = unique('Clash');
    // "<class>_idx_<name>" style names would make these pairs the same index.
    assert.equal((await app.post(`/1/schemas/${base}_idx`, { fields: { v: { type: 'String' } } }, MASTER)).status, 201);
    assert.equal((await app.post(`/1/schemas/${base}_idx_b`, { fields: { v: { type: 'String' } }, indexes: { c: { v: 1 } } }, MASTER)).status, 201);
    const created = await app.post(`/1/schemas/${base}`, { fields: { w: { type: 'String' } }, indexes: { createdAt: { w: 1 }, b_idx_c: { w: -1 } } }, MASTER);
    assert.equal(created.status, 201);
    const schemaIndexesOn = async (className: string, field: RegExp) => [...(await storage.indexes(className))].filter(([name, definition]) => !isReaderIndex(name) && field.test(definition));
    const onBase = (await schemaIndexesOn(base, /\bw\b/)).map(([, definition]) => definition);
    assert.equal(onBase.length, 2, `both indexes of ${base} exist: ${onBase.join(' | ')}`);
    const onOther = await schemaIndexesOn(`${base}_idx_b`, /\bv\b/);
    assert.equal(onOther.length, 1);

    // Dropping one class's index leaves the other class's alone.
    assert.equal((await app.put(`/1/schemas/${base}`, { indexes: { b_idx_c: { __op: 'Delete' } } }, MASTER)).status, 200);
    assert.equal((await schemaIndexesOn(`${base}_idx_b`, /\bv\b/)).length, 1);
  });
});
