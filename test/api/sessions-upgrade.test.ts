import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { sdkBody, type AppClient } from '../helpers/client.ts';
import { as, assertError, LEGACY_TOKEN, meStatus, newToken, newUserApp, restrictedSession, REVOCABLE_TOKEN, sessionOf, sessionsOfUser, signUp, TIMESTAMP } from '../helpers/users.ts';

/** POST /1/upgradeToRevocableSession (docs/api.md "Sessions"): a legacy token exchanged for a revocable session. */

const SESSION_KEYS = ['ACL', 'createdAt', 'createdWith', 'objectId', 'restricted', 'sessionToken', 'updatedAt', 'user'];

eachBackend('upgrade to a revocable session', (target) => {
  let legacy: AppClient;
  before(async () => {
    legacy = await newUserApp(target, { requireRevocableSessions: false });
  });

  it('exchanges a legacy token for a revocable session; the legacy token ends', async () => {
    const user = await signUp(legacy);
    assert.match(user.sessionToken, LEGACY_TOKEN);
    const response = await legacy.post('/1/upgradeToRevocableSession', {}, as(user.sessionToken));
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(Object.keys(response.body).sort(), SESSION_KEYS);
    assert.match(response.body.sessionToken, REVOCABLE_TOKEN);
    assert.deepEqual(response.body.createdWith, { action: 'upgrade' });
    assert.equal(response.body.restricted, false);
    assert.deepEqual(response.body.user, { __type: 'Pointer', className: '_User', objectId: user.objectId });
    assert.deepEqual(response.body.ACL, { [user.objectId]: { read: true, write: true } });
    assert.match(response.body.createdAt, TIMESTAMP);
    // The answer is the stored session, as GET /1/sessions/me shows it.
    assert.deepEqual(await sessionOf(legacy, response.body.sessionToken), response.body);
    const me = await legacy.get('/1/users/me', as(response.body.sessionToken));
    assert.equal(me.body.objectId, user.objectId);
    // The legacy token now runs as nobody (spec 5 rule 6): no user of its own any more.
    assertError(await legacy.get('/1/users/me', as(user.sessionToken)), 400, 209, 'old token');
    assert.deepEqual((await sessionsOfUser(legacy, user.objectId)).map((session) => session.objectId), [response.body.objectId]);
  });

  it('takes the installation of the request, or else the legacy session\'s, and the app\'s session length', async () => {
    const timed = await newUserApp(target, { requireRevocableSessions: false, sessionLength: 3600 });
    const user = await signUp(timed, {}, { 'X-Svc-Installation-Id': 'inst-legacy' });
    const kept = await timed.post('/1/upgradeToRevocableSession', {}, as(user.sessionToken));
    assert.equal(kept.status, 200, kept.text);
    assert.equal(kept.body.installationId, 'inst-legacy');
    assert.equal(kept.body.expiresAt.__type, 'Date');
    const left = Date.parse(kept.body.expiresAt.iso) - Date.now();
    assert.ok(left > 3500_000 && left <= 3600_000, String(left));

    const other = await newToken(timed, user);
    const moved = await timed.post('/1/upgradeToRevocableSession', {}, as(other, { 'X-Svc-Installation-Id': 'inst-new' }));
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.body.installationId, 'inst-new');
  });

  it('answers the SDK form: a POST whose body carries the keys and the token', async () => {
    const user = await signUp(legacy);
    const response = await legacy.post('/1/upgradeToRevocableSession', sdkBody(legacy.app, { _SessionToken: user.sessionToken }), { key: 'none' });
    assert.equal(response.status, 200, response.text);
    assert.match(response.body.sessionToken, REVOCABLE_TOKEN);
    assert.equal(await meStatus(legacy, user.sessionToken), 400);
  });

  it('gives a revocable token a new session too and keeps its own, as Parse Server does', async () => {
    const user = await signUp(legacy, {}, { 'X-Svc-Revocable-Session': '1' });
    assert.match(user.sessionToken, REVOCABLE_TOKEN);
    const response = await legacy.post('/1/upgradeToRevocableSession', {}, as(user.sessionToken));
    assert.equal(response.status, 200, response.text);
    assert.notEqual(response.body.sessionToken, user.sessionToken);
    assert.deepEqual(response.body.createdWith, { action: 'upgrade' });
    assert.equal(await meStatus(legacy, user.sessionToken), 200);
    assert.equal(await meStatus(legacy, response.body.sessionToken), 200);
    assert.equal((await sessionsOfUser(legacy, user.objectId)).length, 2);
  });

  it('refuses a restricted session (119), a request without a valid token (209), and changes nothing', async () => {
    const strict = await newUserApp(target);
    const user = await signUp(strict);
    const restricted = await restrictedSession(strict, user.sessionToken);
    assertError(await strict.post('/1/upgradeToRevocableSession', {}, as(restricted.sessionToken)), 403, 119, 'restricted');
    assertError(await strict.post('/1/upgradeToRevocableSession', {}), 400, 209, 'no token');
    assertError(await strict.post('/1/upgradeToRevocableSession', {}, { key: 'master' }), 400, 209, 'master key alone');
    assertError(await strict.post('/1/upgradeToRevocableSession', {}, as(`r:${'0'.repeat(32)}`)), 400, 209, 'unknown token');
    assertError(await legacy.post('/1/upgradeToRevocableSession', {}, as('0123456789abcdef0123456789abcdef')), 400, 209, 'unknown legacy token');
    assert.equal((await sessionsOfUser(strict, user.objectId)).length, 2);
  });
});
