import { beforeEach, it } from 'node:test';
import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { unique } from '../helpers/client.ts';
import { LEGACY_TOKEN, REVOCABLE_TOKEN, as } from '../helpers/users.ts';
import { Parse, eachBackendWithSdk, forgetCurrentUser, rejectsWithCode, sdkRequests } from '../helpers/sdk.ts';

/** Parse.Session: the current session, session queries and deletes, revocable and legacy tokens. */

const MASTER = { key: 'master' } as const;

async function newUser(): Promise<{ user: Parse.User; username: string; password: string }> {
  const username = unique('user');
  const password = unique('pw');
  const user = await Parse.User.signUp(username, password, {});
  return { user, username, password };
}

eachBackendWithSdk('SDK sessions', (suite) => {
  beforeEach(async () => {
    await Parse.User.logOut();
  });

  it('Parse.Session.current() is the session of the current user’s token', async () => {
    const { user } = await newUser();
    assert.equal(Parse.Session.isCurrentSessionRevocable(), true);
    const session = await Parse.Session.current();
    assert.ok(session instanceof Parse.Session);
    assert.equal(session.className, '_Session');
    assert.equal(session.getSessionToken(), user.getSessionToken());
    assert.equal(session.get('user').id, user.id);
    assert.deepEqual(session.get('createdWith'), { action: 'signup', authProvider: 'password' });
    assert.equal(session.get('restricted'), false);
    assert.equal(sdkRequests.at(-1)!.path, 'sessions/me');
    const stored = await suite.app.get(`/1/sessions/${session.id}`, MASTER);
    assert.equal(stored.status, 200, stored.text);
    assert.equal(stored.body.sessionToken, user.getSessionToken());
  });

  it('new Parse.Query(Parse.Session) finds only the current user’s sessions', async () => {
    const { user, username, password } = await newUser();
    const firstToken = user.getSessionToken()!;
    forgetCurrentUser();
    // Another device: a login from the same installation would replace the first session.
    await Parse.User.logIn(username, password, { installationId: randomUUID() });
    const secondToken = Parse.User.current()!.getSessionToken()!;
    // Someone else's session is not listed.
    const otherToken = (await suite.app.post('/1/users', { username: unique('other'), password: 'pw' })).body.sessionToken;
    assert.ok(otherToken);

    const sessions = await new Parse.Query(Parse.Session).find();
    assert.deepEqual(sessions.map((session) => session.getSessionToken()).sort(), [firstToken, secondToken].sort());
    for (const session of sessions) assert.equal(session.get('user').id, user.id);
    assert.equal(await new Parse.Query(Parse.Session).count(), 2);
  });

  it('a custom field saved on the current session through Parse.Session', async () => {
    await newUser();
    const session = await Parse.Session.current();
    session.set('device', 'test-runner');
    await session.save();
    const stored = await suite.app.get(`/1/sessions/${session.id}`, MASTER);
    assert.equal(stored.body.device, 'test-runner');
    const again = await new Parse.Query(Parse.Session).get(session.id!);
    assert.equal(again.get('device'), 'test-runner');
    // (The SDK itself refuses to set the server's fields: sessionToken, user, restricted, …)
  });

  it('destroying a session through Parse.Session ends it (209 afterwards); the current one stays', async () => {
    const { user, username, password } = await newUser();
    const oldToken = user.getSessionToken()!;
    forgetCurrentUser();
    await Parse.User.logIn(username, password, { installationId: randomUUID() });
    const [old] = await new Parse.Query(Parse.Session).equalTo('sessionToken', oldToken).find();
    assert.ok(old);
    await old.destroy();
    const gone = await suite.app.get('/1/users/me', as(oldToken));
    assert.equal(gone.body.code, 209);
    const current = await Parse.Session.current();
    assert.equal(current.getSessionToken(), Parse.User.current()!.getSessionToken());
  });

  it('a second login from the same installation replaces that installation’s session', async () => {
    const { user, username, password } = await newUser();
    const first = user.getSessionToken()!;
    const installationId = await Parse.CoreManager.getInstallationController().currentInstallationId();
    forgetCurrentUser();
    const again = await Parse.User.logIn(username, password);
    const sessions = await suite.app.get('/1/sessions', { ...MASTER, query: { where: { user: { __type: 'Pointer', className: '_User', objectId: user.id } } } });
    assert.deepEqual(sessions.body.results.map((session: { sessionToken: string }) => session.sessionToken), [again.getSessionToken()]);
    assert.equal(sessions.body.results[0].installationId, installationId);
    assert.equal((await suite.app.get('/1/users/me', as(first))).body.code, 209);
  });

  it('a request with an ended session token fails with 209; logOut fails with 209 and forgets the user', async () => {
    const { user } = await newUser();
    const token = user.getSessionToken()!;
    const session = await suite.app.get('/1/sessions/me', as(token));
    assert.equal((await suite.app.delete(`/1/sessions/${session.body.objectId}`, MASTER)).status, 200);
    await rejectsWithCode(() => Parse.Session.current(), Parse.Error.INVALID_SESSION_TOKEN);
    await rejectsWithCode(() => new Parse.Query(unique('Any')).find(), Parse.Error.INVALID_SESSION_TOKEN);
    assert.equal(Parse.User.current()!.id, user.id);
    // logOut's request fails with 209 too (as with Parse Server), yet the SDK forgets the user.
    await rejectsWithCode(() => Parse.User.logOut(), Parse.Error.INVALID_SESSION_TOKEN);
    assert.equal(Parse.User.current(), null);
    assert.deepEqual(await new Parse.Query(unique('Any')).find(), []);
  });
});

eachBackendWithSdk(
  'SDK sessions of an app that still hands out legacy tokens',
  (suite) => {
    beforeEach(async () => {
      await Parse.User.logOut();
      Parse.CoreManager.set('FORCE_REVOCABLE_SESSION', false);
    });

    it('signUp gets a legacy token; with enableRevocableSession a revocable one', async () => {
      const { user } = await newUser();
      assert.match(user.getSessionToken()!, LEGACY_TOKEN);
      assert.equal(Parse.Session.isCurrentSessionRevocable(), false);
      await Parse.User.logOut();

      await Parse.User.enableRevocableSession();
      const { user: revocable, username, password } = await newUser();
      assert.match(revocable.getSessionToken()!, REVOCABLE_TOKEN);
      assert.equal(sdkRequests.at(-1)!.path, 'users');
      await Parse.User.logOut();
      const loggedIn = await Parse.User.logIn(username, password);
      assert.match(loggedIn.getSessionToken()!, REVOCABLE_TOKEN);
      assert.equal(Parse.Session.isCurrentSessionRevocable(), true);
    });

    it('_upgradeToRevocableSession swaps the legacy token for a revocable one', async () => {
      const { user } = await newUser();
      const legacy = user.getSessionToken()!;
      assert.match(legacy, LEGACY_TOKEN);
      await user._upgradeToRevocableSession();
      const upgraded = user.getSessionToken()!;
      assert.match(upgraded, REVOCABLE_TOKEN);
      assert.equal(Parse.User.current()!.getSessionToken(), upgraded);
      assert.equal((await suite.app.get('/1/users/me', as(upgraded))).body.objectId, user.id);
      assert.equal((await suite.app.get('/1/users/me', as(legacy))).body.code, 209);
      const session = await Parse.Session.current();
      assert.equal(session.getSessionToken(), upgraded);
      assert.deepEqual(session.get('createdWith'), { action: 'upgrade' });
    });
  },
  { requireRevocableSessions: false },
);
