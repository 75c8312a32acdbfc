import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import { as, assertError, newUserApp, signUp } from '../helpers/users.ts';

/**
 * Dot notation in write bodies (docs/api.md "Dot notation"): the Parse SDKs send
 * `set("stats.level", 5)` as `{"stats.level": 5}`, and operators the same way.
 */

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

eachBackend('dot notation in updates', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newApp(target);
  });

  async function create(cls: string, body: Record<string, unknown>): Promise<string> {
    const created = await app.post(`/1/classes/${cls}`, body);
    assert.equal(created.status, 201, created.text);
    return created.body.objectId;
  }

  /** The stored fields, without the three built-in ones. */
  async function fields(cls: string, id: string): Promise<Record<string, unknown>> {
    const fetched = await app.get(`/1/classes/${cls}/${id}`, { key: 'master' });
    assert.equal(fetched.status, 200, fetched.text);
    const { objectId: _id, createdAt: _c, updatedAt: _u, ...rest } = fetched.body;
    return rest;
  }

  async function fieldTypes(cls: string): Promise<Record<string, string>> {
    const schema = await app.get(`/1/schemas/${cls}`, { key: 'master' });
    assert.equal(schema.status, 200, schema.text);
    return Object.fromEntries(Object.entries(schema.body.fields as Record<string, { type: string }>).map(([name, field]) => [name, field.type]));
  }

  // Each row: the object before, the PUT body, the object after, and the operators' results in the answer.
  const scenarios: { name: string; start: Record<string, unknown>; body: Record<string, unknown>; after: Record<string, unknown>; results?: Record<string, unknown> }[] = [
    { name: 'set one key, others kept', start: { stats: { level: 1, xp: 10 } }, body: { 'stats.level': 5 }, after: { stats: { level: 5, xp: 10 } } },
    { name: 'set a new key', start: { stats: { xp: 10 } }, body: { 'stats.level': 5 }, after: { stats: { level: 5, xp: 10 } } },
    { name: 'set a nested object', start: { stats: { xp: 10 } }, body: { 'stats.gear': { sword: 'iron', slots: [1, 2] } }, after: { stats: { xp: 10, gear: { sword: 'iron', slots: [1, 2] } } } },
    { name: 'set a typed value', start: { stats: {} }, body: { 'stats.seen': { __type: 'Date', iso: '2026-01-02T03:04:05.678Z' } }, after: { stats: { seen: { __type: 'Date', iso: '2026-01-02T03:04:05.678Z' } } } },
    { name: 'set null', start: { stats: { level: 1 } }, body: { 'stats.level': null }, after: { stats: { level: null } } },
    { name: 'deep path', start: { stats: { a: { b: { c: 1, d: 2 } } } }, body: { 'stats.a.b.c': 9 }, after: { stats: { a: { b: { c: 9, d: 2 } } } } },
    { name: 'missing field: objects created', start: { other: 1 }, body: { 'stats.a.b': 1 }, after: { other: 1, stats: { a: { b: 1 } } } },
    { name: 'missing level: created', start: { stats: { x: 1 } }, body: { 'stats.a.b': 1 }, after: { stats: { x: 1, a: { b: 1 } } } },
    { name: 'null field: replaced by an object', start: { stats: null }, body: { 'stats.level': 2 }, after: { stats: { level: 2 } } },
    { name: 'Increment', start: { stats: { level: 4, xp: 1 } }, body: { 'stats.level': { __op: 'Increment', amount: 1 } }, after: { stats: { level: 5, xp: 1 } }, results: { stats: { level: 5 } } },
    { name: 'Increment of a missing key', start: { stats: {} }, body: { 'stats.level': { __op: 'Increment', amount: -3 } }, after: { stats: { level: -3 } }, results: { stats: { level: -3 } } },
    { name: 'Delete', start: { stats: { level: 4, xp: 1 } }, body: { 'stats.level': { __op: 'Delete' } }, after: { stats: { xp: 1 } } },
    { name: 'Delete of a missing path creates nothing', start: { other: 1 }, body: { 'stats.a.b': { __op: 'Delete' } }, after: { other: 1 } },
    { name: 'Add', start: { stats: { tags: ['a'] } }, body: { 'stats.tags': { __op: 'Add', objects: ['b', 'a'] } }, after: { stats: { tags: ['a', 'b', 'a'] } }, results: { stats: { tags: ['a', 'b', 'a'] } } },
    { name: 'AddUnique', start: { stats: { tags: ['a'] } }, body: { 'stats.tags': { __op: 'AddUnique', objects: ['a', 'b'] } }, after: { stats: { tags: ['a', 'b'] } }, results: { stats: { tags: ['a', 'b'] } } },
    { name: 'Remove', start: { stats: { tags: ['a', 'b', 'a'] } }, body: { 'stats.tags': { __op: 'Remove', objects: ['a'] } }, after: { stats: { tags: ['b'] } }, results: { stats: { tags: ['b'] } } },
    { name: 'two keys of one field', start: { stats: { a: 1, b: 1, c: 1 } }, body: { 'stats.a': 2, 'stats.b': { __op: 'Increment', amount: 5 } }, after: { stats: { a: 2, b: 6, c: 1 } }, results: { stats: { b: 6 } } },
    { name: 'two operators in one field, deep', start: { stats: { a: { n: 1 }, tags: [] } }, body: { 'stats.a.n': { __op: 'Increment', amount: 1 }, 'stats.tags': { __op: 'Add', objects: [1] }, 'stats.a.m': 5 }, after: { stats: { a: { n: 2, m: 5 }, tags: [1] } }, results: { stats: { a: { n: 2 }, tags: [1] } } },
    { name: 'beside a top-level field', start: { stats: { a: 1 }, n: 1 }, body: { 'stats.a': 2, n: { __op: 'Increment', amount: 1 } }, after: { stats: { a: 2 }, n: 2 }, results: { n: 2 } },
  ];

  for (const scenario of scenarios) {
    it(`PUT ${scenario.name}`, async () => {
      const cls = unique('Dots');
      const id = await create(cls, scenario.start);
      const response = await app.put(`/1/classes/${cls}/${id}`, scenario.body);
      assert.equal(response.status, 200, response.text);
      const { updatedAt, ...results } = response.body;
      assert.match(updatedAt, ISO);
      assert.deepEqual(results, scenario.results ?? {});
      assert.deepEqual(await fields(cls, id), scenario.after);
      assert.equal((await fieldTypes(cls)).stats, 'Object');
    });
  }

  it('refuses a bad part of a key with 105, writing nothing', async () => {
    const cls = unique('Dots');
    const id = await create(cls, { stats: { level: 1 } });
    for (const key of ['a..b', 'a.$b', 'a.b c', 'a.', '.a', 'stats.1st', 'stats.b-c', 'stats._private', 'stats.é']) {
      assertError(await app.put(`/1/classes/${cls}/${id}`, { [key]: 1 }), 400, 105, key);
      assertError(await app.post(`/1/classes/${cls}`, { [key]: 1 }), 400, 105, `create ${key}`);
    }
    assert.deepEqual(await fields(cls, id), { stats: { level: 1 } });
    assert.deepEqual(Object.keys(await fieldTypes(cls)).sort(), ['ACL', 'createdAt', 'objectId', 'stats', 'updatedAt']);
  });

  it('refuses the server fields and the ACL as the first part with 105', async () => {
    const cls = unique('Dots');
    const id = await create(cls, { stats: { level: 1 } });
    for (const key of ['objectId.x', 'createdAt.x', 'updatedAt.x', 'ACL.x', 'ACL.*']) {
      assertError(await app.put(`/1/classes/${cls}/${id}`, { [key]: 1 }), 400, 105, key);
      assertError(await app.put(`/1/classes/${cls}/${id}`, { [key]: 1 }, { key: 'master' }), 400, 105, `master ${key}`);
    }
    assert.deepEqual(await fields(cls, id), { stats: { level: 1 } });
  });

  it('refuses a key and a dotted key inside it in one body with 105', async () => {
    const cls = unique('Dots');
    const id = await create(cls, { stats: { a: { b: 1 } } });
    for (const body of [{ stats: { a: 2 }, 'stats.a': 3 }, { 'stats.a': 2, stats: { a: 3 } }, { 'stats.a': 1, 'stats.a.b': 2 }]) {
      assertError(await app.put(`/1/classes/${cls}/${id}`, body), 400, 105, JSON.stringify(body));
    }
    assert.deepEqual(await fields(cls, id), { stats: { a: { b: 1 } } });
  });

  it('answers 111 when the field is not an Object, or a value along the path is no object', async () => {
    const cls = unique('Dots');
    const id = await create(cls, { level: 3, tags: ['a'], name: 'x', when: { __type: 'Date', iso: '2026-01-01T00:00:00.000Z' }, stats: { n: 1, list: [1], at: { __type: 'Date', iso: '2026-01-01T00:00:00.000Z' }, s: 'text' } });
    const before_ = await fields(cls, id);
    for (const key of ['level.x', 'tags.x', 'name.x', 'when.iso']) {
      assertError(await app.put(`/1/classes/${cls}/${id}`, { [key]: 1 }), 400, 111, key);
    }
    for (const key of ['stats.n.x', 'stats.list.x', 'stats.at.iso', 'stats.s.x']) {
      assertError(await app.put(`/1/classes/${cls}/${id}`, { [key]: 1 }), 400, 111, key);
      assertError(await app.put(`/1/classes/${cls}/${id}`, { [key]: { __op: 'Increment', amount: 1 } }), 400, 111, `increment ${key}`);
    }
    // Operators check the value at the end of the path as they do a field.
    assertError(await app.put(`/1/classes/${cls}/${id}`, { 'stats.s': { __op: 'Increment', amount: 1 } }), 400, 111, 'increment of a string');
    assertError(await app.put(`/1/classes/${cls}/${id}`, { 'stats.n': { __op: 'Add', objects: [1] } }), 400, 111, 'add to a number');
    assert.deepEqual(await fields(cls, id), before_);
  });

  it('refuses relations and relation operators inside an object with 111', async () => {
    const cls = unique('Dots');
    const id = await create(cls, { stats: {} });
    const pointer = { __type: 'Pointer', className: cls, objectId: id };
    for (const value of [{ __type: 'Relation', className: cls }, { __op: 'AddRelation', objects: [pointer] }, { __op: 'RemoveRelation', objects: [pointer] }]) {
      assertError(await app.put(`/1/classes/${cls}/${id}`, { 'stats.rel': value }), 400, 111, JSON.stringify(value));
    }
    assert.deepEqual(await fields(cls, id), { stats: {} });
  });

  it('creates the field as an Object on a class that lacks it, and refuses it on a class that has another type', async () => {
    const cls = unique('Dots');
    const id = await create(cls, { n: 1 });
    assert.equal((await app.put(`/1/classes/${cls}/${id}`, { 'stats.level': 1 })).status, 200);
    assert.equal((await fieldTypes(cls)).stats, 'Object');
    assertError(await app.post(`/1/classes/${cls}`, { stats: 5 }), 400, 111, 'number into the Object field');
  });

  it('builds the nested objects on create', async () => {
    const cls = unique('Dots');
    const created = await app.post(`/1/classes/${cls}`, { 'stats.level': 1, 'stats.gear.sword': 'iron', 'stats.xp': { __op: 'Increment', amount: 7 }, name: 'hero' });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(Object.keys(created.body).sort(), ['createdAt', 'objectId', 'stats']);
    assert.deepEqual(created.body.stats, { xp: 7 });
    assert.deepEqual(await fields(cls, created.body.objectId), { name: 'hero', stats: { level: 1, gear: { sword: 'iron' }, xp: 7 } });
    assert.equal((await fieldTypes(cls)).stats, 'Object');
  });

  it('keeps 20 concurrent Increments on one key atomic', async () => {
    const cls = unique('Dots');
    const id = await create(cls, { stats: { level: 0, other: 'kept' } });
    const responses = await Promise.all(Array.from({ length: 20 }, () => app.put(`/1/classes/${cls}/${id}`, { 'stats.level': { __op: 'Increment', amount: 1 } })));
    for (const response of responses) assert.equal(response.status, 200, response.text);
    // Every answer saw a different count: no two increments read the same value.
    assert.deepEqual(responses.map((response) => response.body.stats.level).sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i + 1));
    assert.deepEqual(await fields(cls, id), { stats: { level: 20, other: 'kept' } });
  });

  it('keeps concurrent changes of different keys of one field', async () => {
    const cls = unique('Dots');
    const id = await create(cls, { stats: {} });
    const keys = Array.from({ length: 12 }, (_, i) => `k${i}`);
    const responses = await Promise.all(keys.map((key, i) => app.put(`/1/classes/${cls}/${id}`, { [`stats.${key}`]: i })));
    for (const response of responses) assert.equal(response.status, 200, response.text);
    assert.deepEqual(await fields(cls, id), { stats: Object.fromEntries(keys.map((key, i) => [key, i])) });
  });

  it('works in a batch and through the SDK body form', async () => {
    const cls = unique('Dots');
    const id = await create(cls, { stats: { level: 1 } });
    const batch = await app.post('/1/batch', { requests: [
      { method: 'PUT', path: `/1/classes/${cls}/${id}`, body: { 'stats.level': { __op: 'Increment', amount: 2 } } },
      { method: 'PUT', path: `/1/classes/${cls}/${id}`, body: { 'stats.a..b': 1 } },
    ] });
    assert.equal(batch.status, 200, batch.text);
    assert.deepEqual(batch.body[0].success.stats, { level: 3 });
    assert.equal(batch.body[1].error.code, 105);
    const sdk = await app.post(`/1/classes/${cls}/${id}`, { _method: 'PUT', 'stats.name': 'x' });
    assert.equal(sdk.status, 200, sdk.text);
    assert.deepEqual(await fields(cls, id), { stats: { level: 3, name: 'x' } });
  });
});

