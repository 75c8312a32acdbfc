import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient, type Response } from '../helpers/client.ts';
import { openStorage, type Storage } from '../helpers/storage.ts';

/**
 * Spec 4.11 and decisions.md: the schema API, master key only. Indexes are tested in
 * schema-indexes.test.ts, class-level permissions in schema-permissions.test.ts.
 */

const MASTER = { key: 'master' } as const;

const DEFAULT_FIELDS = {
  objectId: { type: 'String' },
  createdAt: { type: 'Date' },
  updatedAt: { type: 'Date' },
  ACL: { type: 'ACL' },
};

/** decisions.md: a new class is public for every operation. */
const PUBLIC_CLP = {
  find: { '*': true },
  count: { '*': true },
  get: { '*': true },
  create: { '*': true },
  update: { '*': true },
  delete: { '*': true },
  addField: { '*': true },
  protectedFields: { '*': [] },
};

/** Parse's rule: once permissions are given, an operation they leave out is open to the master key only. */
const CLOSED_CLP = { find: {}, count: {}, get: {}, create: {}, update: {}, delete: {}, addField: {}, protectedFields: {} };

function assertError(response: Response, status: number, code: number, label = ''): void {
  assert.equal(response.status, status, `${label}: status (body ${response.text})`);
  assert.deepEqual(Object.keys(response.body ?? {}).sort(), ['code', 'error'], `${label}: body ${response.text}`);
  assert.equal(response.body.code, code, `${label}: code (${response.body.error})`);
  assert.equal(typeof response.body.error, 'string');
  assert.ok(response.body.error.length > 0);
}

function pointer(className: string, objectId: string) {
  return { __type: 'Pointer', className, objectId };
}

