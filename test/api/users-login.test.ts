import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import bcrypt from 'bcryptjs';
import { eachBackend } from '../helpers/each-backend.ts';
import { http, sdkBody, unique, type AppClient, type Response } from '../helpers/client.ts';
import { openStorage, type Storage } from '../helpers/storage.ts';
import { as, assertError, logIn, LOGIN_FAILED, meStatus, newToken, newUserApp, REVOCABLE_TOKEN, sessionOf, sessionsOfUser, signUp } from '../helpers/users.ts';

/** Spec 3.2 and 4.3, decisions.md "Errors": login, logout and /1/users/me. */

eachBackend('users: login, logout, me', (target) => {
  let app: AppClient;
  let storage: Storage;

  before(async () => {
    app = await newUserApp(target);
    const marker = unique('Mark');
    assert.equal((await app.post(`/1/classes/${marker}`, {})).status, 201);
    storage = await openStorage(target, marker);
  });
  after(() => storage.close());

  /** The Parse JS SDK's login: a text/plain POST whose body carries the keys and `_method: GET`. */
  const sdkLogIn = (fields: Record<string, unknown>): Promise<Response> =>
    http(`${target.url}/1/login`, 'POST', { raw: JSON.stringify(sdkBody(app.app, { _method: 'GET', _ClientVersion: 'js6.1.1', ...fields })), headers: { 'Content-Type': 'text/plain' } });

  const storedHash = async (objectId: string) => (await storage.documents('_User')).find((doc) => doc.objectId === objectId)!.data._hashed_password as string;

  it('logs in with GET: the user without its password, and a new revocable session', async () => {
    const user = await signUp(app, { email: `${unique('e')}@example.com`, color: 'red' });
    const response = await logIn(app, user.username, user.password);
    assert.equal(response.status, 200, response.text);
    const body = response.body;
    assert.deepEqual(Object.keys(body).sort(), ['ACL', 'color', 'createdAt', 'email', 'objectId', 'sessionToken', 'updatedAt', 'username']);
    assert.equal(body.objectId, user.objectId);
    assert.equal(body.username, user.username);
    assert.equal(body.color, 'red');
    assert.match(body.sessionToken, REVOCABLE_TOKEN);
    assert.notEqual(body.sessionToken, user.sessionToken);
    // Both sessions are live: logging in elsewhere does not end the sign-up session.
    assert.equal(await meStatus(app, body.sessionToken), 200);
    assert.equal(await meStatus(app, user.sessionToken), 200);
    const session = await sessionOf(app, body.sessionToken);
    assert.deepEqual(session.createdWith, { action: 'login', authProvider: 'password' });
    assert.equal((await sessionsOfUser(app, user.objectId)).length, 2);
  });

  it('logs in through the SDK body form and through a POST with a JSON body', async () => {
    const user = await signUp(app);
    const viaSdk = await sdkLogIn({ username: user.username, password: user.password });
    assert.equal(viaSdk.status, 200, viaSdk.text);
    assert.equal(viaSdk.body.objectId, user.objectId);
    assert.match(viaSdk.body.sessionToken, REVOCABLE_TOKEN);
    const viaPost = await app.post('/1/login', { username: user.username, password: user.password });
    assert.equal(viaPost.status, 200, viaPost.text);
    assert.equal(viaPost.body.objectId, user.objectId);
    assert.equal(await meStatus(app, viaSdk.body.sessionToken), 200);
    assert.equal(await meStatus(app, viaPost.body.sessionToken), 200);
    assert.equal((await sessionsOfUser(app, user.objectId)).length, 3);
  });

  it('answers a wrong password and an unknown username alike: 404/101 "Invalid username/password."', async () => {
    const user = await signUp(app);
    const attempts: [string, Promise<Response>][] = [
      ['GET, wrong password', logIn(app, user.username, `${user.password}x`)],
      ['GET, unknown user', logIn(app, unique('nobody'), user.password)],
      ['GET, username in another case', logIn(app, user.username.toUpperCase(), user.password)],
      ['SDK, wrong password', sdkLogIn({ username: user.username, password: 'wrong' })],
      ['SDK, unknown user', sdkLogIn({ username: unique('nobody'), password: 'wrong' })],
      ['POST, wrong password', app.post('/1/login', { username: user.username, password: 'wrong' })],
    ];
    for (const [label, pending] of attempts) {
      const response = await pending;
      assert.equal(response.status, 404, `${label}: ${response.text}`);
      assert.deepEqual(response.body, LOGIN_FAILED, label);
    }
    // A failed login opens no session.
    assert.equal((await sessionsOfUser(app, user.objectId)).length, 1);
  });

  it('asks for the username (200) and the password (201) of a login', async () => {
    assertError(await app.get('/1/login', { query: { password: 'pw' } }), 400, 200, 'no username');
    assertError(await app.get('/1/login', { query: { username: '', password: 'pw' } }), 400, 200, 'empty username');
    assertError(await app.get('/1/login', { query: { username: 'someone' } }), 400, 201, 'no password');
    assertError(await app.get('/1/login', { query: { username: 'someone', password: '' } }), 400, 201, 'empty password');
  });

  it('verifies an imported bcrypt hash and replaces it with argon2id at the first login', async () => {
    for (const minor of ['$2a$', '$2b$', '$2y$']) {
      const user = await signUp(app);
      const imported = bcrypt.hashSync(user.password, 6).replace(/^\$2[aby]\$/, minor);
      const stored = (await storage.documents('_User')).find((doc) => doc.objectId === user.objectId)!;
      await storage.writeDocument('_User', user.objectId, { ...stored.data, _hashed_password: imported });

      // A wrong password neither logs in nor touches the imported hash.
      assert.deepEqual((await logIn(app, user.username, 'not-it')).body, LOGIN_FAILED, minor);
      assert.equal(await storedHash(user.objectId), imported);

      const response = await logIn(app, user.username, user.password);
      assert.equal(response.status, 200, `${minor}: ${response.text}`);
      assert.match(response.body.sessionToken, REVOCABLE_TOKEN);
      const rehashed = await storedHash(user.objectId);
      assert.match(rehashed, /^\$argon2id\$/, minor);
      // The new hash is of the same password: the next login still works, a wrong one still fails.
      assert.equal((await logIn(app, user.username, user.password)).status, 200);
      assert.deepEqual((await logIn(app, user.username, 'not-it')).body, LOGIN_FAILED);
    }
  });

  it('logout ends that session only: every later request with its token gets 209', async () => {
    const user = await signUp(app);
    const other = await newToken(app, user);
    const cls = unique('Open');
    const created = await app.post(`/1/classes/${cls}`, { n: 1 });
    assert.equal(created.status, 201);

    const out = await app.post('/1/logout', {}, as(user.sessionToken));
    assert.equal(out.status, 200, out.text);
    assert.deepEqual(out.body, {});

    const token = as(user.sessionToken);
    const later: [string, Promise<Response>][] = [
      ['me', app.get('/1/users/me', token)],
      ['read a user', app.get(`/1/users/${user.objectId}`, token)],
      ['update the user', app.put(`/1/users/${user.objectId}`, { n: 2 }, token)],
      ['public read', app.get(`/1/classes/${cls}/${created.body.objectId}`, token)],
      ['public query', app.get(`/1/classes/${cls}`, token)],
      ['public write', app.post(`/1/classes/${cls}`, { n: 2 }, token)],
      ['sessions', app.get('/1/sessions', token)],
      ['logout again', app.post('/1/logout', {}, token)],
      ['with the master key too', app.get(`/1/classes/${cls}`, { ...token, key: 'master' })],
    ];
    for (const [label, pending] of later) assertError(await pending, 400, 209, label);
    // The session object is gone; the user's other session still works.
    const left = await sessionsOfUser(app, user.objectId);
    assert.deepEqual(left.map((session) => session.sessionToken), [other]);
    assert.equal(await meStatus(app, other), 200);
  });

  it('/1/users/me: the token\'s user with that token; 209 without a token or with an invalid one', async () => {
    const user = await signUp(app, { email: `${unique('me')}@example.com` });
    const me = await app.get('/1/users/me', as(user.sessionToken));
    assert.equal(me.status, 200);
    assert.equal(me.body.objectId, user.objectId);
    assert.equal(me.body.username, user.username);
    assert.equal(me.body.sessionToken, user.sessionToken);
    assert.equal('password' in me.body || '_hashed_password' in me.body, false);
    // The SDK body form resolves the same token.
    const viaSdk = await http(`${target.url}/1/users/me`, 'POST', {
      raw: JSON.stringify(sdkBody(app.app, { _method: 'GET', _SessionToken: user.sessionToken })),
      headers: { 'Content-Type': 'text/plain' },
    });
    assert.equal(viaSdk.status, 200, viaSdk.text);
    assert.equal(viaSdk.body.objectId, user.objectId);

    assertError(await app.get('/1/users/me'), 400, 209, 'no token');
    assertError(await app.get('/1/users/me', { key: 'master' }), 400, 209, 'master key, no token');
    for (const bad of [`r:${'0'.repeat(32)}`, `${user.sessionToken}x`, user.sessionToken.slice(2), 'garbage']) {
      assertError(await app.get('/1/users/me', as(bad)), 400, 209, bad);
    }
  });
});
