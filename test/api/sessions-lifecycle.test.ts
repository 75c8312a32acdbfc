import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { unique, type AppClient, type Response } from '../helpers/client.ts';
import { as, assertError, LEGACY_TOKEN, logIn, meStatus, newToken, newUserApp, restrictedSession, REVOCABLE_TOKEN, sessionOf, sessionsOfUser, signUp } from '../helpers/users.ts';

/**
 * Spec 3.2 and 5 rule 6, decisions.md "Sessions": legacy tokens, session expiry, and revocation
 * that takes effect on the very next request.
 */

const REVOCABLE = { 'X-Svc-Revocable-Session': '1' };

eachBackend('sessions: legacy tokens', (target) => {
  let legacy: AppClient;
  let cls: string;
  let objectId: string;

  before(async () => {
    legacy = await newUserApp(target, { requireRevocableSessions: false });
    cls = unique('Open');
    const created = await legacy.post(`/1/classes/${cls}`, { n: 1 });
    assert.equal(created.status, 201);
    objectId = created.body.objectId;
  });

  it('signs up and logs in with a legacy token, or a revocable one when the client asks', async () => {
    const user = await signUp(legacy);
    assert.match(user.sessionToken, LEGACY_TOKEN);
    assert.match(await newToken(legacy, user), LEGACY_TOKEN);
    assert.match(await newToken(legacy, user, REVOCABLE), REVOCABLE_TOKEN);
    assert.match(await newToken(legacy, user, { 'X-Parse-Revocable-Session': '1' }), REVOCABLE_TOKEN);
    const revocableSignUp = await signUp(legacy, {}, REVOCABLE);
    assert.match(revocableSignUp.sessionToken, REVOCABLE_TOKEN);

    // A legacy token authenticates its user like any other.
    const me = await legacy.get('/1/users/me', as(user.sessionToken));
    assert.equal(me.status, 200);
    assert.equal(me.body.objectId, user.objectId);
    assert.equal((await legacy.put(`/1/users/${user.objectId}`, { color: 'red' }, as(user.sessionToken))).status, 200);
  });

  it('runs a request with an invalid legacy token as anonymous; an invalid revocable token still fails with 209', async () => {
    const user = await signUp(legacy);
    const acl = { [user.objectId]: { read: true, write: true } };
    const own = await legacy.post(`/1/classes/${cls}`, { n: 2, ACL: acl }, as(user.sessionToken));
    assert.equal(own.status, 201);

    const unknown = as('0123456789abcdef0123456789abcdef');
    assert.equal((await legacy.get(`/1/classes/${cls}/${objectId}`, unknown)).status, 200);
    assert.equal((await legacy.post(`/1/classes/${cls}`, { n: 3 }, unknown)).status, 201);
    // Anonymous: the user's private object stays hidden and there is no "me".
    assertError(await legacy.get(`/1/classes/${cls}/${own.body.objectId}`, unknown), 404, 101, 'private object');
    assertError(await legacy.get('/1/users/me', unknown), 400, 209, 'me');

    assertError(await legacy.get(`/1/classes/${cls}/${objectId}`, as(`r:${'0'.repeat(32)}`)), 400, 209, 'unknown revocable token');
    // In an app that requires revocable sessions, an unknown token of either form fails.
    const strict = await newUserApp(target);
    assertError(await strict.get('/1/users/me', unknown), 400, 209, 'strict app');
    assertError(await strict.get(`/1/classes/${cls}`, unknown), 400, 209, 'strict app, public class');
  });

  it('a logged-out legacy token runs as anonymous', async () => {
    const user = await signUp(legacy);
    assert.equal((await legacy.post('/1/logout', {}, as(user.sessionToken))).status, 200);
    assert.equal((await legacy.get(`/1/classes/${cls}/${objectId}`, as(user.sessionToken))).status, 200);
    assertError(await legacy.get('/1/users/me', as(user.sessionToken)), 400, 209, 'me');
    assertError(await legacy.put(`/1/users/${user.objectId}`, { color: 'red' }, as(user.sessionToken)), 400, 206, 'update as anonymous');
  });

  it('the session endpoints refuse a legacy token with 403/119 and serve a revocable one', async () => {
    const user = await signUp(legacy);
    const token = as(user.sessionToken);
    const own = (await sessionsOfUser(legacy, user.objectId))[0]!;
    const attempts: [string, Promise<Response>][] = [
      ['create', legacy.post('/1/sessions', {}, token)],
      ['list', legacy.get('/1/sessions', token)],
      ['me', legacy.get('/1/sessions/me', token)],
      ['by id', legacy.get(`/1/sessions/${own.objectId}`, token)],
      ['update', legacy.put(`/1/sessions/${own.objectId}`, { note: 'x' }, token)],
      ['pair', legacy.put('/1/sessions/me', {}, as(user.sessionToken, { 'X-Svc-Installation-Id': unique('inst') }))],
      ['delete', legacy.delete(`/1/sessions/${own.objectId}`, token)],
    ];
    for (const [label, pending] of attempts) assertError(await pending, 403, 119, label);
    assert.equal(await meStatus(legacy, user.sessionToken), 200);

    const revocable = await newToken(legacy, user, REVOCABLE);
    const listed = await legacy.get('/1/sessions', as(revocable));
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.results.length, 2);
    assert.equal((await legacy.post('/1/sessions', {}, as(revocable))).status, 201);
  });
});

