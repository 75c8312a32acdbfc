import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { sdkBody, type AppClient } from '../helpers/client.ts';
import { as, assertError, LEGACY_TOKEN, logIn, meStatus, newUserApp, REVOCABLE_TOKEN, sessionOf, sessionsOfUser, signUp } from '../helpers/users.ts';

/** POST /1/loginAs (docs/api.md "Users"): the master key opens a session for a user. */

eachBackend('log in as a user with the master key', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newUserApp(target);
  });

  it('answers like a login: the user\'s fields and a new session made "login" by "masterkey"', async () => {
    const user = await signUp(app, { color: 'teal', authData: { anonymous: { id: crypto.randomUUID() } } });
    const response = await app.post('/1/loginAs', { userId: user.objectId }, { key: 'master', headers: { 'X-Svc-Installation-Id': 'inst-as' } });
    assert.equal(response.status, 200, response.text);
    const login = await logIn(app, user.username, user.password);
    assert.deepEqual(Object.keys(response.body).sort(), Object.keys(login.body).sort());
    const { sessionToken, ...fields } = response.body;
    const { sessionToken: _other, ...loginFields } = login.body;
    assert.deepEqual(fields, loginFields);
    assert.equal(fields.password, undefined);
    assert.equal(fields.color, 'teal');
    assert.match(sessionToken, REVOCABLE_TOKEN);
    const session = await sessionOf(app, sessionToken);
    assert.deepEqual(session.createdWith, { action: 'login', authProvider: 'masterkey' });
    assert.equal(session.installationId, 'inst-as');
    assert.equal(session.restricted, false);
    const me = await app.get('/1/users/me', as(sessionToken));
    assert.equal(me.body.objectId, user.objectId);
    // The user's own sessions stay.
    assert.equal(await meStatus(app, user.sessionToken), 200);
  });

  it('takes userId from the query string too, and the SDK form', async () => {
    const user = await signUp(app);
    const byQuery = await app.post('/1/loginAs', {}, { key: 'master', query: { userId: user.objectId } });
    assert.equal(byQuery.status, 200, byQuery.text);
    const bySdk = await app.post('/1/loginAs', sdkBody(app.app, { _MasterKey: app.app.masterKey, userId: user.objectId }), { key: 'none' });
    assert.equal(bySdk.status, 200, bySdk.text);
    assert.equal((await sessionsOfUser(app, user.objectId)).length, 3);
  });

  it('needs the master key: 403/119 otherwise, creating no session', async () => {
    const user = await signUp(app);
    const body = { userId: user.objectId };
    assertError(await app.post('/1/loginAs', body), 403, 119, 'REST key');
    assertError(await app.post('/1/loginAs', body, { key: 'client' }), 403, 119, 'client key');
    assertError(await app.post('/1/loginAs', body, as(user.sessionToken)), 403, 119, 'the user itself');
    assertError(await app.post('/1/loginAs', sdkBody(app.app, body), { key: 'none' }), 403, 119, 'JavaScript key');
    assert.equal((await sessionsOfUser(app, user.objectId)).length, 1);
  });

  it('answers 162 without a userId and 404/101 for an unknown user', async () => {
    for (const body of [{}, { userId: '' }, { userId: null }, { userId: 42 }, { userId: ['x'] }]) {
      assertError(await app.post('/1/loginAs', body, { key: 'master' }), 400, 162, JSON.stringify(body));
    }
    assertError(await app.post('/1/loginAs', { userId: 'nosuchuser' }, { key: 'master' }), 404, 101, 'unknown');
    const fresh = await newUserApp(target);
    assertError(await fresh.post('/1/loginAs', { userId: 'nosuchuser' }, { key: 'master' }), 404, 101, 'an app without users');
  });

  it('hands out a legacy token where a login would', async () => {
    const legacy = await newUserApp(target, { requireRevocableSessions: false });
    const user = await signUp(legacy);
    const plain = await legacy.post('/1/loginAs', { userId: user.objectId }, { key: 'master' });
    assert.match(plain.body.sessionToken, LEGACY_TOKEN);
    const revocable = await legacy.post('/1/loginAs', { userId: user.objectId }, { key: 'master', headers: { 'X-Svc-Revocable-Session': '1' } });
    assert.match(revocable.body.sessionToken, REVOCABLE_TOKEN);
  });
});
