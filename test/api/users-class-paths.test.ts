import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { sdkBody, unique, type AppClient, type Response } from '../helpers/client.ts';
import { as, assertError, meStatus, newToken, newUserApp, restrictedSession, REVOCABLE_TOKEN, sessionOf, signUp, TIMESTAMP, type TestUser } from '../helpers/users.ts';

/**
 * The Parse SDKs reach users through /1/classes/_User: every request there must answer as the
 * same request on /1/users does (docs/api.md "Users"), with the same stored effect.
 */

const BASES = ['/1/users', '/1/classes/_User'] as const;

/** Status and the sorted keys of the body: what two answers to one request must share. */
function shape(response: Response): { status: number; keys: string[]; code?: number } {
  const keys = Object.keys(response.body ?? {}).sort();
  return response.body?.code === undefined ? { status: response.status, keys } : { status: response.status, keys, code: response.body.code };
}

eachBackend('users through /1/classes/_User', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newUserApp(target);
  });

  async function stored(objectId: string): Promise<Record<string, any>> {
    const response = await app.get(`/1/users/${objectId}`, { key: 'master' });
    assert.equal(response.status, 200, response.text);
    return response.body;
  }

  it('signs up through POST /1/classes/_User: 201, Location, {objectId, createdAt, sessionToken}', async () => {
    const username = unique('user');
    const response = await app.post('/1/classes/_User', { username, password: 'pw', email: `${username}@Example.com`, phone: '555' }, { headers: { 'X-Svc-Installation-Id': 'inst-signup' } });
    assert.equal(response.status, 201, response.text);
    assert.deepEqual(Object.keys(response.body).sort(), ['createdAt', 'objectId', 'sessionToken']);
    assert.match(response.body.createdAt, TIMESTAMP);
    assert.match(response.body.sessionToken, REVOCABLE_TOKEN);
    // Parse Server's Location for a user is under /users whichever path created it.
    assert.equal(response.headers.get('location'), `${target.url}/1/users/${response.body.objectId}`);
    const user = await stored(response.body.objectId);
    assert.equal(user.username, username);
    assert.equal(user.email, `${username}@example.com`);
    assert.equal(user.phone, '555');
    assert.equal(user.password, undefined);
    assert.deepEqual(user.ACL, { '*': { read: true }, [response.body.objectId]: { read: true, write: true } });
    const session = await sessionOf(app, response.body.sessionToken);
    assert.deepEqual(session.createdWith, { action: 'signup', authProvider: 'password' });
    assert.equal(session.installationId, 'inst-signup');
    // The password works: the user logs in.
    const login = await app.post('/1/login', { username, password: 'pw' });
    assert.equal(login.status, 200, login.text);
    assert.equal(login.body.objectId, response.body.objectId);
  });

  it('signs up through authData at /1/classes/_User as at /1/users', async () => {
    for (const base of BASES) {
      const authData = { anonymous: { id: crypto.randomUUID() } };
      const first = await app.post(base, { authData });
      assert.equal(first.status, 201, `${base} ${first.text}`);
      assert.deepEqual(Object.keys(first.body).sort(), ['createdAt', 'objectId', 'sessionToken', 'username']);
      const again = await app.post(base, { authData });
      assert.equal(again.status, 200, `${base} ${again.text}`);
      assert.equal(again.body.objectId, first.body.objectId);
      assert.match(again.body.sessionToken, REVOCABLE_TOKEN);
    }
  });

  it('refuses a bad sign-up with the same codes on both paths, creating no user', async () => {
    const taken = await signUp(app, { email: `${unique('taken')}@example.com` });
    const takenEmail = (await stored(taken.objectId)).email;
    const bodies: [string, Record<string, unknown>, number][] = [
      ['no username', { password: 'pw' }, 200],
      ['no password', { username: unique('u') }, 201],
      ['username taken', { username: taken.username, password: 'pw' }, 202],
      ['email taken', { username: unique('u'), password: 'pw', email: takenEmail }, 203],
      ['bad email', { username: unique('u'), password: 'pw', email: 'nope' }, 125],
      ['server field', { username: unique('u'), password: 'pw', objectId: 'chosen1234' }, 105],
    ];
    for (const [label, body, code] of bodies) {
      const answers = await Promise.all(BASES.map((base) => app.post(base, body)));
      for (const [i, answer] of answers.entries()) assertError(answer, 400, code, `${BASES[i]} ${label}`);
    }
    const count = await app.get('/1/users', { key: 'master', query: { where: { username: { $in: bodies.map(([, body]) => body.username).filter(Boolean) } }, count: 1, limit: 0 } });
    assert.equal(count.body.count, 1, 'only the user that was there');
  });

  it('reads one user and queries users alike: authData to itself only, never the password', async () => {
    const owner = await signUp(app, { authData: { anonymous: { id: crypto.randomUUID() } }, color: 'teal' });
    const other = await signUp(app);
    for (const [label, options] of [['self', as(owner.sessionToken)], ['other user', as(other.sessionToken)], ['anonymous', {}], ['master', { key: 'master' as const }]] as const) {
      const [viaUsers, viaClasses] = await Promise.all(BASES.map((base) => app.get(`${base}/${owner.objectId}`, options)));
      assert.equal(viaUsers!.status, 200, `${label} ${viaUsers!.text}`);
      assert.deepEqual(viaClasses!.body, viaUsers!.body, label);
      assert.equal(viaClasses!.body.password, undefined);
      assert.equal(viaClasses!.body.sessionToken, undefined);
      assert.equal('authData' in viaClasses!.body, label === 'self' || label === 'master', label);
      const query = { where: { objectId: owner.objectId } };
      const [listUsers, listClasses] = await Promise.all(BASES.map((base) => app.get(base, { ...options, query })));
      assert.equal(listUsers!.status, 200, listUsers!.text);
      assert.deepEqual(listClasses!.body, listUsers!.body, `${label} list`);
      assert.equal(listClasses!.body.results.length, 1);
    }
    // A user the ACL hides answers 101 on both.
    const hidden = await signUp(app, { ACL: {} });
    for (const base of BASES) assertError(await app.get(`${base}/${hidden.objectId}`, as(other.sessionToken)), 404, 101, base);
  });

  it('honours keys and include on GET one and on queries of both paths', async () => {
    const friend = await signUp(app, { color: 'red', shoe: 42 });
    const user = await signUp(app, { color: 'blue', shoe: 40, best: { __type: 'Pointer', className: '_User', objectId: friend.objectId } });
    for (const base of BASES) {
      const keys = await app.get(`${base}/${user.objectId}`, { query: { keys: 'color' } });
      assert.equal(keys.status, 200, keys.text);
      assert.deepEqual(Object.keys(keys.body).sort(), ['ACL', 'color', 'createdAt', 'objectId', 'updatedAt'], base);
      const included = await app.get(`${base}/${user.objectId}`, { query: { include: 'best' } });
      assert.equal(included.body.best.__type, 'Object', base);
      assert.equal(included.body.best.color, 'red', base);
      assert.equal(included.body.best.authData, undefined);
      const both = await app.get(`${base}/${user.objectId}`, { query: { include: 'best', keys: 'best.shoe' } });
      assert.deepEqual(Object.keys(both.body).sort(), ['ACL', 'best', 'createdAt', 'objectId', 'updatedAt'], base);
      assert.equal(both.body.best.shoe, 42);
      assert.equal(both.body.best.color, undefined);
      const listed = await app.get(base, { query: { where: { objectId: user.objectId }, include: 'best', keys: 'shoe,best' } });
      assert.equal(listed.body.results[0].best.color, 'red', base);
      assert.equal(listed.body.results[0].color, undefined, base);
    }
  });

  it('updates a user alike: itself or the master key, 206 for anyone else', async () => {
    for (const base of BASES) {
      const user = await signUp(app, { color: 'gold' });
      const other = await signUp(app);
      const path = `${base}/${user.objectId}`;
      const own = await app.put(path, { color: 'black', score: { __op: 'Increment', amount: 2 } }, as(user.sessionToken));
      assert.equal(own.status, 200, `${base} ${own.text}`);
      assert.deepEqual(Object.keys(own.body).sort(), ['score', 'updatedAt']);
      assert.equal(own.body.score, 2);
      assertError(await app.put(path, { color: 'red' }, as(other.sessionToken)), 400, 206, `${base} other user`);
      assertError(await app.put(path, { color: 'red' }), 400, 206, `${base} no session`);
      assertError(await app.put(path, { emailVerified: true }, as(user.sessionToken)), 403, 119, `${base} emailVerified`);
      assertError(await app.put(path, { username: other.username }, as(user.sessionToken)), 400, 202, `${base} username taken`);
      assert.equal((await stored(user.objectId)).color, 'black');
      const master = await app.put(path, { color: 'green' }, { key: 'master' });
      assert.equal(master.status, 200, master.text);
      assert.equal((await stored(user.objectId)).color, 'green');
      assertError(await app.put(`${base}/nosuchuser`, { color: 'x' }, { key: 'master' }), 404, 101, `${base} missing`);
    }
  });

  it('changes the password alike: the other sessions end, the new password logs in', async () => {
    for (const base of BASES) {
      const user = await signUp(app);
      const elsewhere = await newToken(app, user);
      const changed = await app.put(`${base}/${user.objectId}`, { password: 'new-secret' }, as(user.sessionToken));
      assert.equal(changed.status, 200, changed.text);
      assert.equal(await meStatus(app, elsewhere), 400, `${base} other session ended`);
      assert.equal(await meStatus(app, user.sessionToken), 200, `${base} own session kept`);
      assert.equal((await app.post('/1/login', { username: user.username, password: 'new-secret' })).status, 200);
    }
  });

  it('deletes a user alike: itself or the master key; its sessions end; 206 for anyone else', async () => {
    for (const base of BASES) {
      const user = await signUp(app);
      const other = await signUp(app);
      assertError(await app.delete(`${base}/${user.objectId}`, as(other.sessionToken)), 400, 206, `${base} other user`);
      assertError(await app.delete(`${base}/${user.objectId}`), 400, 206, `${base} no session`);
      const removed = await app.delete(`${base}/${user.objectId}`, as(user.sessionToken));
      assert.equal(removed.status, 200, removed.text);
      assert.deepEqual(removed.body, {});
      assertError(await app.get(`/1/users/${user.objectId}`, { key: 'master' }), 404, 101, 'deleted');
      assert.equal(await meStatus(app, user.sessionToken), 400, `${base} session ended`);
      const byMaster = await app.delete(`${base}/${other.objectId}`, { key: 'master' });
      assert.equal(byMaster.status, 200, byMaster.text);
      assertError(await app.delete(`${base}/${other.objectId}`, { key: 'master' }), 404, 101, `${base} again`);
    }
  });

  it('gives a restricted session 119 on every write of both paths', async () => {
    const user = await signUp(app, { color: 'gold' });
    const restricted = as((await restrictedSession(app, user.sessionToken)).sessionToken);
    for (const base of BASES) {
      assertError(await app.post(base, { username: unique('u'), password: 'pw' }, restricted), 403, 119, `${base} sign-up`);
      assertError(await app.put(`${base}/${user.objectId}`, { color: 'red' }, restricted), 403, 119, `${base} update`);
      assertError(await app.delete(`${base}/${user.objectId}`, restricted), 403, 119, `${base} delete`);
      assert.equal((await app.get(`${base}/${user.objectId}`, restricted)).status, 200, `${base} read`);
    }
    assert.equal((await stored(user.objectId)).color, 'gold');
  });

  it('answers the same shapes through /1/batch on both paths', async () => {
    const user = await signUp(app, { color: 'gold' });
    const other = await signUp(app);
    const run = async (base: string) => {
      const name = unique('batch');
      const response = await app.post('/1/batch', { requests: [
        { method: 'POST', path: base, body: { username: name, password: 'pw' } },
        { method: 'GET', path: `${base}/${user.objectId}` },
        { method: 'PUT', path: `${base}/${user.objectId}`, body: { color: base } },
        { method: 'PUT', path: `${base}/${other.objectId}`, body: { color: 'stolen' } },
        { method: 'DELETE', path: `${base}/${other.objectId}` },
        { method: 'POST', path: base, body: { username: name, password: 'pw' } },
      ] }, as(user.sessionToken));
      assert.equal(response.status, 200, response.text);
      return response.body as Record<string, any>[];
    };
    const [viaUsers, viaClasses] = [await run('/1/users'), await run('/1/classes/_User')];
    const entryShape = (entry: Record<string, any>) => (entry.success ? ['success', Object.keys(entry.success).sort()] : ['error', entry.error.code]);
    assert.deepEqual(viaClasses.map(entryShape), viaUsers.map(entryShape));
    assert.deepEqual(viaClasses.map(entryShape), [
      ['success', ['createdAt', 'objectId', 'sessionToken']],
      ['success', Object.keys(viaUsers[1]!.success).sort()],
      ['success', ['updatedAt']],
      ['error', 206],
      ['error', 206],
      ['error', 202],
    ]);
    assert.equal((await stored(user.objectId)).color, '/1/classes/_User');
    assert.equal((await stored(other.objectId)).color, undefined);
  });

  it('answers the SDK form (POST with _method and body keys) on both paths', async () => {
    const user = await signUp(app, { color: 'gold' });
    const other = await signUp(app);
    for (const base of BASES) {
      const body = (fields: Record<string, unknown>) => sdkBody(app.app, { _SessionToken: user.sessionToken, ...fields });
      const got = await app.post(`${base}/${user.objectId}`, body({ _method: 'GET' }), { key: 'none' });
      assert.equal(got.status, 200, `${base} ${got.text}`);
      assert.equal(got.body.color, 'gold');
      const listed = await app.post(base, body({ _method: 'GET', where: { objectId: user.objectId }, keys: 'color' }), { key: 'none' });
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(Object.keys(listed.body.results[0]).sort(), ['ACL', 'color', 'createdAt', 'objectId', 'updatedAt']);
      const put = await app.post(`${base}/${user.objectId}`, body({ _method: 'PUT', shoe: 41 }), { key: 'none' });
      assert.equal(put.status, 200, put.text);
      assertError(await app.post(`${base}/${other.objectId}`, body({ _method: 'PUT', shoe: 1 }), { key: 'none' }), 400, 206, `${base} other`);
      assertError(await app.post(`${base}/${other.objectId}`, body({ _method: 'DELETE' }), { key: 'none' }), 400, 206, `${base} delete other`);
      const name = unique('sdk');
      const created = await app.post(base, sdkBody(app.app, { username: name, password: 'pw' }), { key: 'none' });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(Object.keys(created.body).sort(), ['createdAt', 'objectId', 'sessionToken']);
    }
    assert.equal((await stored(user.objectId)).shoe, 41);
    assert.equal((await stored(other.objectId)).shoe, undefined);
  });

  it('takes an escaped spelling of the path to the users\' routes on every way in (a request, batch, _method)', async () => {
    const user = await signUp(app, { color: 'gold' });
    const other = await signUp(app);
    const created = await app.post('/1/classes/%5FUser', { username: unique('esc'), password: 'pw' });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(Object.keys(created.body).sort(), ['createdAt', 'objectId', 'sessionToken']);
    const batch = await app.post('/1/batch', { requests: [
      { method: 'PUT', path: `/1/classes/%5FUser/${user.objectId}`, body: { color: 'batched' } },
      { method: 'PUT', path: `/1/classes/_%55ser/${other.objectId}`, body: { color: 'stolen' } },
      { method: 'POST', path: '/1/classes/%5FUser', body: { username: unique('esc'), password: 'pw' } },
    ] }, as(user.sessionToken));
    assert.equal(batch.status, 200, batch.text);
    assert.deepEqual(Object.keys(batch.body[0].success), ['updatedAt']);
    assert.equal(batch.body[1].error.code, 206);
    assert.deepEqual(Object.keys(batch.body[2].success).sort(), ['createdAt', 'objectId', 'sessionToken']);
    const sdk = await app.post(`/1/classes/%5FUser/${other.objectId}`, sdkBody(app.app, { _method: 'PUT', _SessionToken: user.sessionToken, color: 'stolen' }), { key: 'none' });
    assertError(sdk, 400, 206, '_method');
    assert.equal((await stored(user.objectId)).color, 'batched');
    assert.equal((await stored(other.objectId)).color, undefined);
  });

  it('keeps GET /1/users/me and login; /1/classes/_User/me is no alias (me is an objectId there)', async () => {
    const user: TestUser = await signUp(app);
    const me = await app.get('/1/users/me', as(user.sessionToken));
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.sessionToken, user.sessionToken);
    assertError(await app.get('/1/classes/_User/me', as(user.sessionToken)), 404, 101, 'classes me');
    assertError(await app.put('/1/classes/_User/me', { color: 'x' }, as(user.sessionToken)), 400, 206, 'classes me update');
    const login = await app.get('/1/login', { query: { username: user.username, password: user.password } });
    assert.equal(login.status, 200, login.text);
    const post = await app.post('/1/login', { username: user.username, password: user.password });
    assert.equal(post.status, 200, post.text);
    assert.deepEqual(shape(post), shape(login));
  });
});