eachBackend('sessions: expiry and revocation', (target) => {
  let app: AppClient;

  before(async () => {
    app = await newUserApp(target);
  });

  /** Polls (bounded) until the token is refused: expiry is a matter of the clock, not of a request. */
  async function until209(client: AppClient, token: string, limitMs: number): Promise<Response> {
    const deadline = Date.now() + limitMs;
    for (;;) {
      const response = await client.get('/1/users/me', as(token));
      if (response.status !== 200 || Date.now() > deadline) return response;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  it('sessions of an app with sessionLength carry expiresAt; without it they never expire', async () => {
    const hour = await newUserApp(target, { sessionLength: 3600 });
    const user = await signUp(hour);
    const session = await sessionOf(hour, user.sessionToken);
    assert.equal(session.expiresAt.__type, 'Date');
    assert.equal(Date.parse(session.expiresAt.iso) - Date.parse(session.createdAt), 3600_000);
    const login = await sessionOf(hour, await newToken(hour, user));
    assert.equal(Date.parse(login.expiresAt.iso) - Date.parse(login.createdAt), 3600_000);
    // A restricted session made through POST /1/sessions expires alike.
    const restricted = await sessionOf(hour, (await restrictedSession(hour, user.sessionToken)).sessionToken);
    assert.equal(restricted.restricted, true);
    assert.equal(Date.parse(restricted.expiresAt.iso) - Date.parse(restricted.createdAt), 3600_000);
    assert.equal('expiresAt' in (await sessionOf(app, (await restrictedSession(app, (await signUp(app)).sessionToken)).sessionToken)), false);
    assert.equal('expiresAt' in (await sessionOf(app, (await signUp(app)).sessionToken)), false);
  });

  it('an expired session answers 209 and is removed', async () => {
    const short = await newUserApp(target, { sessionLength: 2 });
    const user = await signUp(short);
    // Read with the master key: the token itself may already have expired on a slow machine.
    const [session] = await sessionsOfUser(short, user.objectId);
    assert.equal(Date.parse(session!.expiresAt.iso) - Date.parse(session!.createdAt), 2000);
    assertError(await until209(short, user.sessionToken, 30_000), 400, 209, 'expired');
    assert.deepEqual(await sessionsOfUser(short, user.objectId), []);
    assertError(await short.get('/1/sessions/me', as(user.sessionToken)), 400, 209, 'sessions/me');
    // Logging in again gives a new, working session.
    assert.equal((await logIn(short, user.username, user.password)).status, 200);
  });

  it('a deleted session\'s token fails on the next request, even with requests in flight while it was deleted', async () => {
    const user = await signUp(app);
    for (let round = 0; round < 5; round++) {
      const token = await newToken(app, user);
      assert.equal(await meStatus(app, token), 200);
      // Requests still resolving the token while it is deleted must not keep it alive afterwards.
      const inFlight = Array.from({ length: 30 }, () => app.get('/1/users/me', as(token)));
      const ended = round % 2 ? app.post('/1/logout', {}, as(token)) : app.delete(`/1/sessions/${(await sessionOf(app, token)).objectId}`, as(user.sessionToken));
      assert.equal((await ended).status, 200);
      for (let check = 0; check < 5; check++) assertError(await app.get('/1/users/me', as(token)), 400, 209, `round ${round}, check ${check}`);
      await Promise.all(inFlight);
      assertError(await app.get('/1/users/me', as(token)), 400, 209, `round ${round}, after the in-flight requests`);
    }
  });
});
