import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { unique, type AppClient, type Response } from '../helpers/client.ts';
import { as, assertError, meStatus, newUserApp, restrictedSession, sessionOf, signUp, type TestUser } from '../helpers/users.ts';

/**
 * Spec 5 rule 5: a restricted session may not create, modify or delete users, sessions or roles,
 * and cannot read unrestricted sessions; otherwise it acts as its user.
 */

eachBackend('sessions: restricted', (target) => {
  let app: AppClient;
  let user: TestUser;
  let restricted: { objectId: string; sessionToken: string };
  let sibling: { objectId: string; sessionToken: string };
  let unrestrictedId: string;

  before(async () => {
    app = await newUserApp(target);
    user = await signUp(app, { color: 'gold' });
    restricted = await restrictedSession(app, user.sessionToken);
    sibling = await restrictedSession(app, user.sessionToken);
    unrestrictedId = (await sessionOf(app, user.sessionToken)).objectId;
  });

  it('cannot write users, sessions or roles: 403/119, and nothing changes', async () => {
    const token = as(restricted.sessionToken);
    const attempts: [string, Promise<Response>][] = [
      ['sign up', app.post('/1/users', { username: unique('user'), password: 'pw' }, token)],
      ['update its user', app.put(`/1/users/${user.objectId}`, { color: 'black' }, token)],
      ['delete its user', app.delete(`/1/users/${user.objectId}`, token)],
      ['create a session', app.post('/1/sessions', {}, token)],
      ['update its own session', app.put(`/1/sessions/${restricted.objectId}`, { note: 'x' }, token)],
      ['update another restricted session', app.put(`/1/sessions/${sibling.objectId}`, { note: 'x' }, token)],
      ['update the unrestricted session', app.put(`/1/sessions/${unrestrictedId}`, { note: 'x' }, token)],
      ['delete another restricted session', app.delete(`/1/sessions/${sibling.objectId}`, token)],
      ['delete the unrestricted session', app.delete(`/1/sessions/${unrestrictedId}`, token)],
      ['create a user object', app.post('/1/classes/_User', { username: unique('user'), password: 'pw' }, token)],
      ['create a session object', app.post('/1/classes/_Session', {}, token)],
      ['update a session object', app.put(`/1/classes/_Session/${sibling.objectId}`, { note: 'x' }, token)],
      ['create a role object', app.post('/1/classes/_Role', { name: unique('role'), ACL: {} }, token)],
    ];
    for (const [label, pending] of attempts) assertError(await pending, 403, 119, label);

    const batch = await app.post('/1/batch', { requests: [{ method: 'PUT', path: `/1/users/${user.objectId}`, body: { color: 'black' } }, { method: 'DELETE', path: `/1/sessions/${sibling.objectId}` }] }, token);
    assert.equal(batch.status, 200, batch.text);
    assert.deepEqual(batch.body.map((entry: { error?: { code: number } }) => entry.error?.code), [119, 119]);

    assert.equal((await app.get(`/1/users/${user.objectId}`, { key: 'master' })).body.color, 'gold');
    for (const token of [restricted.sessionToken, sibling.sessionToken, user.sessionToken]) assert.equal(await meStatus(app, token), 200);
    assert.equal('note' in (await sessionOf(app, sibling.sessionToken)), false);
  });

  it('reads its user and restricted sessions, but not unrestricted sessions', async () => {
    const token = as(restricted.sessionToken);
    const me = await app.get('/1/users/me', token);
    assert.equal(me.status, 200);
    assert.equal(me.body.objectId, user.objectId);
    assert.equal((await app.get(`/1/users/${user.objectId}`, token)).status, 200);
    assert.equal((await app.get('/1/users', { ...token, query: { where: { objectId: user.objectId } } })).body.results.length, 1);

    const own = await app.get('/1/sessions/me', token);
    assert.equal(own.status, 200);
    assert.equal(own.body.objectId, restricted.objectId);
    assert.equal((await app.get(`/1/sessions/${sibling.objectId}`, token)).status, 200);
    assertError(await app.get(`/1/sessions/${unrestrictedId}`, token), 404, 101, 'unrestricted by id');
    const listed = await app.get('/1/sessions', token);
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.results.map((session: Record<string, unknown>) => session.objectId).sort(), [restricted.objectId, sibling.objectId].sort());
    for (const session of listed.body.results) assert.equal(session.restricted, true);
    // The same list through a where that names the unrestricted session is still empty.
    const named = await app.get('/1/sessions', { ...token, query: { where: { objectId: unrestrictedId } } });
    assert.deepEqual(named.body.results, []);
  });

  it('cannot reach unrestricted sessions through sub-queries either', async () => {
    // Were this possible, a restricted session could read its user's full token one character
    // at a time with $regex, and so escape its restriction.
    const cls = unique('Probe');
    const probe = await app.post(`/1/classes/${cls}`, { owner: user.objectId, ref: { __type: 'Pointer', className: '_Session', objectId: unrestrictedId } });
    assert.equal(probe.status, 201, probe.text);
    const prefix = user.sessionToken.slice(0, 6);
    const wheres: Record<string, unknown>[] = [
      { owner: { $select: { query: { className: '_Session', where: { sessionToken: { $regex: `^${prefix}` } } }, key: 'user' } } },
      { owner: { $select: { query: { className: '_Session', where: { restricted: false } }, key: 'user' } } },
      { ref: { $inQuery: { className: '_Session', where: { sessionToken: { $regex: `^${prefix}` } } } } },
      { ref: { $inQuery: { className: '_Session', where: {} } } },
    ];
    for (const where of wheres) {
      // The unrestricted session finds the probe: the query itself is sound.
      const full = await app.get(`/1/classes/${cls}`, { ...as(user.sessionToken), query: { where } });
      assert.equal(full.body.results?.length, 1, `unrestricted: ${JSON.stringify(where)} ${full.text}`);
      const limited = await app.get(`/1/classes/${cls}`, { ...as(restricted.sessionToken), query: { where } });
      assert.equal(limited.status, 200, limited.text);
      assert.deepEqual(limited.body.results, [], `restricted: ${JSON.stringify(where)}`);
    }
    // Nor through include.
    const included = await app.get(`/1/classes/${cls}`, { ...as(restricted.sessionToken), query: { include: 'ref' } });
    assert.equal(included.status, 200, included.text);
    assert.equal(JSON.stringify(included.body).includes(user.sessionToken), false);
  });

  it('reads and writes other classes as its user, ACLs included', async () => {
    const token = as(restricted.sessionToken);
    const cls = unique('Note');
    const acl = { [user.objectId]: { read: true, write: true } };
    const created = await app.post(`/1/classes/${cls}`, { text: 'private', ACL: acl }, token);
    assert.equal(created.status, 201, created.text);
    const path = `/1/classes/${cls}/${created.body.objectId}`;
    // Only the user may read it, so a successful read proves the session acts as the user.
    assertError(await app.get(path), 404, 101, 'anonymous read');
    assert.equal((await app.get(path, token)).body.text, 'private');
    assert.equal((await app.put(path, { text: 'edited' }, token)).status, 200);
    assert.equal((await app.get(path, as(user.sessionToken))).body.text, 'edited');
    assert.equal((await app.get(`/1/classes/${cls}`, token)).body.results.length, 1);
    assert.equal((await app.delete(path, token)).status, 200);
    assertError(await app.get(path, as(user.sessionToken)), 404, 101, 'deleted');
  });
});
