import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { sdkBody, type AppClient } from '../helpers/client.ts';
import { as, assertError, meStatus, newToken, newUserApp, restrictedSession, REVOCABLE_TOKEN, sessionOf, sessionsOfUser, signUp } from '../helpers/users.ts';

/**
 * The Parse SDKs reach sessions through /1/classes/_Session: every request there must answer as
 * the same request on /1/sessions does (docs/api.md "Sessions"), with the same stored effect.
 */

const BASES = ['/1/sessions', '/1/classes/_Session'] as const;

eachBackend('sessions through /1/classes/_Session', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newUserApp(target);
  });

  it('creates a restricted session alike: 201, Location, the five fields, custom fields kept', async () => {
    const user = await signUp(app);
    for (const base of BASES) {
      const created = await app.post(base, { device: base }, as(user.sessionToken));
      assert.equal(created.status, 201, `${base} ${created.text}`);
      assert.deepEqual(Object.keys(created.body).sort(), ['createdAt', 'createdWith', 'objectId', 'restricted', 'sessionToken']);
      assert.deepEqual(created.body.createdWith, { action: 'create' });
      assert.equal(created.body.restricted, true);
      assert.match(created.body.sessionToken, REVOCABLE_TOKEN);
      assert.equal(created.headers.get('location'), `${target.url}/1/sessions/${created.body.objectId}`);
      const session = await sessionOf(app, created.body.sessionToken);
      assert.equal(session.device, base);
      assert.equal(session.user.objectId, user.objectId);
      assertError(await app.post(base, {}), 400, 209, `${base} without a token`);
      assertError(await app.post(base, { user: { __type: 'Pointer', className: '_User', objectId: 'x' } }, as(user.sessionToken)), 400, 105, `${base} server field`);
    }
  });

  it('reads and lists only the caller\'s sessions alike; the master key sees all', async () => {
    const user = await signUp(app);
    const second = await newToken(app, user);
    const other = await signUp(app);
    const mine = await sessionOf(app, user.sessionToken);
    const theirs = await sessionOf(app, other.sessionToken);
    const [oneUsers, oneClasses] = await Promise.all(BASES.map((base) => app.get(`${base}/${mine.objectId}`, as(second))));
    assert.equal(oneUsers!.status, 200, oneUsers!.text);
    assert.deepEqual(oneClasses!.body, oneUsers!.body);
    assert.equal(oneClasses!.body.sessionToken, user.sessionToken);
    for (const base of BASES) {
      assertError(await app.get(`${base}/${theirs.objectId}`, as(user.sessionToken)), 404, 101, `${base} another user's`);
      assertError(await app.get(`${base}/${mine.objectId}`), 400, 209, `${base} no token`);
      const listed = await app.get(base, as(user.sessionToken));
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(listed.body.results.map((session: { objectId: string }) => session.objectId).sort(), (await sessionsOfUser(app, user.objectId)).map((session) => session.objectId).sort(), base);
      const filtered = await app.get(base, { ...as(user.sessionToken), query: { where: { sessionToken: second }, keys: 'createdWith' } });
      assert.equal(filtered.body.results.length, 1, base);
      assert.deepEqual(Object.keys(filtered.body.results[0]).sort(), ['ACL', 'createdAt', 'createdWith', 'objectId', 'updatedAt'], base);
      const master = await app.get(base, { key: 'master', query: { where: { user: { __type: 'Pointer', className: '_User', objectId: other.objectId } } } });
      assert.deepEqual(master.body.results.map((session: { objectId: string }) => session.objectId), [theirs.objectId], base);
    }
  });

  it('updates custom fields alike; server fields 105; another user\'s session 101', async () => {
    const user = await signUp(app);
    const other = await signUp(app);
    const mine = await sessionOf(app, user.sessionToken);
    const theirs = await sessionOf(app, other.sessionToken);
    for (const base of BASES) {
      const updated = await app.put(`${base}/${mine.objectId}`, { note: base }, as(user.sessionToken));
      assert.equal(updated.status, 200, updated.text);
      assert.deepEqual(Object.keys(updated.body), ['updatedAt']);
      assert.equal((await sessionOf(app, user.sessionToken)).note, base);
      for (const field of ['sessionToken', 'user', 'restricted', 'createdWith', 'installationId', 'expiresAt', 'ACL']) {
        assertError(await app.put(`${base}/${mine.objectId}`, { [field]: null }, as(user.sessionToken)), 400, 105, `${base} ${field}`);
      }
      assertError(await app.put(`${base}/${theirs.objectId}`, { note: 'x' }, as(user.sessionToken)), 404, 101, `${base} another user's`);
    }
    assert.equal((await sessionOf(app, other.sessionToken)).note, undefined);
  });

  it('deletes alike: the target ends, the caller stays; another user\'s answers 101', async () => {
    const user = await signUp(app);
    const other = await signUp(app);
    const theirs = await sessionOf(app, other.sessionToken);
    for (const base of BASES) {
      const victim = await newToken(app, user);
      const victimId = (await sessionOf(app, victim)).objectId;
      const removed = await app.delete(`${base}/${victimId}`, as(user.sessionToken));
      assert.equal(removed.status, 200, removed.text);
      assert.deepEqual(removed.body, {});
      assert.equal(await meStatus(app, victim), 400, `${base} ended`);
      assert.equal(await meStatus(app, user.sessionToken), 200, `${base} caller stays`);
      assertError(await app.delete(`${base}/${theirs.objectId}`, as(user.sessionToken)), 404, 101, `${base} another user's`);
    }
    assert.equal(await meStatus(app, other.sessionToken), 200);
  });

  it('holds a restricted session to the same limits on both paths', async () => {
    const user = await signUp(app);
    const unrestricted = await sessionOf(app, user.sessionToken);
    const restricted = await restrictedSession(app, user.sessionToken);
    const sibling = await restrictedSession(app, user.sessionToken);
    const token = as(restricted.sessionToken);
    for (const base of BASES) {
      assertError(await app.post(base, {}, token), 403, 119, `${base} create`);
      assertError(await app.put(`${base}/${sibling.objectId}`, { note: 'x' }, token), 403, 119, `${base} update`);
      assertError(await app.delete(`${base}/${sibling.objectId}`, token), 403, 119, `${base} delete`);
      assertError(await app.get(`${base}/${unrestricted.objectId}`, token), 404, 101, `${base} read unrestricted`);
      const listed = await app.get(base, token);
      assert.deepEqual(listed.body.results.map((session: { objectId: string }) => session.objectId).sort(), [restricted.objectId, sibling.objectId].sort(), base);
    }
    assert.equal(await meStatus(app, sibling.sessionToken), 200);
  });

  it('refuses a legacy token with 119 on both paths', async () => {
    const legacy = await newUserApp(target, { requireRevocableSessions: false });
    const user = await signUp(legacy);
    const own = (await sessionsOfUser(legacy, user.objectId))[0]!;
    for (const base of BASES) {
      assertError(await legacy.get(base, as(user.sessionToken)), 403, 119, `${base} list`);
      assertError(await legacy.get(`${base}/${own.objectId}`, as(user.sessionToken)), 403, 119, `${base} one`);
      assertError(await legacy.post(base, {}, as(user.sessionToken)), 403, 119, `${base} create`);
    }
  });

  it('answers through /1/batch and the SDK form alike', async () => {
    const user = await signUp(app);
    for (const base of BASES) {
      const victim = await newToken(app, user);
      const victimId = (await sessionOf(app, victim)).objectId;
      const batch = await app.post('/1/batch', { requests: [
        { method: 'POST', path: base, body: { tag: 'b' } },
        { method: 'PUT', path: `${base}/${victimId}`, body: { note: 'batched' } },
        { method: 'GET', path: `${base}/${victimId}` },
        { method: 'DELETE', path: `${base}/${victimId}` },
        { method: 'PUT', path: `${base}/${victimId}`, body: { note: 'gone' } },
      ] }, as(user.sessionToken));
      assert.equal(batch.status, 200, batch.text);
      const entries = batch.body as Record<string, any>[];
      assert.deepEqual(Object.keys(entries[0]!.success).sort(), ['createdAt', 'createdWith', 'objectId', 'restricted', 'sessionToken'], base);
      assert.deepEqual(Object.keys(entries[1]!.success), ['updatedAt'], base);
      assert.equal(entries[2]!.success.note, 'batched', base);
      assert.deepEqual(entries[3]!.success, {}, base);
      assert.equal(entries[4]!.error.code, 101, base);

      const body = (fields: Record<string, unknown>) => sdkBody(app.app, { _SessionToken: user.sessionToken, ...fields });
      const listed = await app.post(base, body({ _method: 'GET', where: { createdWith: { action: 'create' } } }), { key: 'none' });
      assert.equal(listed.status, 200, listed.text);
      assert.ok(listed.body.results.some((session: { objectId: string }) => session.objectId === entries[0]!.success.objectId), base);
      const target_ = entries[0]!.success.objectId;
      assert.equal((await app.post(`${base}/${target_}`, body({ _method: 'PUT', note: 'sdk' }), { key: 'none' })).status, 200);
      assert.equal((await app.post(`${base}/${target_}`, body({ _method: 'GET' }), { key: 'none' })).body.note, 'sdk');
      assert.equal((await app.post(`${base}/${target_}`, body({ _method: 'DELETE' }), { key: 'none' })).status, 200);
      assert.equal(await meStatus(app, entries[0]!.success.sessionToken), 400, base);
    }
  });

  it('serves "me" under /1/sessions only: /1/classes/_Session/me names no session', async () => {
    const user = await signUp(app);
    const restricted = await restrictedSession(app, user.sessionToken);
    assert.equal((await app.get('/1/sessions/me', as(user.sessionToken))).status, 200);
    assertError(await app.get('/1/classes/_Session/me', as(user.sessionToken)), 404, 101, 'GET');
    assertError(await app.put('/1/classes/_Session/me', {}, as(restricted.sessionToken, { 'X-Svc-Installation-Id': 'inst-me' })), 403, 119, 'PUT by a restricted session');
    assertError(await app.put('/1/classes/_Session/me', { note: 'x' }, as(user.sessionToken)), 404, 101, 'PUT');
    assertError(await app.delete('/1/classes/_Session/me', as(user.sessionToken)), 404, 101, 'DELETE');
    assert.equal((await sessionOf(app, restricted.sessionToken)).installationId, undefined);
  });
});
