import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { unique, type AppClient, type Response } from '../helpers/client.ts';
import { as, assertError, logIn, meStatus, newToken, newUserApp, restrictedSession, REVOCABLE_TOKEN, sessionOf, sessionsOfUser, signUp, TIMESTAMP } from '../helpers/users.ts';

/** Spec 2.7, 3.2 and 4.5, decisions.md "Sessions": the session endpoints. */

const SERVER_FIELDS: Record<string, unknown> = {
  sessionToken: `r:${'a'.repeat(32)}`,
  user: { __type: 'Pointer', className: '_User', objectId: 'someoneElse' },
  restricted: false,
  createdWith: { action: 'login' },
  installationId: 'inst',
  expiresAt: { __type: 'Date', iso: '2099-01-01T00:00:00.000Z' },
  ACL: { '*': { read: true, write: true } },
  objectId: 'chosen',
  createdAt: '2020-01-01T00:00:00.000Z',
  updatedAt: '2020-01-01T00:00:00.000Z',
};

eachBackend('sessions', (target) => {
  let app: AppClient;

  before(async () => {
    app = await newUserApp(target);
  });

  const installation = (id: string) => ({ 'X-Svc-Installation-Id': id });

  it('keeps one session per user and installation: a new login there replaces the earlier one', async () => {
    const user = await signUp(app);
    const device = unique('inst');
    const first = await newToken(app, user, installation(device));
    const second = await newToken(app, user, installation(device));
    assertError(await app.get('/1/users/me', as(first)), 400, 209, 'replaced session');
    assert.equal(await meStatus(app, second), 200);

    // Another installation, no installation, and another user on the same installation all stay.
    const elsewhere = await newToken(app, user, installation(unique('inst')));
    const someone = await signUp(app);
    const theirs = await newToken(app, someone, installation(device));
    for (const token of [user.sessionToken, second, elsewhere]) assert.equal(await meStatus(app, token), 200);
    assert.equal(await meStatus(app, theirs), 200);
    const onDevice = (await sessionsOfUser(app, user.objectId)).filter((session) => session.installationId === device);
    assert.deepEqual(onDevice.map((session) => session.sessionToken), [second]);
    assert.equal((await sessionOf(app, second)).installationId, device);
  });

  it('of parallel logins from one installation exactly one keeps its session', async () => {
    const user = await signUp(app);
    const device = unique('inst');
    const responses = await Promise.all(Array.from({ length: 10 }, () => logIn(app, user.username, user.password, installation(device))));
    for (const response of responses) assert.equal(response.status, 200, response.text);
    const onDevice = (await sessionsOfUser(app, user.objectId)).filter((session) => session.installationId === device);
    assert.equal(onDevice.length, 1, JSON.stringify(onDevice));
    const working = [];
    for (const response of responses) if ((await meStatus(app, response.body.sessionToken)) === 200) working.push(response.body.sessionToken);
    assert.deepEqual(working, [onDevice[0]!.sessionToken]);
  });

  it('a sign-up from an installation is replaced by the next login from it, under both header prefixes', async () => {
    const device = unique('inst');
    const user = await signUp(app, {}, installation(device));
    assert.equal((await sessionOf(app, user.sessionToken)).installationId, device);
    const login = await newToken(app, user, { 'X-Parse-Installation-Id': device });
    assertError(await app.get('/1/users/me', as(user.sessionToken)), 400, 209);
    assert.equal((await sessionsOfUser(app, user.objectId)).length, 1);
    assert.equal(await meStatus(app, login), 200);
  });

  it('POST /1/sessions: 201 and exactly {createdAt, createdWith, objectId, restricted, sessionToken}', async () => {
    const user = await signUp(app);
    const response = await app.post('/1/sessions', { device: 'thermostat' }, as(user.sessionToken, installation(unique('inst'))));
    assert.equal(response.status, 201, response.text);
    assert.deepEqual(Object.keys(response.body).sort(), ['createdAt', 'createdWith', 'objectId', 'restricted', 'sessionToken']);
    assert.deepEqual(response.body.createdWith, { action: 'create' });
    assert.equal(response.body.restricted, true);
    assert.match(response.body.sessionToken, REVOCABLE_TOKEN);
    assert.match(response.body.createdAt, TIMESTAMP);
    assert.equal(response.headers.get('location'), `${target.url}/1/sessions/${response.body.objectId}`);

    // It is the user's, with the custom field and no installation (spec 3.2: installationId blank).
    const created = await sessionOf(app, response.body.sessionToken);
    assert.equal(created.objectId, response.body.objectId);
    assert.deepEqual(created.user, { __type: 'Pointer', className: '_User', objectId: user.objectId });
    assert.equal(created.device, 'thermostat');
    assert.equal('installationId' in created, false);
    assert.deepEqual(created.ACL, { [user.objectId]: { read: true, write: true } });
    assert.equal((await app.get('/1/users/me', as(response.body.sessionToken))).body.objectId, user.objectId);
    // The caller's session is untouched.
    assert.equal(await meStatus(app, user.sessionToken), 200);
  });

  it('POST /1/sessions refuses server fields (105), a missing token (209) and the master key alone (119)', async () => {
    const user = await signUp(app);
    for (const [field, value] of Object.entries(SERVER_FIELDS)) {
      assertError(await app.post('/1/sessions', { [field]: value }, as(user.sessionToken)), 400, 105, field);
    }
    assertError(await app.post('/1/sessions', {}), 400, 209, 'no token');
    assertError(await app.post('/1/sessions', {}, { key: 'master' }), 403, 119, 'master key');
    assert.equal((await sessionsOfUser(app, user.objectId)).length, 1);
  });

  it('GET /1/sessions/me and /1/sessions/<objectId>: the session with its fields', async () => {
    const user = await signUp(app);
    const device = unique('inst');
    const token = await newToken(app, user, installation(device));
    const me = await app.get('/1/sessions/me', as(token));
    assert.equal(me.status, 200, me.text);
    assert.deepEqual(Object.keys(me.body).sort(), ['ACL', 'createdAt', 'createdWith', 'installationId', 'objectId', 'restricted', 'sessionToken', 'updatedAt', 'user']);
    assert.equal(me.body.sessionToken, token);
    assert.equal(me.body.installationId, device);
    assert.equal(me.body.restricted, false);
    assert.deepEqual(me.body.createdWith, { action: 'login', authProvider: 'password' });
    assert.deepEqual(me.body.ACL, { [user.objectId]: { read: true, write: true } });

    // The user's other session reads it by id; the same object.
    const byId = await app.get(`/1/sessions/${me.body.objectId}`, as(user.sessionToken));
    assert.equal(byId.status, 200, byId.text);
    assert.deepEqual(byId.body, me.body);
    assertError(await app.get(`/1/sessions/${unique('none')}`, as(token)), 404, 101, 'unknown id');
    assertError(await app.get('/1/sessions/me'), 400, 209, 'no token');
  });

  it('another user\'s session is 404/101 to read, change or delete, and stays as it was', async () => {
    const owner = await signUp(app);
    const intruder = await signUp(app);
    const theirs = await sessionOf(app, owner.sessionToken);
    const attempts: [string, Promise<Response>][] = [
      ['read', app.get(`/1/sessions/${theirs.objectId}`, as(intruder.sessionToken))],
      ['update', app.put(`/1/sessions/${theirs.objectId}`, { note: 'mine' }, as(intruder.sessionToken))],
      ['delete', app.delete(`/1/sessions/${theirs.objectId}`, as(intruder.sessionToken))],
    ];
    for (const [label, pending] of attempts) assertError(await pending, 404, 101, label);
    assert.equal(await meStatus(app, owner.sessionToken), 200);
    assert.deepEqual(await sessionOf(app, owner.sessionToken), theirs);
  });

  it('GET /1/sessions lists only the caller\'s user\'s sessions, with where and count', async () => {
    const user = await signUp(app);
    const device = unique('inst');
    await newToken(app, user, installation(device));
    await restrictedSession(app, user.sessionToken);
    const someone = await signUp(app);

    const all = await app.get('/1/sessions', { ...as(user.sessionToken), query: { count: 1 } });
    assert.equal(all.status, 200, all.text);
    assert.equal(all.body.count, 3);
    for (const session of all.body.results) assert.equal(session.user.objectId, user.objectId);
    assert.equal(all.body.results.some((session: Record<string, unknown>) => session.sessionToken === someone.sessionToken), false);

    const filtered = await app.get('/1/sessions', { ...as(user.sessionToken), query: { where: { installationId: device } } });
    assert.deepEqual(filtered.body.results.map((session: Record<string, unknown>) => session.installationId), [device]);
    // A where naming another user cannot widen the list.
    const widened = await app.get('/1/sessions', { ...as(user.sessionToken), query: { where: { user: { __type: 'Pointer', className: '_User', objectId: someone.objectId } } } });
    assert.deepEqual(widened.body.results, []);
    assertError(await app.get('/1/sessions'), 400, 209, 'no token');
  });

  it('PUT /1/sessions/<objectId> sets custom fields: {updatedAt}; server fields are refused and the ACL stays', async () => {
    const user = await signUp(app);
    const other = await newToken(app, user);
    const session = await sessionOf(app, other);
    const response = await app.put(`/1/sessions/${session.objectId}`, { label: 'work laptop', seen: 3 }, as(user.sessionToken));
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(Object.keys(response.body), ['updatedAt']);
    const after = await sessionOf(app, other);
    assert.equal(after.label, 'work laptop');
    assert.equal(after.seen, 3);
    assert.equal(after.updatedAt, response.body.updatedAt);

    for (const [field, value] of Object.entries(SERVER_FIELDS)) {
      assertError(await app.put(`/1/sessions/${session.objectId}`, { [field]: value, label: 'changed' }, as(user.sessionToken)), 400, 105, field);
    }
    assertError(await app.put(`/1/sessions/${session.objectId}`, { ACL: { [user.objectId]: { read: true } } }, { key: 'master' }), 400, 105, 'ACL with the master key');
    assert.deepEqual(await sessionOf(app, other), after);
    assert.equal(await meStatus(app, other), 200);
  });

  it('DELETE /1/sessions/<objectId> ends another session of the user; the caller stays logged in', async () => {
    const user = await signUp(app);
    const other = await newToken(app, user);
    const doomed = await sessionOf(app, other);
    const deleted = await app.delete(`/1/sessions/${doomed.objectId}`, as(user.sessionToken));
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(deleted.body, {});
    assertError(await app.get('/1/users/me', as(other)), 400, 209, 'deleted session');
    assert.equal(await meStatus(app, user.sessionToken), 200);
    assertError(await app.delete(`/1/sessions/${doomed.objectId}`, as(user.sessionToken)), 404, 101, 'again');

    // Deleting its own session by id logs the caller out.
    const own = await sessionOf(app, user.sessionToken);
    assert.equal((await app.delete(`/1/sessions/${own.objectId}`, as(user.sessionToken))).status, 200);
    assertError(await app.get('/1/users/me', as(user.sessionToken)), 400, 209, 'own session deleted');
  });

  it('PUT /1/sessions/me pairs a restricted session with an installation; an unrestricted one is refused', async () => {
    const user = await signUp(app);
    const restricted = await restrictedSession(app, user.sessionToken);
    const device = unique('inst');
    assertError(await app.put('/1/sessions/me', {}, as(restricted.sessionToken)), 400, 135, 'no installation id');
    const paired = await app.put('/1/sessions/me', {}, as(restricted.sessionToken, installation(device), 'client'));
    assert.equal(paired.status, 200, paired.text);
    assert.deepEqual(Object.keys(paired.body), ['updatedAt']);
    const session = await sessionOf(app, restricted.sessionToken);
    assert.equal(session.installationId, device);
    assert.equal(session.restricted, true);
    assert.equal(await meStatus(app, restricted.sessionToken), 200);

    const unrestricted = await app.put('/1/sessions/me', {}, as(user.sessionToken, installation(unique('inst')), 'client'));
    assertError(unrestricted, 403, 119, 'unrestricted');
    assert.equal('installationId' in (await sessionOf(app, user.sessionToken)), false);
  });

  it('a login from the installation a restricted session is paired with replaces it (one session per pair)', async () => {
    const user = await signUp(app);
    const restricted = await restrictedSession(app, user.sessionToken);
    const device = unique('inst');
    assert.equal((await app.put('/1/sessions/me', {}, as(restricted.sessionToken, installation(device)))).status, 200);
    const login = await newToken(app, user, installation(device));
    assertError(await app.get('/1/users/me', as(restricted.sessionToken)), 400, 209);
    const onDevice = (await sessionsOfUser(app, user.objectId)).filter((session) => session.installationId === device);
    assert.deepEqual(onDevice.map((session) => session.sessionToken), [login]);
  });

  it('pairing replaces the session the user had on that installation (one session per pair)', async () => {
    const user = await signUp(app);
    const device = unique('inst');
    const onDevice = await newToken(app, user, installation(device));
    const elsewhere = await newToken(app, user, installation(unique('inst')));
    const restricted = await restrictedSession(app, user.sessionToken);
    assert.equal((await app.put('/1/sessions/me', {}, as(restricted.sessionToken, installation(device)))).status, 200);
    assertError(await app.get('/1/users/me', as(onDevice)), 400, 209, 'replaced by the pairing');
    for (const token of [restricted.sessionToken, elsewhere, user.sessionToken]) assert.equal(await meStatus(app, token), 200);
    const paired = (await sessionsOfUser(app, user.objectId)).filter((session) => session.installationId === device);
    assert.deepEqual(paired.map((session) => session.objectId), [restricted.objectId]);
  });

  it('a session token cannot be found through another user\'s query: sub-queries on sessions see own sessions only', async () => {
    const owner = await signUp(app);
    const prober = await signUp(app);
    const cls = unique('Probe');
    assert.equal((await app.post(`/1/classes/${cls}`, { t: owner.sessionToken })).status, 201);
    const where = { t: { $select: { query: { className: '_Session', where: {} }, key: 'sessionToken' } } };
    const probed = await app.get(`/1/classes/${cls}`, { ...as(prober.sessionToken), query: { where } });
    assert.equal(probed.status, 200, probed.text);
    assert.deepEqual(probed.body.results, []);
    const own = await app.get(`/1/classes/${cls}`, { ...as(owner.sessionToken), query: { where } });
    assert.equal(own.body.results.length, 1);
    // Logging in does not reveal other sessions either.
    const login = await logIn(app, owner.username, owner.password);
    assert.equal(JSON.stringify(login.body).includes(owner.sessionToken), false);
  });
});
