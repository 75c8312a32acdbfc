import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient, type RequestOptions, type Response } from '../helpers/client.ts';
import { as, assertError, signUp, type TestUser } from '../helpers/users.ts';

/**
 * The server keeps the parse of a query's text and the statements it compiles to
 * (rest/query-plans.ts). These tests send the very same query text again and again, from callers
 * with different permissions and around changes of ACLs, roles, class-level permissions and
 * schemas: every answer must be the one a fresh parse would give.
 */

const MASTER = { key: 'master' } as const;
const OPEN = { get: { '*': true }, find: { '*': true }, count: { '*': true }, create: { '*': true }, update: { '*': true }, delete: { '*': true }, addField: { '*': true } };

const names = (response: Response) => (response.body.results as { name: string }[]).map((r) => r.name).sort();

eachBackend('query plans kept between requests', (target) => {
  let app: AppClient;
  let alice: TestUser;
  let bob: TestUser;

  before(async () => {
    app = await newApp(target);
    [alice, bob] = await Promise.all([signUp(app), signUp(app)]);
  });

  async function defineClass(classLevelPermissions: Record<string, unknown> = OPEN): Promise<string> {
    const cls = unique('Kept');
    const response = await app.post(`/1/schemas/${cls}`, { fields: { name: { type: 'String' }, n: { type: 'Number' }, owner: { type: 'Pointer', targetClass: '_User' } }, classLevelPermissions }, MASTER);
    assert.equal(response.status, 201, response.text);
    return cls;
  }

  async function create(cls: string, body: Record<string, unknown>): Promise<string> {
    const response = await app.post(`/1/classes/${cls}`, body, MASTER);
    assert.equal(response.status, 201, response.text);
    return response.body.objectId;
  }

  /** The same text every time: `n ≥ 1`, ordered, with a count. */
  const query = (cls: string, options: RequestOptions = {}) => app.get(`/1/classes/${cls}`, { ...options, query: { where: { n: { $gte: 1 } }, order: '-n', limit: 10, count: 1 } });

  it('callers with different permissions never share an answer', async () => {
    const cls = await defineClass();
    await create(cls, { name: 'public', n: 1 });
    await create(cls, { name: 'alice', n: 2, ACL: { [alice.objectId]: { read: true } } });
    await create(cls, { name: 'bob', n: 3, ACL: { [bob.objectId]: { read: true } } });
    const sees: [RequestOptions, string[]][] = [
      [{}, ['public']],
      [as(alice.sessionToken), ['alice', 'public']],
      [as(bob.sessionToken), ['bob', 'public']],
      [MASTER, ['alice', 'bob', 'public']],
    ];
    for (let round = 0; round < 3; round++) {
      for (const [options, visible] of sees) {
        const found = await query(cls, options);
        assert.equal(found.status, 200, found.text);
        assert.deepEqual(names(found), visible);
        assert.equal(found.body.count, visible.length);
      }
    }
  });

  it('a changed ACL and a new role member are seen at once', async () => {
    const cls = await defineClass();
    const id = await create(cls, { name: 'secret', n: 1, ACL: {} });
    assert.deepEqual(names(await query(cls, as(alice.sessionToken))), []);
    assert.equal((await app.put(`/1/classes/${cls}/${id}`, { ACL: { [alice.objectId]: { read: true } } }, MASTER)).status, 200);
    assert.deepEqual(names(await query(cls, as(alice.sessionToken))), ['secret']);

    const role = unique('Readers');
    const made = await app.post('/1/roles', { name: role, ACL: {} }, MASTER);
    assert.equal(made.status, 201, made.text);
    assert.equal((await app.put(`/1/classes/${cls}/${id}`, { ACL: { [`role:${role}`]: { read: true } } }, MASTER)).status, 200);
    assert.deepEqual(names(await query(cls, as(bob.sessionToken))), []);
    const joined = await app.put(`/1/roles/${made.body.objectId}`, { users: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: '_User', objectId: bob.objectId }] } }, MASTER);
    assert.equal(joined.status, 200, joined.text);
    assert.deepEqual(names(await query(cls, as(bob.sessionToken))), ['secret']);
    assert.deepEqual(names(await query(cls, as(alice.sessionToken))), []);
  });

  it('changed class-level permissions are seen at once', async () => {
    const cls = await defineClass();
    await create(cls, { name: 'a', n: 1, owner: { __type: 'Pointer', className: '_User', objectId: alice.objectId } });
    await create(cls, { name: 'b', n: 2, owner: { __type: 'Pointer', className: '_User', objectId: bob.objectId } });
    assert.deepEqual(names(await query(cls, as(alice.sessionToken))), ['a', 'b']);

    const limited = await app.put(`/1/schemas/${cls}`, { classLevelPermissions: { ...OPEN, find: {}, count: {}, readUserFields: ['owner'] } }, MASTER);
    assert.equal(limited.status, 200, limited.text);
    assert.deepEqual(names(await query(cls, as(alice.sessionToken))), ['a']);
    assert.deepEqual(names(await query(cls, as(bob.sessionToken))), ['b']);
    assert.deepEqual(names(await query(cls)), [], 'anonymous: no user the fields could name');

    const closed = await app.put(`/1/schemas/${cls}`, { classLevelPermissions: { ...OPEN, find: {}, count: {} } }, MASTER);
    assert.equal(closed.status, 200, closed.text);
    assertError(await query(cls, as(alice.sessionToken)), 403, 119, 'alice, find closed');
    assert.deepEqual(names(await query(cls, MASTER)), ['a', 'b']);
  });

  it('an inner query is secured for each caller', async () => {
    const inner = await defineClass();
    const outer = await defineClass();
    await create(outer, { name: 'points at it', n: 1, owner: { __type: 'Pointer', className: '_User', objectId: alice.objectId } });
    await create(inner, { name: 'points at alice', n: 1, owner: { __type: 'Pointer', className: '_User', objectId: alice.objectId }, ACL: { [alice.objectId]: { read: true } } });
    const where = { owner: { $select: { query: { className: inner, where: { n: 1 } }, key: 'owner' } } };
    for (let round = 0; round < 2; round++) {
      assert.deepEqual(names(await app.get(`/1/classes/${outer}`, { ...as(alice.sessionToken), query: { where } })), ['points at it']);
      assert.deepEqual(names(await app.get(`/1/classes/${outer}`, { ...as(bob.sessionToken), query: { where } })), []);
      assert.deepEqual(names(await app.get(`/1/classes/${outer}`, { query: { where } })), []);
    }
  });

  it('a class made again under the same name is queried as it is now', async () => {
    const cls = await defineClass();
    const id = await create(cls, { name: 'old', n: 5 });
    assert.deepEqual(names(await query(cls)), ['old']);
    assert.equal((await app.delete(`/1/classes/${cls}/${id}`, MASTER)).status, 200);
    assert.equal((await app.request('DELETE', `/1/schemas/${cls}`, MASTER)).status, 200);
    // `n` is a String now: the same `n ≥ 1` compares text, and finds nothing.
    const again = await app.post(`/1/schemas/${cls}`, { fields: { name: { type: 'String' }, n: { type: 'String' } } }, MASTER);
    assert.equal(again.status, 201, again.text);
    await create(cls, { name: 'new', n: 'x' });
    const found = await query(cls);
    assert.equal(found.status, 200, found.text);
    assert.deepEqual(names(found), []);
    const byText = await app.get(`/1/classes/${cls}`, { query: { where: { n: { $gte: 'a' } }, order: '-n', limit: 10, count: 1 } });
    assert.deepEqual(names(byText), ['new']);
  });
});
