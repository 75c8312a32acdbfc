import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import { as, assertError, signUp, type TestUser } from '../helpers/users.ts';

/**
 * `excludeKeys` (the SDKs' `query.exclude(…)`): the named fields are left out of each result, on
 * every query endpoint and on single reads. The built-in fields always come back; dot notation
 * leaves out keys inside Object fields, arrays of objects and included pointers; a dotted key
 * includes its parent pointer, as in Parse Server; and what is left out wins over `keys` and
 * `include`.
 */

type Json = Record<string, any>;
const MASTER = { key: 'master' } as const;

function pointer(className: string, objectId: string) {
  return { __type: 'Pointer', className, objectId };
}

/** The object without `fields`. */
function without(object: Json, ...fields: string[]): Json {
  const copy = { ...object };
  for (const field of fields) delete copy[field];
  return copy;
}

eachBackend('query excludeKeys', (target) => {
  let app: AppClient;
  let user: TestUser;
  const cls = { author: unique('Author'), post: unique('Post') };
  /** Every seeded object as GET /1/classes/<class>/<id> with the master key returns it. */
  const seen: Record<string, Json> = {};
  let alice: string, bob: string, p1: string, p2: string;

  async function create(className: string, body: Json): Promise<string> {
    const created = await app.post(`/1/classes/${className}`, body);
    assert.equal(created.status, 201, created.text);
    const read = await app.get(`/1/classes/${className}/${created.body.objectId}`, MASTER);
    assert.equal(read.status, 200, read.text);
    seen[created.body.objectId] = read.body;
    return created.body.objectId;
  }

  const list = (query: Json) => app.get(`/1/classes/${cls.post}`, { query: { order: 'title', ...query } });
  const included = (className: string, object: Json) => ({ __type: 'Object', className, ...object });

  before(async () => {
    app = await newApp(target);
    user = await signUp(app, { nickname: 'nick', secret: 's3' });
    alice = await create(cls.author, { name: 'alice', email: 'a@example.com', bio: { city: 'Oslo', zip: '0150' } });
    bob = await create(cls.author, { name: 'bob', email: 'b@example.com' });
    p1 = await create(cls.post, {
      title: 'first',
      score: 7,
      tags: ['a'],
      meta: { views: 3, secret: 'x', inner: { keep: 1, drop: 2 } },
      items: [{ x: 1, y: 2 }, { x: 3 }, 5],
      author: pointer(cls.author, alice),
      editor: pointer(cls.author, bob),
      ACL: { '*': { read: true, write: true } },
    });
    p2 = await create(cls.post, { title: 'second', score: 9, author: pointer(cls.author, bob) });
  });

  it('leaves the named fields out of every result and of a single read', async () => {
    const found = await list({ excludeKeys: 'score,tags,author' });
    assert.equal(found.status, 200, found.text);
    assert.deepEqual(found.body.results, [without(seen[p1]!, 'score', 'tags', 'author'), without(seen[p2]!, 'score', 'author')]);
    const one = await app.get(`/1/classes/${cls.post}/${p1}`, { query: { excludeKeys: 'meta, items ,nope' } });
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(one.body, without(seen[p1]!, 'meta', 'items'));
    // Nothing was written: the whole object is still there.
    const whole = await app.get(`/1/classes/${cls.post}/${p1}`, MASTER);
    assert.deepEqual(whole.body, seen[p1]);
  });

  it('keeps objectId, createdAt, updatedAt and ACL whatever is excluded, as Parse Server does', async () => {
    const found = await list({ excludeKeys: 'objectId,createdAt,updatedAt,ACL', where: { objectId: p1 } });
    assert.equal(found.status, 200, found.text);
    assert.deepEqual(found.body.results, [seen[p1]]);
    const empty = await list({ excludeKeys: '', where: { objectId: p1 } });
    assert.deepEqual(empty.body.results, [seen[p1]]);
  });

  it('dot notation leaves out keys inside Object fields and arrays of objects', async () => {
    const one = await app.get(`/1/classes/${cls.post}/${p1}`, { query: { excludeKeys: 'meta.secret,meta.inner.drop,items.y,title.x' } });
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(one.body, { ...seen[p1], meta: { views: 3, inner: { keep: 1 } }, items: [{ x: 1 }, { x: 3 }, 5] });
    // A whole field and a part of it: the whole field goes.
    const whole = await app.get(`/1/classes/${cls.post}/${p1}`, { query: { excludeKeys: 'meta.secret,meta' } });
    assert.deepEqual(whole.body, without(seen[p1]!, 'meta'));
  });

  it('dot notation leaves out keys of included pointers, which keep their type, class and built-in fields', async () => {
    const found = await list({ include: 'author', excludeKeys: 'author.email,author.bio,author.objectId,author.className' });
    assert.equal(found.status, 200, found.text);
    assert.deepEqual(found.body.results, [
      { ...seen[p1], author: included(cls.author, without(seen[alice]!, 'email', 'bio')) },
      { ...seen[p2], author: included(cls.author, without(seen[bob]!, 'email')) },
    ]);
    // As in Parse Server, a dotted key includes its parent pointer without being asked to.
    const implied = await list({ excludeKeys: 'author.email' });
    assert.deepEqual(
      implied.body.results.map((post: Json) => post.author),
      [included(cls.author, without(seen[alice]!, 'email')), included(cls.author, without(seen[bob]!, 'email'))],
    );
    assert.deepEqual(implied.body.results[0].editor, seen[p1]!.editor);
  });

  it('wins over keys and include, and over include=*', async () => {
    const keys = await list({ keys: 'title,score,author', excludeKeys: 'score' });
    assert.equal(keys.status, 200, keys.text);
    const picked = (id: string) => ({ objectId: id, createdAt: seen[id]!.createdAt, updatedAt: seen[id]!.updatedAt, title: seen[id]!.title, author: seen[id]!.author });
    assert.deepEqual(keys.body.results, [{ ...picked(p1), ACL: seen[p1]!.ACL }, picked(p2)]);
    const include = await list({ include: 'author,editor', excludeKeys: 'author' });
    assert.deepEqual(include.body.results[0], { ...without(seen[p1]!, 'author'), editor: included(cls.author, seen[bob]!) });
    const all = await list({ include: '*', excludeKeys: 'editor,author.email', where: { objectId: p1 } });
    assert.deepEqual(all.body.results, [{ ...without(seen[p1]!, 'editor'), author: included(cls.author, without(seen[alice]!, 'email')) }]);
    const selectedInside = await list({ keys: 'author.name,author.email', excludeKeys: 'author.email', where: { objectId: p2 } });
    assert.deepEqual(selectedInside.body.results, [
      { objectId: p2, createdAt: seen[p2]!.createdAt, updatedAt: seen[p2]!.updatedAt, author: { __type: 'Object', className: cls.author, objectId: bob, createdAt: seen[bob]!.createdAt, updatedAt: seen[bob]!.updatedAt, name: 'bob' } },
    ]);
  });

  it('the SDK body form (POST with _method GET) takes excludeKeys as a string; any other type answers 400/102', async () => {
    const sdk = await app.post(`/1/classes/${cls.post}`, { _method: 'GET', where: { objectId: p1 }, excludeKeys: 'score,meta.secret' });
    assert.equal(sdk.status, 200, sdk.text);
    assert.deepEqual(sdk.body.results, [{ ...without(seen[p1]!, 'score'), meta: { views: 3, inner: { keep: 1, drop: 2 } } }]);
    for (const excludeKeys of [[1], ['score'], 5, true, { score: 1 }]) {
      assertError(await app.post(`/1/classes/${cls.post}`, { _method: 'GET', excludeKeys }), 400, 102, `list excludeKeys: ${JSON.stringify(excludeKeys)}`);
      assertError(await app.post(`/1/classes/${cls.post}/${p1}`, { _method: 'GET', excludeKeys }), 400, 102, `get excludeKeys: ${JSON.stringify(excludeKeys)}`);
    }
  });

  it('a malformed key answers 400/105 on lists and single reads', async () => {
    for (const excludeKeys of ['a-b', 'title..x', '.title', 'title.', '$title', 'ti tle']) {
      assertError(await list({ excludeKeys }), 400, 105, `list excludeKeys=${excludeKeys}`);
      assertError(await app.get(`/1/classes/${cls.post}/${p1}`, { query: { excludeKeys } }), 400, 105, `get excludeKeys=${excludeKeys}`);
    }
  });

  it('applies on /1/users, /1/roles, /1/installations and /1/sessions', async () => {
    const users = await app.get('/1/users', { ...MASTER, query: { where: { objectId: user.objectId }, excludeKeys: 'secret,username' } });
    assert.equal(users.status, 200, users.text);
    assert.equal(users.body.results.length, 1);
    assert.equal(users.body.results[0].nickname, 'nick');
    assert.equal(users.body.results[0].objectId, user.objectId);
    assert.deepEqual([users.body.results[0].secret, users.body.results[0].username], [undefined, undefined]);

    const roleName = unique('role');
    const role = await app.post('/1/roles', { name: roleName, ACL: { '*': { read: true } }, tier: 2 }, MASTER);
    assert.equal(role.status, 201, role.text);
    const roles = await app.get('/1/roles', { query: { where: { name: roleName }, excludeKeys: 'tier' } });
    assert.equal(roles.status, 200, roles.text);
    assert.deepEqual(roles.body.results.map((found: Json) => [found.objectId, found.name, found.tier]), [[role.body.objectId, roleName, undefined]]);
    const oneRole = await app.get(`/1/roles/${role.body.objectId}`, { query: { excludeKeys: 'name' } });
    assert.equal(oneRole.status, 200, oneRole.text);
    assert.deepEqual([oneRole.body.objectId, oneRole.body.name, oneRole.body.tier], [role.body.objectId, undefined, 2]);

    const installationId = '8c1f4b7e-2f0a-4a55-9a0d-0d5cf3b0a9e1';
    const installation = await app.post('/1/installations', { installationId, deviceType: 'android', appName: 'demo', channels: ['news'] });
    assert.equal(installation.status, 201, installation.text);
    const installations = await app.get('/1/installations', { ...MASTER, query: { where: { installationId }, excludeKeys: 'appName,channels' } });
    assert.equal(installations.status, 200, installations.text);
    const [device] = installations.body.results;
    assert.deepEqual([installations.body.results.length, device.installationId, device.deviceType, device.appName, device.channels], [1, installationId, 'android', undefined, undefined]);

    const sessions = await app.get('/1/sessions', { ...as(user.sessionToken), query: { excludeKeys: 'createdWith,installationId' } });
    assert.equal(sessions.status, 200, sessions.text);
    assert.equal(sessions.body.results.length, 1);
    const [session] = sessions.body.results;
    assert.equal(session.sessionToken, user.sessionToken);
    assert.deepEqual([session.createdWith, session.installationId], [undefined, undefined]);
  });
});
