import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { eachBackend } from '../helpers/each-backend.ts';
import { AppClient, newApp, unique, type Response } from '../helpers/client.ts';
import { start, stop, tempDatabase, tempDir } from '../helpers/process.ts';
import { TIMESTAMP, as, assertError, restrictedSession, signUp, type TestUser } from '../helpers/users.ts';

/** Spec 2.5 and 4.4: roles, their relations, who may change them, and what they grant. */

const MASTER = { key: 'master' } as const;
const RW = { read: true, write: true };

const userPointer = (objectId: string) => ({ __type: 'Pointer', className: '_User', objectId });
const rolePointer = (objectId: string) => ({ __type: 'Pointer', className: '_Role', objectId });
const addUsers = (...ids: string[]) => ({ __op: 'AddRelation', objects: ids.map(userPointer) });
const addRoles = (...ids: string[]) => ({ __op: 'AddRelation', objects: ids.map(rolePointer) });

eachBackend('roles', (target) => {
  let app: AppClient;
  let alice: TestUser;
  let bob: TestUser;

  before(async () => {
    app = await newApp(target, { rateLimits: { authRequestsPerMinute: 0 } });
    [alice, bob] = await Promise.all([signUp(app), signUp(app)]);
  });

  async function createRole(body: Record<string, unknown>, options: Parameters<AppClient['post']>[2] = MASTER): Promise<string> {
    const response = await app.post('/1/roles', body, options);
    assert.equal(response.status, 201, response.text);
    return response.body.objectId;
  }

  /** Ids of the members of a role's relation, found with $relatedTo (spec 2.5), as the master key sees them. */
  async function members(roleId: string, key: 'users' | 'roles'): Promise<string[]> {
    const path = key === 'users' ? '/1/users' : '/1/roles';
    const response = await app.get(path, { ...MASTER, query: { where: { $relatedTo: { object: rolePointer(roleId), key } } } });
    assert.equal(response.status, 200, response.text);
    return response.body.results.map((object: { objectId: string }) => object.objectId).sort();
  }

  /** An object readable and writable only by the role's members, and whether a user can read it. */
  async function guardedBy(roleName: string): Promise<(user: TestUser) => Promise<number>> {
    const cls = unique('Guarded');
    const created = await app.post(`/1/classes/${cls}`, { ACL: { [`role:${roleName}`]: RW } }, MASTER);
    assert.equal(created.status, 201, created.text);
    return async (user) => (await app.get(`/1/classes/${cls}/${created.body.objectId}`, as(user.sessionToken))).status;
  }

  it('creates a role with 201, Location and exactly {objectId, createdAt}; reads it without its relations', async () => {
    const name = unique('Moderators');
    const child = await createRole({ name: unique('Child'), ACL: {} });
    const response = await app.post('/1/roles', { name, ACL: { '*': { read: true } }, users: addUsers(alice.objectId), roles: addRoles(child) }, MASTER);
    assert.equal(response.status, 201, response.text);
    assert.deepEqual(Object.keys(response.body).sort(), ['createdAt', 'objectId']);
    const { objectId, createdAt } = response.body;
    assert.match(createdAt, TIMESTAMP);
    assert.equal(response.headers.get('location'), `${target.url}/1/roles/${objectId}`);

    const expected = { name, ACL: { '*': { read: true } }, objectId, createdAt, updatedAt: createdAt };
    for (const options of [MASTER, {}, as(bob.sessionToken)]) {
      const read = await app.get(`/1/roles/${objectId}`, options);
      assert.equal(read.status, 200, read.text);
      assert.deepEqual(read.body, expected);
    }
    // Asking for the relations by name does not show them either.
    assert.deepEqual((await app.get(`/1/roles/${objectId}`, { query: { keys: 'users,roles,name' } })).body, expected);
    const listed = await app.get('/1/roles', { query: { where: { name } } });
    assert.deepEqual(listed.body, { results: [expected] });

    assert.deepEqual(await members(objectId, 'users'), [alice.objectId]);
    assert.deepEqual(await members(objectId, 'roles'), [child]);
    // A client finds the roles a user has the way the SDKs ask (a Relation queried like an array).
    const mine = await app.get('/1/roles', { ...as(alice.sessionToken), query: { where: { users: userPointer(alice.objectId) } } });
    assert.deepEqual(mine.body.results.map((role: { objectId: string }) => role.objectId), [objectId]);
  });

  it('refuses a role without a valid name (139), without an ACL (123), or with a name in use (137)', async () => {
    const taken = unique('Taken');
    await createRole({ name: taken, ACL: {} });
    const cases: [string, Record<string, unknown>, number, number][] = [
      ['no name', { ACL: {} }, 400, 139],
      ['an empty name', { name: '', ACL: {} }, 400, 139],
      ['a null name', { name: null, ACL: {} }, 400, 139],
      ['a number as name', { name: 7, ACL: {} }, 400, 139],
      ['a dot in the name', { name: 'staff.admins', ACL: {} }, 400, 139],
      ['a colon in the name', { name: 'role:x', ACL: {} }, 400, 139],
      ['an accented letter in the name', { name: 'équipe', ACL: {} }, 400, 139],
      ['no ACL', { name: unique('NoAcl') }, 400, 123],
      ['a null ACL', { name: unique('NullAcl'), ACL: null }, 400, 123],
      ['an ACL that is an array', { name: unique('ArrayAcl'), ACL: [] }, 400, 123],
      ['a malformed ACL entry', { name: unique('BadAcl'), ACL: { '*': { read: 'yes' } } }, 400, 123],
      ['the name in use', { name: taken, ACL: {} }, 400, 137],
      ['users holding roles', { name: unique('Mixed'), ACL: {}, users: addRoles('abc') }, 400, 111],
      ['roles holding users', { name: unique('Mixed'), ACL: {}, roles: addUsers(alice.objectId) }, 400, 111],
      ['users given as an array', { name: unique('Plain'), ACL: {}, users: [userPointer(alice.objectId)] }, 400, 111],
    ];
    for (const [label, body, status, code] of cases) {
      assertError(await app.post('/1/roles', body, MASTER), status, code, label);
      assertError(await app.post('/1/roles', body), status, code, `${label} (REST key)`);
    }
    assertError(await app.post('/1/roles', [1, 2], MASTER), 400, 107, 'an array body');
    const all = await app.get('/1/roles', { ...MASTER, query: { limit: 1000 } });
    assert.deepEqual(all.body.results.filter((role: { name: string }) => role.name === taken).length, 1);
  });

  it('keeps the name: another name answers 136 and changes nothing, the same name is accepted', async () => {
    const name = unique('Fixed');
    const id = await createRole({ name, ACL: { [alice.objectId]: RW } });
    assertError(await app.put(`/1/roles/${id}`, { name: unique('Other') }, MASTER), 400, 136);
    assertError(await app.put(`/1/roles/${id}`, { name: { __op: 'Delete' } }, as(alice.sessionToken)), 400, 136);
    assertError(await app.put(`/1/roles/${id}`, { name: unique('Other'), users: addUsers(bob.objectId) }, as(alice.sessionToken)), 400, 136);
    // The refused update added no member with it.
    assert.deepEqual(await members(id, 'users'), []);
    assert.equal((await app.get(`/1/roles/${id}`, MASTER)).body.name, name);
    const same = await app.put(`/1/roles/${id}`, { name, tag: 'kept' }, as(alice.sessionToken));
    assert.equal(same.status, 200, same.text);
    assert.deepEqual(Object.keys(same.body), ['updatedAt']);
    assert.equal((await app.get(`/1/roles/${id}`, MASTER)).body.tag, 'kept');
  });

  it('adds and removes users and child roles with AddRelation and RemoveRelation', async () => {
    const child = await createRole({ name: unique('Child'), ACL: {} });
    const id = await createRole({ name: unique('Team'), ACL: {}, users: addUsers(alice.objectId) });
    assert.equal((await app.put(`/1/roles/${id}`, { users: addUsers(bob.objectId), roles: addRoles(child) }, MASTER)).status, 200);
    assert.deepEqual(await members(id, 'users'), [alice.objectId, bob.objectId].sort());
    assert.deepEqual(await members(id, 'roles'), [child]);
    const removed = await app.put(`/1/roles/${id}`, { users: { __op: 'RemoveRelation', objects: [userPointer(alice.objectId)] }, roles: { __op: 'RemoveRelation', objects: [rolePointer(child)] } }, MASTER);
    assert.equal(removed.status, 200, removed.text);
    assert.deepEqual(await members(id, 'users'), [bob.objectId]);
    assert.deepEqual(await members(id, 'roles'), []);
    // The SDKs send an add and a remove on one relation as a Batch.
    const batch = { __op: 'Batch', ops: [addUsers(alice.objectId), { __op: 'RemoveRelation', objects: [userPointer(bob.objectId)] }] };
    assert.equal((await app.put(`/1/roles/${id}`, { users: batch }, MASTER)).status, 200);
    assert.deepEqual(await members(id, 'users'), [alice.objectId]);
  });

  it('lets only the master key and users with write access change or delete a role (spec 4.4)', async () => {
    const readable = { '*': { read: true }, [alice.objectId]: RW };
    const id = await createRole({ name: unique('Owned'), ACL: readable });
    const roleName = (await app.get(`/1/roles/${id}`, MASTER)).body.name;
    const check = await guardedBy(roleName);
    // Public read is not write: the REST key alone and another user get 101, as for a missing role.
    assertError(await app.put(`/1/roles/${id}`, { users: addUsers(bob.objectId) }), 404, 101, 'REST key');
    assertError(await app.put(`/1/roles/${id}`, { users: addUsers(bob.objectId) }, as(bob.sessionToken)), 404, 101, 'bob');
    assertError(await app.delete(`/1/roles/${id}`, as(bob.sessionToken)), 404, 101, 'bob delete');
    assert.deepEqual(await members(id, 'users'), []);
    assert.equal(await check(bob), 404);
    // The user with write access adds bob, who then holds the role's permissions.
    assert.equal((await app.put(`/1/roles/${id}`, { users: addUsers(bob.objectId) }, as(alice.sessionToken))).status, 200);
    assert.equal(await check(bob), 200);
    // Write access to the role is not membership: alice is not a member.
    assert.equal(await check(alice), 404);
    // Alice deletes it; bob loses what it granted at once.
    const deleted = await app.delete(`/1/roles/${id}`, as(alice.sessionToken));
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(deleted.body, {});
    assertError(await app.get(`/1/roles/${id}`, MASTER), 404, 101);
    assert.equal(await check(bob), 404);

    // A role no one may write: only the master key changes or deletes it.
    const locked = await createRole({ name: unique('Locked'), ACL: { '*': { read: true } } });
    assertError(await app.put(`/1/roles/${locked}`, { note: 'x' }, as(alice.sessionToken)), 404, 101);
    assert.equal((await app.put(`/1/roles/${locked}`, { note: 'x' }, MASTER)).status, 200);
    assertError(await app.delete(`/1/roles/${locked}`, as(alice.sessionToken)), 404, 101);
    assert.equal((await app.delete(`/1/roles/${locked}`, MASTER)).status, 200);
    assertError(await app.delete(`/1/roles/${locked}`, MASTER), 404, 101);
  });

  it('hides roles the caller may not read, exactly like missing ones', async () => {
    const hidden = await createRole({ name: unique('Hidden'), ACL: { [alice.objectId]: { read: true } } });
    const missing = 'noSuchRole';
    const unreadable = await app.get(`/1/roles/${hidden}`, as(bob.sessionToken));
    const absent = await app.get(`/1/roles/${missing}`, as(bob.sessionToken));
    assertError(unreadable, 404, 101);
    assertError(absent, 404, 101);
    assert.equal(unreadable.body.error.replace(hidden, missing), absent.body.error);
    assert.equal((await app.get(`/1/roles/${hidden}`, as(alice.sessionToken))).status, 200);
    const listed = async (options: object) => (await app.get('/1/roles', { ...options, query: { where: { objectId: hidden }, count: 1 } })).body;
    assert.deepEqual(await listed(as(bob.sessionToken)), { results: [], count: 0 });
    assert.equal((await listed(as(alice.sessionToken))).count, 1);
    // Its members stay hidden too: $relatedTo needs read access to the role holding the relation.
    assert.equal((await app.put(`/1/roles/${hidden}`, { users: addUsers(bob.objectId) }, MASTER)).status, 200);
    const related = (options: object) => app.get('/1/users', { ...options, query: { where: { $relatedTo: { object: rolePointer(hidden), key: 'users' } } } });
    assert.deepEqual((await related(as(bob.sessionToken))).body.results, []);
    assert.deepEqual((await related(as(alice.sessionToken))).body.results.map((user: { objectId: string }) => user.objectId), [bob.objectId]);
  });

  it('passes permissions down the hierarchy, to any depth, through cycles, and follows every change', async () => {
    const [top, middle, bottom] = [unique('Top'), unique('Middle'), unique('Bottom')];
    const bottomId = await createRole({ name: bottom, ACL: {} });
    const middleId = await createRole({ name: middle, ACL: {}, roles: addRoles(bottomId) });
    const topId = await createRole({ name: top, ACL: {}, roles: addRoles(middleId) });
    const [forTop, forMiddle, forBottom] = await Promise.all([guardedBy(top), guardedBy(middle), guardedBy(bottom)]);
    const access = async (user: TestUser) => [await forTop(user), await forMiddle(user), await forBottom(user)];

    assert.deepEqual(await access(alice), [404, 404, 404]);
    // A member of the bottom role gets the permissions of every role above it, not the other way round.
    assert.equal((await app.put(`/1/roles/${bottomId}`, { users: addUsers(alice.objectId) }, MASTER)).status, 200);
    assert.deepEqual(await access(alice), [200, 200, 200]);
    assert.equal((await app.put(`/1/roles/${middleId}`, { users: addUsers(bob.objectId) }, MASTER)).status, 200);
    assert.deepEqual(await access(bob), [200, 200, 404]);

    // A cycle (bottom contains top) is harmless and makes everyone in it equal.
    assert.equal((await app.put(`/1/roles/${bottomId}`, { roles: addRoles(topId) }, MASTER)).status, 200);
    assert.deepEqual(await access(alice), [200, 200, 200]);
    assert.deepEqual(await access(bob), [200, 200, 200]);

    // Cutting a link takes the inherited permissions away at once.
    assert.equal((await app.put(`/1/roles/${bottomId}`, { roles: { __op: 'RemoveRelation', objects: [rolePointer(topId)] } }, MASTER)).status, 200);
    assert.equal((await app.put(`/1/roles/${middleId}`, { roles: { __op: 'RemoveRelation', objects: [rolePointer(bottomId)] } }, MASTER)).status, 200);
    assert.deepEqual(await access(alice), [404, 404, 200]);
    assert.deepEqual(await access(bob), [200, 200, 404]);
    // And so does deleting a role in the middle of the chain.
    assert.equal((await app.put(`/1/roles/${middleId}`, { roles: addRoles(bottomId) }, MASTER)).status, 200);
    assert.deepEqual(await access(alice), [200, 200, 200]);
    assert.equal((await app.delete(`/1/roles/${middleId}`, MASTER)).status, 200);
    assert.deepEqual(await access(alice), [404, 404, 200]);
    assert.deepEqual(await access(bob), [404, 404, 404]);
  });

  it('serves /1/classes/_Role as /1/roles, which is how the Parse SDKs save and query roles', async () => {
    const name = unique('Sdk');
    const created = await app.post('/1/classes/_Role', { name, ACL: { '*': { read: true } }, users: addUsers(alice.objectId) }, MASTER);
    assert.equal(created.status, 201, created.text);
    const id = created.body.objectId;
    const read = await app.get(`/1/classes/_Role/${id}`, as(bob.sessionToken));
    assert.deepEqual(read.body, { name, ACL: { '*': { read: true } }, objectId: id, createdAt: created.body.createdAt, updatedAt: created.body.createdAt });
    const listed = await app.get('/1/classes/_Role', { query: { where: { name } } });
    assert.deepEqual(listed.body.results.map((role: { objectId: string }) => role.objectId), [id]);
    assertError(await app.post('/1/classes/_Role', { name, ACL: {} }, MASTER), 400, 137);
    assertError(await app.put(`/1/classes/_Role/${id}`, { name: unique('Renamed') }, MASTER), 400, 136);
    assertError(await app.put(`/1/classes/_Role/${id}`, { users: addUsers(bob.objectId) }, as(bob.sessionToken)), 404, 101);
    assert.equal((await app.delete(`/1/classes/_Role/${id}`, MASTER)).status, 200);
    assertError(await app.get(`/1/roles/${id}`, MASTER), 404, 101);
  });

  it('works in a batch, each command with the batch credentials', async () => {
    const name = unique('Batched');
    const response = await app.post('/1/batch', {
      requests: [
        { method: 'POST', path: '/1/roles', body: { name, ACL: { [alice.objectId]: RW }, users: addUsers(bob.objectId) } },
        { method: 'POST', path: '/1/roles', body: { name, ACL: {} } },
        { method: 'POST', path: '/1/roles', body: { name: 'bad.name', ACL: {} } },
      ],
    }, as(alice.sessionToken));
    assert.equal(response.status, 200, response.text);
    const id = response.body[0].success.objectId;
    assert.deepEqual(response.body.slice(1).map((entry: { error: { code: number } }) => entry.error.code), [137, 139]);
    const updates = await app.post('/1/batch', {
      requests: [
        { method: 'PUT', path: `/1/roles/${id}`, body: { users: addUsers(alice.objectId) } },
        { method: 'DELETE', path: `/1/roles/${id}` },
      ],
    }, as(bob.sessionToken));
    assert.deepEqual(updates.body.map((entry: { error?: { code: number } }) => entry.error?.code), [101, 101]);
    const owner = await app.post('/1/batch', { requests: [{ method: 'PUT', path: `/1/roles/${id}`, body: { users: addUsers(alice.objectId) } }, { method: 'DELETE', path: `/1/roles/${id}` }] }, as(alice.sessionToken));
    assert.ok(owner.body.every((entry: { success?: unknown }) => entry.success), JSON.stringify(owner.body));
    assertError(await app.get(`/1/roles/${id}`, MASTER), 404, 101);
  });

  it('refuses role writes from restricted sessions with 119 (spec 5 rule 5), but lets them read', async () => {
    const restricted = await restrictedSession(app, alice.sessionToken);
    const id = await createRole({ name: unique('Open'), ACL: { '*': RW } });
    const options = as(restricted.sessionToken);
    const refused: [string, Promise<Response>][] = [
      ['create', app.post('/1/roles', { name: unique('Nope'), ACL: {} }, options)],
      ['update', app.put(`/1/roles/${id}`, { users: addUsers(alice.objectId) }, options)],
      ['delete', app.delete(`/1/roles/${id}`, options)],
    ];
    for (const [label, response] of refused) assertError(await response, 403, 119, label);
    assert.equal((await app.get(`/1/roles/${id}`, options)).status, 200);
    assert.deepEqual(await members(id, 'users'), []);
  });
});