eachBackend('dot notation on built-in classes', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newUserApp(target);
  });

  it('changes one key of a user field, and refuses the fields users write by their own rules', async () => {
    const user = await signUp(app, { profile: { city: 'Oslo', visits: 1 } });
    for (const path of [`/1/users/${user.objectId}`, `/1/classes/_User/${user.objectId}`]) {
      const updated = await app.put(path, { 'profile.visits': { __op: 'Increment', amount: 1 } }, as(user.sessionToken));
      assert.equal(updated.status, 200, updated.text);
    }
    for (const key of ['authData.anonymous', 'authData.facebook.id', 'password.x', 'email.x', 'username.x', 'emailVerified.x']) {
      assertError(await app.put(`/1/users/${user.objectId}`, { [key]: 'x' }, as(user.sessionToken)), 400, 105, key);
      assertError(await app.put(`/1/classes/_User/${user.objectId}`, { [key]: 'x' }, { key: 'master' }), 400, 105, `master ${key}`);
      assertError(await app.post('/1/users', { username: unique('u'), password: 'pw', [key]: 'x' }), 400, 105, `sign-up ${key}`);
    }
    const stored = await app.get(`/1/users/${user.objectId}`, { key: 'master' });
    assert.deepEqual(stored.body.profile, { city: 'Oslo', visits: 3 });
    assert.equal(stored.body.authData, undefined);
    assert.equal(stored.body.password, undefined);
  });

  it('changes one key of an installation and of a role; their String and Relation fields answer 111', async () => {
    const installationId = crypto.randomUUID();
    const created = await app.post('/1/installations', { installationId, deviceType: 'ios', prefs: { sound: 'off', badge: true } });
    assert.equal(created.status, 201, created.text);
    const path = `/1/classes/_Installation/${created.body.objectId}`;
    assert.equal((await app.put(path, { 'prefs.sound': 'on' })).status, 200);
    for (const key of ['deviceType.x', 'installationId.x', 'channels.x']) assertError(await app.put(path, { [key]: 'x' }), 400, 111, key);
    const installation = await app.get(`/1/installations/${created.body.objectId}`, { key: 'master' });
    assert.deepEqual(installation.body.prefs, { sound: 'on', badge: true });
    assert.equal(installation.body.deviceType, 'ios');
    assert.equal(installation.body.installationId, installationId);

    const role = await app.post('/1/roles', { name: unique('role'), ACL: {}, meta: { level: 1 } }, { key: 'master' });
    assert.equal(role.status, 201, role.text);
    const rolePath = `/1/classes/_Role/${role.body.objectId}`;
    const bumped = await app.put(rolePath, { 'meta.level': { __op: 'Increment', amount: 2 } }, { key: 'master' });
    assert.equal(bumped.status, 200, bumped.text);
    assert.deepEqual(bumped.body.meta, { level: 3 });
    for (const key of ['name.x', 'users.x', 'roles.x']) assertError(await app.put(rolePath, { [key]: 'x' }, { key: 'master' }), 400, 111, key);
  });

  it('refuses dotted keys on sessions with 105', async () => {
    const user = await signUp(app);
    const me = await app.get('/1/sessions/me', as(user.sessionToken));
    for (const key of ['createdWith.action', 'note.x']) {
      assertError(await app.put(`/1/sessions/${me.body.objectId}`, { [key]: 'x' }, as(user.sessionToken)), 400, 105, key);
    }
  });
});
