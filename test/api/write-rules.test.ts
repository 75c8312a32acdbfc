import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient, type Response } from '../helpers/client.ts';

/**
 * What a create or update may contain (spec 2.1, 2.2, 2.6, 7, 8 and decisions.md), and proof
 * that a refused write leaves the stored data exactly as it was.
 */

function assertError(response: Response, status: number, code: number, note?: string): void {
  const label = `${note ?? ''} ${response.text}`;
  assert.equal(response.status, status, label);
  assert.deepEqual(Object.keys(response.body).sort(), ['code', 'error'], label);
  assert.equal(response.body.code, code, label);
  assert.equal(typeof response.body.error, 'string');
}

eachBackend('write rules', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newApp(target);
  });

  async function create(cls: string, body: Record<string, unknown>, client = app): Promise<string> {
    const created = await client.post(`/1/classes/${cls}`, body);
    assert.equal(created.status, 201, created.text);
    return created.body.objectId;
  }

  async function count(cls: string, client = app): Promise<number> {
    const listed = await client.get(`/1/classes/${cls}`, { key: 'master', query: { count: 1, limit: 0 } });
    assert.equal(listed.status, 200, listed.text);
    return listed.body.count;
  }

  /** The class has no schema: a refused first write created nothing. */
  async function assertNoClass(cls: string, client = app): Promise<void> {
    assertError(await client.get(`/1/schemas/${cls}`, { key: 'master' }), 400, 103, cls);
  }

  async function schemaFields(cls: string): Promise<Record<string, unknown>> {
    const schema = await app.get(`/1/schemas/${cls}`, { key: 'master' });
    assert.equal(schema.status, 200, schema.text);
    return schema.body.fields;
  }

  async function read(cls: string, id: string): Promise<Record<string, unknown>> {
    const fetched = await app.get(`/1/classes/${cls}/${id}`, { key: 'master' });
    assert.equal(fetched.status, 200, fetched.text);
    return fetched.body;
  }

  it('refuses invalid key names with 105 on create and update, writing nothing', async () => {
    const bad = ['a b', '1abc', '$x', 'a..b', '.a', 'a.', 'a.b c', '_private', 'a-b', 'é', '', 'x'.repeat(129), '__type', '__op', 'tab\t'];
    const fresh = unique('Keys');
    for (const key of bad) assertError(await app.post(`/1/classes/${fresh}`, { ok: 1, [key]: 1 }), 400, 105, JSON.stringify(key));
    await assertNoClass(fresh);

    const cls = unique('Keys');
    const id = await create(cls, { ok: 1 });
    const before_ = await read(cls, id);
    for (const key of bad) assertError(await app.put(`/1/classes/${cls}/${id}`, { ok: 2, [key]: 1 }), 400, 105, JSON.stringify(key));
    assert.deepEqual(await read(cls, id), before_);
    assert.deepEqual(Object.keys(await schemaFields(cls)).sort(), ['ACL', 'createdAt', 'objectId', 'ok', 'updatedAt']);

    // The longest name allowed, and the characters that are allowed.
    const longest = 'k'.repeat(128);
    const okId = await create(cls, { [longest]: 1, A1_b2: 2, camelCase: 3 });
    const stored = await read(cls, okId);
    assert.equal(stored[longest], 1);
    assert.equal(stored.A1_b2, 2);
  });

  it('refuses objectId, createdAt and updatedAt in a body with 105', async () => {
    const cls = unique('Reserved');
    const id = await create(cls, { name: 'x' });
    const before_ = await read(cls, id);
    for (const [key, value] of [['objectId', 'abcdefghij'], ['createdAt', '2020-01-01T00:00:00.000Z'], ['updatedAt', { __type: 'Date', iso: '2020-01-01T00:00:00.000Z' }]] as const) {
      assertError(await app.post(`/1/classes/${cls}`, { name: 'y', [key]: value }), 400, 105, key);
      assertError(await app.put(`/1/classes/${cls}/${id}`, { name: 'y', [key]: value }), 400, 105, key);
      assertError(await app.put(`/1/classes/${cls}/${id}`, { [key]: value }, { key: 'master' }), 400, 105, key);
    }
    assert.deepEqual(await read(cls, id), before_);
    assert.equal(await count(cls), 1);
  });

  it('refuses invalid class names with 103, creating no class', async () => {
    const names = [
      '_Custom',
      '_SCHEMA',
      '_Join',
      '_MIGRATIONS',
      '1Class',
      'a-b',
      'a b',
      'a.b',
      'Ünïcode',
      'C'.repeat(61),
      "Robert');DROP TABLE x;--",
      'x"; DROP TABLE "y',
      'x OR 1=1',
      'sqlite_master',
      'sqlite_custom',
      'SQLITE_upper',
    ];
    for (const name of names) {
      const path = `/1/classes/${encodeURIComponent(name)}`;
      assertError(await app.post(path, { a: 1 }), 400, 103, name);
      assertError(await app.post(path, { a: 1 }, { key: 'master' }), 400, 103, name);
      assertError(await app.get(path), 400, 103, name);
      assertError(await app.put(`${path}/abc`, { a: 1 }), 400, 103, name);
    }
    const schemas = await app.get('/1/schemas', { key: 'master' });
    assert.deepEqual(schemas.body.results.filter((schema: { className: string }) => names.includes(schema.className)), []);
    // The longest name allowed works.
    const longest = `L${unique('').padEnd(59, 'x')}`;
    assert.equal(longest.length, 60);
    await create(longest, { a: 1 });
    assert.equal(await count(longest), 1);
  });

  it('refuses a class name that differs from an existing one only in letter case (103)', async () => {
    const cls = unique('Case');
    await create(cls, { who: 'original' });
    for (const twin of [cls.toLowerCase(), cls.toUpperCase()]) {
      assertError(await app.post(`/1/classes/${twin}`, { who: 'twin' }), 400, 103, twin);
      assertError(await app.post(`/1/schemas/${twin}`, {}, { key: 'master' }), 400, 103, twin);
      assert.deepEqual((await app.get(`/1/classes/${twin}`)).body, { results: [] });
    }
    const listed = await app.get(`/1/classes/${cls}`);
    assert.deepEqual(listed.body.results.map((object: { who: string }) => object.who), ['original']);
  });

  it('refuses "$" and "." in nested keys with 121, writing nothing', async () => {
    const cls = unique('Nested');
    const id = await create(cls, { o: { fine: 1 }, arr: [] });
    const before_ = await read(cls, id);
    const bodies = [
      { o: { 'a.b': 1 } },
      { o: { $gt: 1 } },
      { o: { x: { 'y$': 1 } } },
      { arr: [{ 'a.b': 1 }] },
      { arr: [[{ $: 1 }]] },
      { arr: [{ ok: { 'deep.er': true } }] },
    ];
    for (const body of bodies) {
      assertError(await app.post(`/1/classes/${cls}`, body), 400, 121, JSON.stringify(body));
      assertError(await app.put(`/1/classes/${cls}/${id}`, body), 400, 121, JSON.stringify(body));
    }
    assert.deepEqual(await read(cls, id), before_);
    assert.equal(await count(cls), 1);
  });

  it('refuses misused __type values: 111, or 106 for Pointers, writing nothing', async () => {
    const cls = unique('Typed');
    const id = await create(cls, { name: 'x' });
    const before_ = await read(cls, id);
    const cases: [unknown, number][] = [
      [{ __type: 'Foo' }, 111],
      [{ __type: 'Object', className: 'X', objectId: 'y' }, 111],
      [{ __type: 5 }, 111],
      [{ __type: null }, 111],
      [{ __type: 'date', iso: '2024-01-01T00:00:00.000Z' }, 111],
      [{ __type: 'Date' }, 111],
      [{ __type: 'Date', iso: 1704067200000 }, 111],
      [{ __type: 'Date', iso: 'yesterday' }, 111],
      [{ __type: 'Date', iso: '2024-01-01' }, 111],
      [{ __type: 'Date', iso: '2024-01-01 00:00:00Z' }, 111],
      [{ __type: 'Date', iso: '2024-02-30T00:00:00.000Z' }, 111],
      [{ __type: 'Date', iso: '2023-02-29T00:00:00.000Z' }, 111],
      [{ __type: 'Date', iso: '2024-13-01T00:00:00.000Z' }, 111],
      [{ __type: 'Date', iso: '2024-00-10T00:00:00.000Z' }, 111],
      [{ __type: 'Date', iso: '2024-01-01T24:00:00.000Z' }, 111],
      [{ __type: 'Date', iso: '2024-01-01T23:60:00.000Z' }, 111],
      [{ __type: 'Date', iso: '2024-01-01T23:59:60.000Z' }, 111],
      [{ __type: 'Date', iso: '2024-01-01T00:00:00+24:00' }, 111],
      [{ __type: 'Date', iso: '9999-12-31T23:00:00-02:00' }, 111],
      [{ __type: 'Pointer', className: 'Other' }, 106],
      [{ __type: 'Pointer', objectId: 'abc' }, 106],
      [{ __type: 'Pointer', className: 'Other', objectId: 5 }, 106],
      [{ __type: 'Pointer', className: 'Other', objectId: '' }, 106],
      [{ __type: 'Pointer', className: '1bad', objectId: 'abc' }, 106],
      [{ __type: 'Pointer', className: '_Custom', objectId: 'abc' }, 106],
      [{ __type: 'Bytes' }, 111],
      [{ __type: 'Bytes', base64: 5 }, 111],
      [{ __type: 'Bytes', base64: 'not base64!' }, 111],
      [{ __type: 'Bytes', base64: 'abc' }, 111],
      [{ __type: 'Bytes', base64: 'YW Jj' }, 111],
      [{ __type: 'File' }, 111],
      [{ __type: 'File', name: '' }, 111],
      [{ __type: 'File', name: 7 }, 111],
      [{ __type: 'GeoPoint', latitude: '1', longitude: 2 }, 111],
      [{ __type: 'GeoPoint', latitude: 1 }, 111],
      [{ __type: 'Relation' }, 111],
      [{ __type: 'Relation', className: 'bad-name' }, 111],
      [[{ __type: 'Relation', className: 'Other' }], 111],
      [{ inner: { __type: 'Relation', className: 'Other' } }, 111],
      [[{ __type: 'Date', iso: 'nope' }], 111],
      [{ inner: { __type: 'Pointer', className: 'Other' } }, 106],
    ];
    for (const [value, code] of cases) {
      const note = JSON.stringify(value);
      assertError(await app.post(`/1/classes/${cls}`, { field: value }), 400, code, note);
      assertError(await app.put(`/1/classes/${cls}/${id}`, { name: 'changed', field: value }), 400, code, note);
    }
    assert.deepEqual(await read(cls, id), before_);
    assert.equal(await count(cls), 1);
    assert.equal((await schemaFields(cls)).field, undefined);
  });

  it('fixes a field type on first write: another type later fails with 111 on create and update', async () => {
    const cls = unique('Typed');
    const other = unique('Other');
    const id = await create(cls, {
      score: 1,
      flag: true,
      name: 's',
      when: { __type: 'Date', iso: '2024-01-01T00:00:00.000Z' },
      list: [1],
      meta: { a: 1 },
      ref: { __type: 'Pointer', className: other, objectId: 'o1' },
      doc: { __type: 'File', name: 'f.txt' },
    });
    const before_ = await read(cls, id);
    const conflicts: Record<string, unknown>[] = [
      { score: 'one' },
      { score: true },
      { score: [1] },
      { flag: 0 },
      { name: { __type: 'Date', iso: '2024-01-01T00:00:00.000Z' } },
      { when: '2024-01-01T00:00:00.000Z' },
      { list: { a: 1 } },
      { meta: [1] },
      { ref: { __type: 'Pointer', className: unique('Else'), objectId: 'o1' } },
      { ref: 'o1' },
      { doc: { __type: 'Pointer', className: other, objectId: 'o1' } },
      { score: { __op: 'Add', objects: [1] } },
      { list: { __op: 'Increment', amount: 1 } },
    ];
    for (const body of conflicts) {
      // A new field beside the conflict must not be written either.
      const withNew = { ...body, brandNew: 'x' };
      assertError(await app.post(`/1/classes/${cls}`, withNew), 400, 111, JSON.stringify(body));
      assertError(await app.put(`/1/classes/${cls}/${id}`, withNew), 400, 111, JSON.stringify(body));
    }
    assert.deepEqual(await read(cls, id), before_);
    assert.equal(await count(cls), 1);
    assert.equal((await schemaFields(cls)).brandNew, undefined);
    // null and Delete fit any type.
    const updated = await app.put(`/1/classes/${cls}/${id}`, { score: null, flag: { __op: 'Delete' } });
    assert.equal(updated.status, 200, updated.text);
    const after = await read(cls, id);
    assert.equal(after.score, null);
    assert.equal('flag' in after, false);
  });

  it('first writes racing with two types on a new class: one type wins and no object holds the other', async () => {
    const cls = unique('Race');
    const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => app.post(`/1/classes/${cls}`, { v: i % 2 === 0 ? i : `s${i}` })));
    const created = responses.filter((response) => response.status === 201);
    for (const response of responses) if (response.status !== 201) assertError(response, 400, 111);
    const type = (await schemaFields(cls)).v as { type: string };
    assert.ok(type.type === 'Number' || type.type === 'String', JSON.stringify(type));
    const listed = await app.get(`/1/classes/${cls}`, { key: 'master', query: { limit: 100 } });
    assert.equal(listed.body.results.length, created.length);
    // Every writer of the winning type succeeds, every writer of the other fails.
    assert.equal(created.length, 15);
    for (const object of listed.body.results) assert.equal(typeof object.v, type.type === 'Number' ? 'number' : 'string');
  });

  it('a new class is created exactly once under 30 concurrent first writes', async () => {
    const cls = unique('Burst');
    const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => app.post(`/1/classes/${cls}`, { n: i, [`f${i % 3}`]: 'x' })));
    for (const response of responses) assert.equal(response.status, 201, response.text);
    assert.equal(await count(cls), 30);
    const fields = await schemaFields(cls);
    for (const name of ['n', 'f0', 'f1', 'f2']) assert.ok(fields[name], name);
  });

  it('clientClassCreationEnabled: false stops REST and client keys creating classes, not the master key', async () => {
    const locked = await newApp(target, { clientClassCreationEnabled: false });
    const cls = unique('Locked');
    for (const key of ['rest', 'client'] as const) {
      assertError(await locked.post(`/1/classes/${cls}`, { a: 1 }, { key }), 403, 119, key);
    }
    await assertNoClass(cls, locked);
    assert.deepEqual((await locked.get(`/1/classes/${cls}`, { key: 'master' })).body, { results: [] });

    const first = await locked.post(`/1/classes/${cls}`, { a: 1 }, { key: 'master' });
    assert.equal(first.status, 201, first.text);
    // The class exists now: REST and client keys may add objects, and new fields to them.
    for (const key of ['rest', 'client'] as const) {
      const added = await locked.post(`/1/classes/${cls}`, { a: 2, [`${key}Field`]: 'x' }, { key });
      assert.equal(added.status, 201, added.text);
      const updated = await locked.put(`/1/classes/${cls}/${added.body.objectId}`, { a: 3 }, { key });
      assert.equal(updated.status, 200, updated.text);
    }
    assert.equal(await count(cls, locked), 3);
    // A batch is held to the same rule.
    const other = unique('Locked');
    const batch = await locked.post('/1/batch', { requests: [{ method: 'POST', path: `/1/classes/${other}`, body: { a: 1 } }] });
    assert.equal(batch.status, 200, batch.text);
    assert.equal(batch.body[0].error.code, 119);
    await assertNoClass(other, locked);
  });

  it('round-trips an ACL of public, user and role entries and enforces it', async () => {
    const cls = unique('Secured');
    const acl = { '*': { read: true }, user123: { write: true }, 'role:Admins': { read: true } };
    const id = await create(cls, { name: 'x', ACL: acl });
    const fetched = await app.get(`/1/classes/${cls}/${id}`);
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.body.ACL, acl);
    assert.deepEqual(Object.keys(fetched.body).sort(), ['ACL', 'createdAt', 'name', 'objectId', 'updatedAt']);
    assert.deepEqual((await schemaFields(cls)).ACL, { type: 'ACL' });

    // No public write: the REST key cannot change or delete it; the master key can.
    assertError(await app.put(`/1/classes/${cls}/${id}`, { name: 'y' }), 404, 101);
    assertError(await app.delete(`/1/classes/${cls}/${id}`), 404, 101);
    assert.equal((await app.put(`/1/classes/${cls}/${id}`, { name: 'm' }, { key: 'master' })).status, 200);
    const afterMaster = await read(cls, id);
    assert.equal(afterMaster.name, 'm');
    assert.deepEqual(afterMaster.ACL, acl);

    // false entries are dropped; an entry with nothing granted disappears.
    const trimmed = await create(cls, { ACL: { '*': { read: true, write: false }, u9: { read: false } } });
    assert.deepEqual((await read(cls, trimmed)).ACL, { '*': { read: true } });
    // ACL: null makes the object public again.
    assert.equal((await app.put(`/1/classes/${cls}/${id}`, { ACL: null }, { key: 'master' })).status, 200);
    assert.equal('ACL' in (await read(cls, id)), false);
    assert.equal((await app.put(`/1/classes/${cls}/${id}`, { name: 'public again' })).status, 200);
  });

  it('hides an object without public read from the REST key', async () => {
    const cls = unique('Secured');
    const id = await create(cls, { ACL: { user123: { read: true, write: true } }, name: 'x' });
    assertError(await app.get(`/1/classes/${cls}/${id}`), 404, 101);
    assert.deepEqual((await app.get(`/1/classes/${cls}`)).body, { results: [] });
    assert.deepEqual((await read(cls, id)).ACL, { user123: { read: true, write: true } });
  });

  it('refuses invalid ACL shapes with 123, writing nothing', async () => {
    const cls = unique('Secured');
    const acl = { '*': { read: true, write: true } };
    const id = await create(cls, { name: 'x', ACL: acl });
    const before_ = await read(cls, id);
    const bad: unknown[] = [
      [],
      [{ '*': { read: true } }],
      'public',
      5,
      true,
      { '*': true },
      { '*': null },
      { '*': [] },
      { '*': 'read' },
      { '*': { read: 'yes' } },
      { '*': { read: 1 } },
      { '*': { admin: true } },
      { '*': { read: true, delete: true } },
      { 'bad key!': { read: true } },
      { 'role:': { read: true } },
      { 'role:bad!name': { read: true } },
      { '': { read: true } },
      { ['u'.repeat(65)]: { read: true } },
    ];
    for (const value of bad) {
      assertError(await app.post(`/1/classes/${cls}`, { name: 'y', ACL: value }), 400, 123, JSON.stringify(value));
      assertError(await app.put(`/1/classes/${cls}/${id}`, { name: 'y', ACL: value }), 400, 123, JSON.stringify(value));
    }
    assert.deepEqual(await read(cls, id), before_);
    assert.equal(await count(cls), 1);
  });

  it('keeps unspecified keys and the ACL when an update does not name them', async () => {
    const cls = unique('Keep');
    const acl = { '*': { read: true, write: true }, user1: { read: true } };
    const body = {
      n: 1,
      s: 'text',
      b: true,
      at: { __type: 'Date', iso: '2024-05-05T05:05:05.005Z' },
      arr: [1, { x: 2 }],
      obj: { deep: { er: [true] } },
      geo: { __type: 'GeoPoint', latitude: 1.5, longitude: 2.5 },
      nil: null,
      ACL: acl,
    };
    const id = await create(cls, body);
    const before_ = await read(cls, id);
    const updated = await app.put(`/1/classes/${cls}/${id}`, { s: 'changed' });
    assert.equal(updated.status, 200, updated.text);
    const after = await read(cls, id);
    const expected: Record<string, unknown> = { ...before_, s: 'changed', updatedAt: updated.body.updatedAt };
    assert.deepEqual(after, expected);
    assert.deepEqual(after.ACL, acl);
    assert.ok((after.updatedAt as string) >= (before_.updatedAt as string));
    // An empty update changes only updatedAt.
    const empty = await app.put(`/1/classes/${cls}/${id}`, {});
    assert.equal(empty.status, 200, empty.text);
    assert.deepEqual(await read(cls, id), { ...after, updatedAt: empty.body.updatedAt });
  });

  it('refuses a body that is not a JSON object with 107', async () => {
    const cls = unique('Body');
    const id = await create(cls, { a: 1 });
    const before_ = await read(cls, id);
    const fresh = unique('Body');
    for (const raw of ['[]', '[{"a": 1}]', '"abc"', '42', 'true', '{"a": 1', '{a: 1}', "{'a': 1}"]) {
      const headers = { 'Content-Type': 'application/json' };
      assertError(await app.request('POST', `/1/classes/${fresh}`, { raw, headers }), 400, 107, raw);
      assertError(await app.request('POST', `/1/classes/${cls}`, { raw, headers }), 400, 107, raw);
      assertError(await app.request('PUT', `/1/classes/${cls}/${id}`, { raw, headers }), 400, 107, raw);
    }
    await assertNoClass(fresh);
    assert.deepEqual(await read(cls, id), before_);
    assert.equal(await count(cls), 1);
  });

  it('refuses an object over 128 KB encoded with 413/116, writing nothing', async () => {
    const cls = unique('Big');
    const fresh = unique('Big');
    assertError(await app.post(`/1/classes/${fresh}`, { big: 'x'.repeat(131_072) }), 413, 116);
    await assertNoClass(fresh);
    // The limit counts bytes: 70,000 two-byte characters are 140,000 bytes.
    assertError(await app.post(`/1/classes/${cls}`, { big: 'é'.repeat(70_000) }), 413, 116);
    const nearLimit = await app.post(`/1/classes/${cls}`, { big: 'x'.repeat(131_072 - 100) });
    assert.equal(nearLimit.status, 201, nearLimit.text);
    assert.equal(((await read(cls, nearLimit.body.objectId)).big as string).length, 131_072 - 100);

    // Two halves under the limit each, over it together.
    const id = await create(cls, { a: 'a'.repeat(70_000) });
    const before_ = await read(cls, id);
    assertError(await app.put(`/1/classes/${cls}/${id}`, { b: 'b'.repeat(70_000) }), 413, 116);
    assertError(await app.put(`/1/classes/${cls}/${id}`, { a: { __op: 'Add', objects: ['x'] } }), 400, 111);
    assert.deepEqual(await read(cls, id), before_);

    // A body past the request limit (1 MB) is refused before it is parsed.
    assertError(await app.post(`/1/classes/${cls}`, { huge: 'x'.repeat(1_100_000) }), 413, 116);
    assert.equal(await count(cls), 2);
  });

  it('refuses writes to built-in classes through /1/classes with 403/119', async () => {
    // _User, _Session, _Role and _Installation are served at /1/classes/<class> as at their own
    // endpoints (test/api/users-class-paths.test.ts, sessions-class-paths.test.ts, roles.test.ts,
    // installations.test.ts). The server's other records are read-only there, for the master key only.
    for (const cls of ['_PushStatus', '_JobStatus', '_JobSchedule', '_Audience']) {
      for (const key of ['rest', 'master'] as const) {
        assertError(await app.post(`/1/classes/${cls}`, { name: 'n' }, { key }), 403, 119, `${cls} ${key}`);
        assertError(await app.put(`/1/classes/${cls}/abcdefghij`, { name: 'n' }, { key }), 403, 119, `${cls} ${key}`);
        assertError(await app.delete(`/1/classes/${cls}/abcdefghij`, { key }), 403, 119, `${cls} ${key}`);
        assertError(await app.post(`/1/classes/${cls}/abcdefghij`, { _method: 'PUT', name: 'n' }, { key }), 403, 119, `${cls} ${key} _method`);
      }
      assertError(await app.get(`/1/classes/${cls}`), 403, 119, `${cls} read`);
      assertError(await app.get(`/1/classes/${cls}/abcdefghij`), 403, 119, `${cls} read one`);
      const listed = await app.get(`/1/classes/${cls}`, { key: 'master' });
      assert.equal(listed.status, 200, listed.text);
      assertError(await app.get(`/1/classes/${cls}/abcdefghij`, { key: 'master' }), 404, 101, `${cls} master read one`);
    }
    // Other names starting with "_" are no class at all.
    for (const cls of ['_Users', '_user', '_session', '_Join', '_SCHEMA']) assertError(await app.post(`/1/classes/${cls}`, { a: 1 }, { key: 'master' }), 400, 103, cls);
  });

  it('adds no field to the class when the update it comes with finds no object', async () => {
    const cls = unique('Ghost');
    assert.equal((await app.post(`/1/classes/${cls}`, { a: 1 })).status, 201);
    assertError(await app.put(`/1/classes/${cls}/missing123`, { ghost: 'x', spot: { __type: 'GeoPoint', latitude: 1, longitude: 2 } }), 404, 101);
    const schema = await app.get(`/1/schemas/${cls}`, { key: 'master' });
    assert.equal(schema.status, 200);
    assert.deepEqual(Object.keys(schema.body.fields).sort(), ['ACL', 'a', 'createdAt', 'objectId', 'updatedAt']);
  });
});