eachBackend('schemas', (target) => {
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

  it('answers 403/119 to every schema endpoint without the master key, and changes nothing', async () => {
    const cls = unique('Locked');
    assert.equal((await app.post(`/1/schemas/${cls}`, { fields: { a: { type: 'String' } } }, MASTER)).status, 201);
    const { body: object } = await app.post(`/1/classes/${cls}`, { a: 'kept' });
    const before = await schemaOf(cls);
    const never = unique('Never');
    const calls: [string, string, unknown?][] = [
      ['GET', '/1/schemas'],
      ['GET', `/1/schemas/${cls}`],
      ['GET', `/1/schemas/${never}`],
      ['POST', '/1/schemas', { className: never }],
      ['POST', `/1/schemas/${never}`, { fields: { b: { type: 'Number' } } }],
      ['PUT', `/1/schemas/${cls}`, { fields: { b: { type: 'Number' } } }],
      ['PUT', `/1/schemas/${cls}`, { fields: { a: { __op: 'Delete' } } }],
      ['DELETE', `/1/schemas/${cls}`],
    ];
    for (const key of ['rest', 'client', 'javascript', 'windows'] as const) {
      for (const [method, path, body] of calls) {
        assertError(await app.request(method, path, { key, body }), 403, 119, `${key} key: ${method} ${path}`);
      }
    }
    assert.deepEqual((await schemaOf(cls)).body, before.body);
    assertError(await schemaOf(never), 400, 103, 'the refused POSTs created nothing');
    assert.equal((await app.get(`/1/classes/${cls}/${object.objectId}`)).body.a, 'kept');
  });

  it('GET /1/schemas lists every class, the ones made by object writes too, with inferred types and the default fields', async () => {
    const fresh = await newApp(target);
    const written = unique('Written');
    const declared = unique('Declared');
    const friend = unique('Friend');
    const created = await fresh.post(`/1/classes/${written}`, {
      s: 'text',
      n: 1.5,
      b: false,
      d: { __type: 'Date', iso: '2024-01-02T03:04:05.000Z' },
      o: { nested: [1] },
      a: [1, 'two'],
      p: pointer(friend, 'abc123'),
      g: { __type: 'GeoPoint', latitude: 1, longitude: 2 },
      f: { __type: 'File', name: 'report.txt' },
      by: { __type: 'Bytes', base64: 'AAEC' },
      poly: { __type: 'Polygon', coordinates: [[0, 0], [0, 1], [1, 1]] },
      r: { __op: 'AddRelation', objects: [pointer(friend, 'abc123')] },
      z: null,
    });
    assert.equal(created.status, 201);
    assert.equal((await fresh.post(`/1/schemas/${declared}`, { fields: { title: { type: 'String' } } }, MASTER)).status, 201);

    const writtenSchema = {
      className: written,
      fields: {
        ...DEFAULT_FIELDS,
        s: { type: 'String' },
        n: { type: 'Number' },
        b: { type: 'Boolean' },
        d: { type: 'Date' },
        o: { type: 'Object' },
        a: { type: 'Array' },
        p: { type: 'Pointer', targetClass: friend },
        g: { type: 'GeoPoint' },
        f: { type: 'File' },
        by: { type: 'Bytes' },
        poly: { type: 'Polygon' },
        r: { type: 'Relation', targetClass: friend },
      },
      classLevelPermissions: PUBLIC_CLP,
      indexes: {},
    };
    const declaredSchema = { className: declared, fields: { ...DEFAULT_FIELDS, title: { type: 'String' } }, classLevelPermissions: PUBLIC_CLP, indexes: {} };

    const all = await fresh.get('/1/schemas', MASTER);
    assert.equal(all.status, 200);
    assert.deepEqual(Object.keys(all.body), ['results']);
    // Built-in classes (names starting with "_") may come with an app; this test made the others.
    const own = all.body.results.filter((schema: { className: string }) => !schema.className.startsWith('_'));
    own.sort((x: { className: string }, y: { className: string }) => (x.className < y.className ? -1 : 1));
    assert.deepEqual(own, [declaredSchema, writtenSchema].sort((x, y) => (x.className < y.className ? -1 : 1)));

    const one = await fresh.get(`/1/schemas/${written}`, MASTER);
    assert.equal(one.status, 200);
    assert.deepEqual(one.body, writtenSchema);
  });

  it('answers 400/103 for a class that does not exist or cannot exist', async () => {
    for (const name of [unique('Missing'), '_Hidden', '9Lives']) {
      assertError(await app.get(`/1/schemas/${name}`, MASTER), 400, 103, `GET ${name}`);
      assertError(await app.put(`/1/schemas/${name}`, { fields: { a: { type: 'String' } } }, MASTER), 400, 103, `PUT ${name}`);
    }
  });

  it('POST creates an empty class with the given fields, permissions and indexes: 201 and the schema', async () => {
    const cls = unique('Made');
    const fields = {
      title: { type: 'String', required: true, defaultValue: 'untitled' },
      score: { type: 'Number', defaultValue: 0 },
      done: { type: 'Boolean' },
      due: { type: 'Date' },
      meta: { type: 'Object' },
      tags: { type: 'Array' },
      owner: { type: 'Pointer', targetClass: '_User' },
      members: { type: 'Relation', targetClass: '_User' },
      photo: { type: 'File' },
      place: { type: 'GeoPoint' },
      area: { type: 'Polygon' },
      raw: { type: 'Bytes' },
    };
    const classLevelPermissions = {
      get: { '*': true },
      find: { 'role:Admins': true, requiresAuthentication: true },
      create: { abc123XYZ: true },
      update: { pointerFields: ['owner'] },
      readUserFields: ['owner'],
      protectedFields: { '*': ['score'], 'role:Admins': [] },
    };
    const indexes = { byScore: { score: -1 }, byTitleDue: { title: 1, due: -1 } };
    const created = await app.post(`/1/schemas/${cls}`, { className: cls, fields, classLevelPermissions, indexes }, MASTER);
    const expected = {
      className: cls,
      fields: { ...DEFAULT_FIELDS, ...fields },
      classLevelPermissions: { ...CLOSED_CLP, ...classLevelPermissions },
      indexes,
    };
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.get('location'), `${target.url}/1/schemas/${cls}`);
    assert.deepEqual(created.body, expected);
    assert.deepEqual((await schemaOf(cls)).body, expected);
    assert.deepEqual((await app.get(`/1/classes/${cls}`, MASTER)).body, { results: [] });
    assert.equal(await storage.tableExists(cls), true);
    assert.equal((await storage.indexesNamed(cls, 'byScore')).length, 1);
    assert.equal((await storage.indexesNamed(cls, 'byTitleDue')).length, 1);

    // POST /1/schemas takes the class name from the body.
    const bare = unique('Bare');
    const fromBody = await app.post('/1/schemas', { className: bare }, MASTER);
    assert.equal(fromBody.status, 201);
    assert.deepEqual(fromBody.body, { className: bare, fields: DEFAULT_FIELDS, classLevelPermissions: PUBLIC_CLP, indexes: {} });
    assert.equal(await storage.tableExists(bare), true);
  });

  it('POST refuses a class that exists, whether declared or made by an object write: 400/103', async () => {
    const declared = unique('Twice');
    assert.equal((await app.post(`/1/schemas/${declared}`, { fields: { a: { type: 'String' } } }, MASTER)).status, 201);
    const written = unique('Written');
    assert.equal((await app.post(`/1/classes/${written}`, { a: 1 })).status, 201);
    for (const cls of [declared, written]) {
      const before = await schemaOf(cls);
      assertError(await app.post(`/1/schemas/${cls}`, { fields: { b: { type: 'Number' } } }, MASTER), 400, 103, cls);
      assert.deepEqual((await schemaOf(cls)).body, before.body);
    }
    assert.equal((await app.get(`/1/classes/${written}`)).body.results.length, 1);
  });

  it('POST refuses bad class names, fields and types, and creates nothing', async () => {
    const geo = { type: 'GeoPoint' };
    const scenarios: { name: string; path?: string; body: unknown; status: number; code: number }[] = [
      { name: 'class name starting with "_"', path: '/1/schemas/_Secret', body: {}, status: 400, code: 103 },
      { name: 'class name starting with a digit', path: '/1/schemas/9Lives', body: {}, status: 400, code: 103 },
      { name: 'class name with a dash', path: '/1/schemas/My-Class', body: {}, status: 400, code: 103 },
      { name: 'className in the body differs from the URL', body: { className: 'SomethingElse' }, status: 400, code: 103 },
      { name: 'no class name at all', path: '/1/schemas', body: {}, status: 400, code: 135 },
      { name: 'className not a string', path: '/1/schemas', body: { className: 5 }, status: 400, code: 103 },
      { name: 'body not an object', body: ['a'], status: 400, code: 107 },
      { name: 'fields not an object', body: { fields: ['a'] }, status: 400, code: 107 },
      ...['1st', 'has space', 'a.b', '$set', '_hidden', 'dash-ed', 'é', 'x'.repeat(129)].map((field) => ({
        name: `field name ${JSON.stringify(field.slice(0, 20))}`,
        body: { fields: { [field]: { type: 'String' } } },
        status: 400,
        code: 105,
      })),
      { name: 'empty field name', body: { fields: { '': { type: 'String' } } }, status: 400, code: 105 },
      { name: 'unknown type', body: { fields: { a: { type: 'Strin' } } }, status: 400, code: 111 },
      { name: 'lower-case type', body: { fields: { a: { type: 'string' } } }, status: 400, code: 111 },
      { name: 'ACL type on another field', body: { fields: { a: { type: 'ACL' } } }, status: 400, code: 111 },
      { name: 'definition not an object', body: { fields: { a: 'String' } }, status: 400, code: 107 },
      { name: 'type not a string', body: { fields: { a: { type: 5 } } }, status: 400, code: 107 },
      { name: 'definition without a type', body: { fields: { a: {} } }, status: 400, code: 107 },
      { name: 'Pointer without targetClass', body: { fields: { a: { type: 'Pointer' } } }, status: 400, code: 135 },
      { name: 'Relation without targetClass', body: { fields: { a: { type: 'Relation' } } }, status: 400, code: 135 },
      { name: 'Pointer to an invalid class name', body: { fields: { a: { type: 'Pointer', targetClass: '9x' } } }, status: 400, code: 103 },
      { name: 'two GeoPoint fields', body: { fields: { here: geo, there: geo } }, status: 400, code: 111 },
      { name: '"required" not a boolean', body: { fields: { a: { type: 'String', required: 'yes' } } }, status: 400, code: 111 },
      { name: 'defaultValue of another type', body: { fields: { a: { type: 'Number', defaultValue: 'zero' } } }, status: 400, code: 111 },
      { name: 'defaultValue Date for a String', body: { fields: { a: { type: 'String', defaultValue: { __type: 'Date', iso: '2024-01-01T00:00:00.000Z' } } } }, status: 400, code: 111 },
      { name: 'defaultValue Pointer to another class', body: { fields: { a: { type: 'Pointer', targetClass: '_User', defaultValue: pointer('Other', 'x1') } } }, status: 400, code: 111 },
      ...['objectId', 'createdAt', 'updatedAt', 'ACL'].map((field) => ({
        name: `default field ${field}`,
        body: { fields: { [field]: { type: field === 'ACL' ? 'ACL' : 'String' } } },
        status: 400,
        code: 136,
      })),
    ];
    for (const scenario of scenarios) {
      const cls = unique('Refused');
      const response = await app.post(scenario.path ?? `/1/schemas/${cls}`, scenario.body, MASTER);
      assertError(response, scenario.status, scenario.code, scenario.name);
      assertError(await schemaOf(cls), 400, 103, `${scenario.name}: nothing created`);
      assert.equal(await storage.tableExists(cls), false, `${scenario.name}: no table`);
    }
  });

  it('PUT adds fields and answers 200 with the whole schema', async () => {
    const cls = unique('Grown');
    assert.equal((await app.post(`/1/classes/${cls}`, { name: 'first' })).status, 201);
    const classLevelPermissions = { find: { '*': true }, get: { '*': true } };
    assert.equal((await app.put(`/1/schemas/${cls}`, { classLevelPermissions, indexes: { byName: { name: 1 } } }, MASTER)).status, 200);
    const updated = await app.put(`/1/schemas/${cls}`, { className: cls, fields: { rank: { type: 'Number' }, boss: { type: 'Pointer', targetClass: cls } } }, MASTER);
    const expected = {
      className: cls,
      fields: { ...DEFAULT_FIELDS, name: { type: 'String' }, rank: { type: 'Number' }, boss: { type: 'Pointer', targetClass: cls } },
      classLevelPermissions: { ...CLOSED_CLP, ...classLevelPermissions },
      indexes: { byName: { name: 1 } },
    };
    assert.equal(updated.status, 200);
    assert.deepEqual(updated.body, expected);
    assert.deepEqual((await schemaOf(cls)).body, expected);
    assert.equal((await app.post(`/1/classes/${cls}`, { name: 'second', rank: 2, boss: pointer(cls, 'abc') }, MASTER)).status, 201);
  });

  it('schema changes bind object writes at once: a field fixed by the schema refuses another type with 111', async () => {
    const cls = unique('Typed');
    assert.equal((await app.post(`/1/schemas/${cls}`, { fields: { level: { type: 'Number' } } }, MASTER)).status, 201);
    assertError(await app.post(`/1/classes/${cls}`, { level: 'high' }), 400, 111, 'create with a String');
    const { body: object } = await app.post(`/1/classes/${cls}`, { level: 1 });
    assert.ok(object.objectId);

    assert.equal((await app.put(`/1/schemas/${cls}`, { fields: { mood: { type: 'String' } } }, MASTER)).status, 200);
    assertError(await app.put(`/1/classes/${cls}/${object.objectId}`, { mood: 3 }), 400, 111, 'update with a Number');
    assert.equal((await app.put(`/1/classes/${cls}/${object.objectId}`, { mood: 'calm' })).status, 200);

    assert.equal((await app.put(`/1/schemas/${cls}`, { fields: { level: { __op: 'Delete' } } }, MASTER)).status, 200);
    assert.equal((await app.post(`/1/classes/${cls}`, { level: 'high' })).status, 201);
    assert.deepEqual((await schemaOf(cls)).body.fields.level, { type: 'String' });
  });

  it('PUT deletes a field with its data; the field can then come back with another type', async () => {
    const cls = unique('Paint');
    const ids: string[] = [];
    for (const [size, color] of [[1, 'red'], [2, 'green'], [3, 'blue']] as const) {
      const created = await app.post(`/1/classes/${cls}`, { size, color });
      assert.equal(created.status, 201);
      ids.push(created.body.objectId);
    }
    const dropped = await app.put(`/1/schemas/${cls}`, { fields: { color: { __op: 'Delete' } } }, MASTER);
    assert.equal(dropped.status, 200);
    assert.deepEqual(dropped.body, { className: cls, fields: { ...DEFAULT_FIELDS, size: { type: 'Number' } }, classLevelPermissions: PUBLIC_CLP, indexes: {} });

    const listed = await app.get(`/1/classes/${cls}`, { query: { order: 'size' } });
    assert.deepEqual(
      listed.body.results.map((object: Record<string, unknown>) => Object.keys(object).sort()),
      ids.map(() => ['createdAt', 'objectId', 'size', 'updatedAt']),
    );

    assert.equal((await app.put(`/1/schemas/${cls}`, { fields: { color: { type: 'Number' } } }, MASTER)).status, 200);
    const fresh = await app.post(`/1/classes/${cls}`, { size: 4, color: 7 });
    assert.equal(fresh.status, 201);
    // Old values left in the documents would show up here once the field exists again.
    const withColor = await app.get(`/1/classes/${cls}`, { query: { where: { color: { $exists: true } } } });
    assert.deepEqual(withColor.body.results.map((object: { objectId: string }) => object.objectId), [fresh.body.objectId]);
    const old = await app.get(`/1/classes/${cls}/${ids[0]}`);
    assert.equal(old.status, 200);
    assert.equal('color' in old.body, false);
    assert.equal(old.body.size, 1);
  });

  it('PUT deleting a Relation field removes its join rows and nothing else', async () => {
    const friendClass = unique('Friend');
    const friends: string[] = [];
    for (const name of ['ann', 'bob']) friends.push((await app.post(`/1/classes/${friendClass}`, { name })).body.objectId);
    const cls = unique('Person');
    const owner = await app.post(`/1/classes/${cls}`, {
      friends: { __op: 'AddRelation', objects: friends.map((id) => pointer(friendClass, id)) },
      enemies: { __op: 'AddRelation', objects: [pointer(friendClass, friends[0]!)] },
    });
    assert.equal(owner.status, 201);
    assert.equal(await storage.joinRows(cls, 'friends'), 2);
    assert.equal(await storage.joinRows(cls, 'enemies'), 1);
    assert.deepEqual((await app.get(`/1/classes/${cls}/${owner.body.objectId}`)).body.friends, { __type: 'Relation', className: friendClass });

    const dropped = await app.put(`/1/schemas/${cls}`, { fields: { friends: { __op: 'Delete' } } }, MASTER);
    assert.equal(dropped.status, 200);
    assert.deepEqual(dropped.body.fields, { ...DEFAULT_FIELDS, enemies: { type: 'Relation', targetClass: friendClass } });
    assert.equal(await storage.joinRows(cls, 'friends'), 0);
    assert.equal(await storage.joinRows(cls, 'enemies'), 1);
    assert.equal('friends' in (await app.get(`/1/classes/${cls}/${owner.body.objectId}`)).body, false);

    assert.equal((await app.put(`/1/schemas/${cls}`, { fields: { friends: { type: 'Relation', targetClass: friendClass } } }, MASTER)).status, 200);
    assert.equal(await storage.joinRows(cls, 'friends'), 0);
  });

  it('fields named like inherited methods (toString, constructor) are ordinary fields', async () => {
    const cls = unique('Plain');
    const created = await app.post(`/1/schemas/${cls}`, { fields: { toString: { type: 'String' }, constructor: { type: 'Number' } }, indexes: { ixCtor: { constructor: 1 } } }, MASTER);
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.fields, { ...DEFAULT_FIELDS, toString: { type: 'String' }, constructor: { type: 'Number' } });
    assert.equal((await storage.indexesNamed(cls, 'ixCtor')).length, 1);
    const dropped = await app.put(`/1/schemas/${cls}`, { fields: { constructor: { __op: 'Delete' }, valueOf: { type: 'Boolean' } } }, MASTER);
    assert.equal(dropped.status, 200, dropped.text);
    assert.deepEqual(dropped.body.fields, { ...DEFAULT_FIELDS, toString: { type: 'String' }, valueOf: { type: 'Boolean' } });
    assert.deepEqual(dropped.body.indexes, {});
    assert.deepEqual(await storage.indexesNamed(cls, 'ixCtor'), []);
  });

  it('PUT refuses conflicting field changes and leaves the schema as it was', async () => {
    const cls = unique('Stable');
    const created = await app.post(`/1/schemas/${cls}`, { fields: { a: { type: 'String' }, spot: { type: 'GeoPoint' } }, indexes: { byA: { a: 1 } } }, MASTER);
    assert.equal(created.status, 201);
    const scenarios: { name: string; body: unknown; status: number; code: number }[] = [
      { name: 'adding an existing field', body: { fields: { a: { type: 'String' } } }, status: 400, code: 255 },
      { name: 'adding an existing field with another type', body: { fields: { a: { type: 'Number' } } }, status: 400, code: 255 },
      { name: 'deleting a missing field', body: { fields: { nothing: { __op: 'Delete' } } }, status: 400, code: 255 },
      { name: 'deleting a missing field named like an inherited method', body: { fields: { constructor: { __op: 'Delete' } } }, status: 400, code: 255 },
      ...['objectId', 'createdAt', 'updatedAt', 'ACL'].flatMap((field) => [
        { name: `adding default field ${field}`, body: { fields: { [field]: { type: 'String' } } }, status: 400, code: 136 },
        { name: `deleting default field ${field}`, body: { fields: { [field]: { __op: 'Delete' } } }, status: 400, code: 136 },
      ]),
      { name: 'className differs from the URL', body: { className: unique('Other'), fields: { b: { type: 'String' } } }, status: 400, code: 103 },
      { name: 'a good field beside a bad one', body: { fields: { good: { type: 'String' }, bad: { type: 'Nope' } } }, status: 400, code: 111 },
      { name: 'a second GeoPoint', body: { fields: { other: { type: 'GeoPoint' } } }, status: 400, code: 111 },
      { name: 'an index on a field deleted by the same request', body: { fields: { a: { __op: 'Delete' } }, indexes: { byA2: { a: 1 } } }, status: 400, code: 102 },
      { name: 'an index name that exists', body: { indexes: { byA: { spot: 1 } } }, status: 400, code: 102 },
      { name: 'an index name differing only in case from one that exists', body: { indexes: { bya: { spot: 1 } } }, status: 400, code: 102 },
      { name: 'deleting a missing index', body: { indexes: { byNothing: { __op: 'Delete' } } }, status: 400, code: 102 },
    ];
    for (const scenario of scenarios) {
      assertError(await app.put(`/1/schemas/${cls}`, scenario.body, MASTER), scenario.status, scenario.code, scenario.name);
      assert.deepEqual((await schemaOf(cls)).body, created.body, `${scenario.name}: schema unchanged`);
    }
    assert.equal((await storage.indexesNamed(cls, 'byA')).length, 1);
  });

  it('DELETE refuses a class that holds objects with 400/255 and drops nothing', async () => {
    const cls = unique('Full');
    const { body: object } = await app.post(`/1/classes/${cls}`, { a: 1 });
    const before = await schemaOf(cls);
    assertError(await app.delete(`/1/schemas/${cls}`, MASTER), 400, 255);
    assert.deepEqual((await schemaOf(cls)).body, before.body);
    assert.equal(await storage.tableExists(cls), true);
    assert.equal((await app.get(`/1/classes/${cls}/${object.objectId}`)).body.a, 1);
  });

  it('DELETE removes an empty class: 200 {}, gone from the list and from the database; it can be made again', async () => {
    const cls = unique('Gone');
    const { body: object } = await app.post(`/1/classes/${cls}`, { a: 'text' });
    assert.equal((await app.put(`/1/schemas/${cls}`, { indexes: { ixA: { a: 1 } } }, MASTER)).status, 200);
    assert.equal((await app.delete(`/1/classes/${cls}/${object.objectId}`)).status, 200);

    const deleted = await app.delete(`/1/schemas/${cls}`, MASTER);
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.body, {});
    const all = await app.get('/1/schemas', MASTER);
    assert.equal(all.body.results.some((schema: { className: string }) => schema.className === cls), false);
    assertError(await schemaOf(cls), 400, 103);
    assert.equal(await storage.tableExists(cls), false);
    assert.deepEqual(await storage.indexes(cls), new Map());
    assert.deepEqual((await app.get(`/1/classes/${cls}`)).body, { results: [] });

    // Made again by the schema API with another type for the same field, then by object writes.
    const again = await app.post(`/1/schemas/${cls}`, { fields: { a: { type: 'Number' } }, indexes: { ixA: { a: -1 } } }, MASTER);
    assert.equal(again.status, 201);
    assert.deepEqual(again.body, { className: cls, fields: { ...DEFAULT_FIELDS, a: { type: 'Number' } }, classLevelPermissions: PUBLIC_CLP, indexes: { ixA: { a: -1 } } });
    assert.equal((await storage.indexesNamed(cls, 'ixA')).length, 1);
    const written = await app.post(`/1/classes/${cls}`, { a: 5 });
    assert.equal(written.status, 201);
    assert.equal((await app.get(`/1/classes/${cls}/${written.body.objectId}`)).body.a, 5);
    assert.equal((await app.delete(`/1/classes/${cls}/${written.body.objectId}`)).status, 200);
    assert.equal((await app.delete(`/1/schemas/${cls}`, MASTER)).status, 200);
    assert.equal((await app.post(`/1/classes/${cls}`, { a: 'text again' })).status, 201);
    assert.deepEqual((await schemaOf(cls)).body.fields.a, { type: 'String' });
  });

  it('DELETE of a class that does not exist answers 200 {} (as Parse does); a bad name 400/103', async () => {
    const missing = await app.delete(`/1/schemas/${unique('Never')}`, MASTER);
    assert.equal(missing.status, 200);
    assert.deepEqual(missing.body, {});
    assertError(await app.delete('/1/schemas/_Nope', MASTER), 400, 103);
  });
});
