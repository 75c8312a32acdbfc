import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { unique, type AppClient, type Response } from '../helpers/client.ts';
import { as, assertError, logIn, LOGIN_FAILED, meStatus, newUserApp, restrictedSession, sessionsOfUser, signUp } from '../helpers/users.ts';

/**
 * Spec 4.3 and 5, decisions.md: reading, changing and deleting users. Only the user itself or
 * the master key may change a user; anyone else gets 206, a restricted session 119.
 */

eachBackend('users: get, update, delete', (target) => {
  let app: AppClient;

  before(async () => {
    app = await newUserApp(target);
  });

  const read = async (objectId: string) => (await app.get(`/1/users/${objectId}`, { key: 'master' })).body as Record<string, any>;

  it('reads a user by id with or without a token; an unknown id is 404/101', async () => {
    const user = await signUp(app, { color: 'blue' });
    for (const options of [{}, as(user.sessionToken), { key: 'master' as const }]) {
      const response = await app.get(`/1/users/${user.objectId}`, options);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.username, user.username);
      assert.equal(response.body.color, 'blue');
      assert.equal('sessionToken' in response.body, false);
    }
    assertError(await app.get(`/1/users/${unique('none')}`, { key: 'master' }), 404, 101);
  });

  it('updates the user with its own token or the master key: {updatedAt} and the stored change', async () => {
    const user = await signUp(app);
    const own = await app.put(`/1/users/${user.objectId}`, { color: 'green', visits: { __op: 'Increment', amount: 2 } }, as(user.sessionToken));
    assert.equal(own.status, 200, own.text);
    assert.deepEqual(Object.keys(own.body).sort(), ['updatedAt', 'visits']);
    assert.equal(own.body.visits, 2);
    let stored = await read(user.objectId);
    assert.equal(stored.color, 'green');
    assert.equal(stored.updatedAt, own.body.updatedAt);

    const master = await app.put(`/1/users/${user.objectId}`, { color: 'teal' }, { key: 'master' });
    assert.equal(master.status, 200, master.text);
    assert.deepEqual(Object.keys(master.body), ['updatedAt']);
    stored = await read(user.objectId);
    assert.equal(stored.color, 'teal');
    assert.equal(stored.visits, 2);
  });

  it('answers 206 to anyone else who changes or deletes a user, and changes nothing', async () => {
    const user = await signUp(app, { color: 'gold' });
    const intruder = await signUp(app);
    const attempts: [string, Promise<Response>][] = [
      ['update with another token', app.put(`/1/users/${user.objectId}`, { color: 'black' }, as(intruder.sessionToken))],
      ['update without a token', app.put(`/1/users/${user.objectId}`, { color: 'black' })],
      ['password without a token', app.put(`/1/users/${user.objectId}`, { password: 'taken-over' })],
      ['delete with another token', app.delete(`/1/users/${user.objectId}`, as(intruder.sessionToken))],
      ['delete without a token', app.delete(`/1/users/${user.objectId}`)],
    ];
    for (const [label, pending] of attempts) assertError(await pending, 400, 206, label);
    const stored = await read(user.objectId);
    assert.equal(stored.color, 'gold');
    assert.equal((await logIn(app, user.username, user.password)).status, 200);
    assert.equal(await meStatus(app, user.sessionToken), 200);
  });

  it('refuses changes to the user from its own restricted session with 119', async () => {
    const user = await signUp(app, { color: 'gold' });
    const restricted = await restrictedSession(app, user.sessionToken);
    assertError(await app.put(`/1/users/${user.objectId}`, { color: 'black' }, as(restricted.sessionToken)), 403, 119, 'update');
    assertError(await app.put(`/1/users/${user.objectId}`, { password: 'new' }, as(restricted.sessionToken)), 403, 119, 'password');
    assertError(await app.delete(`/1/users/${user.objectId}`, as(restricted.sessionToken)), 403, 119, 'delete');
    assert.equal((await read(user.objectId)).color, 'gold');
    assert.equal((await logIn(app, user.username, user.password)).status, 200);
  });

  it('changes the username only to an unused one (else 202), and login follows it', async () => {
    const user = await signUp(app);
    const other = await signUp(app);
    assertError(await app.put(`/1/users/${user.objectId}`, { username: other.username }, as(user.sessionToken)), 400, 202, 'taken');
    assertError(await app.put(`/1/users/${user.objectId}`, { username: other.username }, { key: 'master' }), 400, 202, 'taken, master key');
    assertError(await app.put(`/1/users/${user.objectId}`, { username: '' }, as(user.sessionToken)), 400, 200, 'empty');
    assert.equal((await read(user.objectId)).username, user.username);

    const renamed = unique('renamed');
    const response = await app.put(`/1/users/${user.objectId}`, { username: renamed }, as(user.sessionToken));
    assert.equal(response.status, 200, response.text);
    assert.equal((await read(user.objectId)).username, renamed);
    assert.deepEqual((await logIn(app, user.username, user.password)).body, LOGIN_FAILED);
    assert.equal((await logIn(app, renamed, user.password)).status, 200);
    // Its old name is free again.
    assert.equal((await app.post('/1/users', { username: user.username, password: 'pw' })).status, 201);
  });

  it('changes the email only to an unused one, whatever its case (else 203), and checks its form (125)', async () => {
    const user = await signUp(app, { email: `${unique('a')}@example.com` });
    const other = await signUp(app, { email: `${unique('b')}@example.com` });
    const taken = (await read(other.objectId)).email as string;
    assertError(await app.put(`/1/users/${user.objectId}`, { email: taken.toUpperCase() }, as(user.sessionToken)), 400, 203, 'taken');
    assertError(await app.put(`/1/users/${user.objectId}`, { email: 'not-an-email' }, as(user.sessionToken)), 400, 125, 'malformed');
    const fresh = `${unique('C')}@Example.com`;
    assert.equal((await app.put(`/1/users/${user.objectId}`, { email: fresh }, as(user.sessionToken))).status, 200);
    assert.equal((await read(user.objectId)).email, fresh.toLowerCase());
  });

  it('a password change: the old password fails, the new one works, the user\'s other sessions end', async () => {
    const user = await signUp(app);
    const second = (await logIn(app, user.username, user.password)).body.sessionToken as string;
    const onDevice = (await logIn(app, user.username, user.password, { 'X-Svc-Installation-Id': unique('inst') })).body.sessionToken as string;
    const restricted = await restrictedSession(app, second);
    const bystander = await signUp(app);

    const changed = await app.put(`/1/users/${user.objectId}`, { password: 'brand-new' }, as(user.sessionToken));
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(Object.keys(changed.body), ['updatedAt']);
    assert.deepEqual((await logIn(app, user.username, user.password)).body, LOGIN_FAILED);
    const fresh = await logIn(app, user.username, 'brand-new');
    assert.equal(fresh.status, 200);

    // revokeSessionOnPasswordChange is on by default: every session but the caller's has ended.
    for (const token of [second, onDevice, restricted.sessionToken]) assertError(await app.get('/1/users/me', as(token)), 400, 209);
    assert.equal(await meStatus(app, user.sessionToken), 200);
    const left = (await sessionsOfUser(app, user.objectId)).map((session) => session.sessionToken).sort();
    assert.deepEqual(left, [user.sessionToken, fresh.body.sessionToken].sort());
    assert.equal(await meStatus(app, bystander.sessionToken), 200);
  });

  it('a password change by the master key ends every session of the user', async () => {
    const user = await signUp(app);
    const second = (await logIn(app, user.username, user.password)).body.sessionToken as string;
    assert.equal((await app.put(`/1/users/${user.objectId}`, { password: 'set-by-admin' }, { key: 'master' })).status, 200);
    for (const token of [user.sessionToken, second]) assertError(await app.get('/1/users/me', as(token)), 400, 209);
    assert.deepEqual(await sessionsOfUser(app, user.objectId), []);
    assert.equal((await logIn(app, user.username, 'set-by-admin')).status, 200);
  });

  it('keeps the other sessions on a password change when revokeSessionOnPasswordChange is false', async () => {
    const keeping = await newUserApp(target, { revokeSessionOnPasswordChange: false });
    const user = await signUp(keeping);
    const second = (await logIn(keeping, user.username, user.password)).body.sessionToken as string;
    assert.equal((await keeping.put(`/1/users/${user.objectId}`, { password: 'brand-new' }, as(user.sessionToken))).status, 200);
    assert.equal(await meStatus(keeping, second), 200);
    assert.equal(await meStatus(keeping, user.sessionToken), 200);
    assert.deepEqual((await logIn(keeping, user.username, user.password)).body, LOGIN_FAILED);
    assert.equal((await logIn(keeping, user.username, 'brand-new')).status, 200);
  });

  it('deletes the user with its own token: 200 {}, gone, its sessions ended, its name free', async () => {
    const user = await signUp(app);
    const second = (await logIn(app, user.username, user.password)).body.sessionToken as string;
    const deleted = await app.delete(`/1/users/${user.objectId}`, as(user.sessionToken));
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(deleted.body, {});
    assertError(await app.get(`/1/users/${user.objectId}`, { key: 'master' }), 404, 101, 'read after delete');
    for (const token of [user.sessionToken, second]) assertError(await app.get('/1/users/me', as(token)), 400, 209);
    assert.deepEqual(await sessionsOfUser(app, user.objectId), []);
    assert.deepEqual((await logIn(app, user.username, user.password)).body, LOGIN_FAILED);
    assert.equal((await app.post('/1/users', { username: user.username, password: 'pw' })).status, 201);
  });

  it('deletes a user with the master key; a missing user is 404/101', async () => {
    const user = await signUp(app);
    const deleted = await app.delete(`/1/users/${user.objectId}`, { key: 'master' });
    assert.equal(deleted.status, 200, deleted.text);
    assertError(await app.get('/1/users/me', as(user.sessionToken)), 400, 209);
    assertError(await app.delete(`/1/users/${user.objectId}`, { key: 'master' }), 404, 101, 'again');
  });

  it('queries /1/users with where, order, limit, count and keys, over the users the caller may read', async () => {
    const team = unique('team');
    const users = [];
    for (const rank of [3, 1, 2]) users.push(await signUp(app, { team, rank }));
    const [third, first] = users;
    // The first-ranked user hides itself from everyone else.
    const hide = await app.put(`/1/users/${first!.objectId}`, { ACL: { [first!.objectId]: { read: true, write: true } } }, as(first!.sessionToken));
    assert.equal(hide.status, 200, hide.text);

    const query = { where: { team }, order: 'rank', keys: 'username,rank', count: 1 };
    const ranks = (response: Response) => response.body.results.map((user: Record<string, unknown>) => user.rank);
    const byMaster = await app.get('/1/users', { key: 'master', query });
    assert.equal(byMaster.status, 200, byMaster.text);
    assert.deepEqual(ranks(byMaster), [1, 2, 3]);
    assert.equal(byMaster.body.count, 3);
    assert.deepEqual(Object.keys(byMaster.body.results[0]).sort(), ['ACL', 'createdAt', 'objectId', 'rank', 'updatedAt', 'username']);

    const byOther = await app.get('/1/users', { ...as(third!.sessionToken), query });
    assert.deepEqual(ranks(byOther), [2, 3]);
    assert.equal(byOther.body.count, 2);
    assertError(await app.get(`/1/users/${first!.objectId}`, as(third!.sessionToken)), 404, 101, 'hidden user by id');
    assert.deepEqual(ranks(await app.get('/1/users', { ...as(first!.sessionToken), query })), [1, 2, 3]);
    assert.deepEqual(ranks(await app.get('/1/users', { query: { ...query, where: { team, rank: { $gte: 2 } }, order: '-rank', limit: 1 } })), [3]);
  });
});