/**
 * Every process caches the roles of the users it serves; a role changed through one process must
 * change what the others grant. Only PostgreSQL is shared by several processes.
 */
describe('roles: several processes on one PostgreSQL', () => {
  const KEYS = { applicationId: 'shared', masterKey: 'shared-master', restKey: 'shared-rest', clientKey: '', javascriptKey: '', windowsKey: '', webhookKey: '' };

  /**
   * Polls B until the status is the one expected, at most 20 s: far below the cache's one-minute
   * lifetime, so only the change notification can bring it about.
   */
  async function statusBecomes(read: () => Promise<number>, expected: number): Promise<number> {
    const deadline = Date.now() + 20_000;
    let status = await read();
    while (status !== expected && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = await read();
    }
    return status;
  }

  it('a membership changed through one process grants and revokes in the other, which had the roles cached', async () => {
    const db = await tempDatabase();
    const dataDir = tempDir();
    const env = { BASALT_DATABASE_URL: db.url, BASALT_DATA_DIR: dataDir, BASALT_APP_ID: KEYS.applicationId, BASALT_MASTER_KEY: KEYS.masterKey, BASALT_REST_KEY: KEYS.restKey, BASALT_AUTH_REQUESTS_PER_MINUTE: '0' };
    const servers = [await start(env), await start(env)];
    try {
      const [a, b] = servers.map((server) => new AppClient({ backend: 'postgres', url: server.url }, KEYS)) as [AppClient, AppClient];
      const user = await signUp(a);
      const name = unique('Shared');
      const role = await a.post('/1/roles', { name, ACL: {} }, MASTER);
      assert.equal(role.status, 201, role.text);
      const cls = unique('Guarded');
      const object = await a.post(`/1/classes/${cls}`, { ACL: { [`role:${name}`]: { read: true } } }, MASTER);
      const readThroughB = async () => (await b.get(`/1/classes/${cls}/${object.body.objectId}`, as(user.sessionToken))).status;
      // B computes and caches the user's roles: none yet.
      assert.equal(await readThroughB(), 404);

      assert.equal((await a.put(`/1/roles/${role.body.objectId}`, { users: addUsers(user.objectId) }, MASTER)).status, 200);
      assert.equal(await statusBecomes(readThroughB, 200), 200, 'B after the user was added through A');
      assert.equal((await a.put(`/1/roles/${role.body.objectId}`, { users: { __op: 'RemoveRelation', objects: [userPointer(user.objectId)] } }, MASTER)).status, 200);
      assert.equal(await statusBecomes(readThroughB, 404), 404, 'B after the user was removed through A');
    } finally {
      for (const server of servers) await stop(server);
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
