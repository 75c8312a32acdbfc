import { beforeEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { unique } from '../helpers/client.ts';
import { REVOCABLE_TOKEN, as } from '../helpers/users.ts';
import { Parse, eachBackendWithSdk, forgetCurrentUser, rejectsWithCode, sdkRequests } from '../helpers/sdk.ts';

/** Parse.User against Basalt: sign-up, login, logout, the current user, become, user saves and queries. */

const MASTER = { key: 'master' } as const;

eachBackendWithSdk('SDK users', (suite) => {
  beforeEach(async () => {
    // Each test starts logged out; logOut ends the session a test left behind.
    await Parse.User.logOut();
    assert.equal(Parse.User.current(), null);
  });

  function credentials(): { username: string; password: string; email: string } {
    const username = unique('user');
    return { username, password: unique('pw'), email: `${username}@example.com` };
  }

  async function signUp(extra: Record<string, unknown> = {}): Promise<{ user: Parse.User; username: string; password: string; email: string }> {
    const fields = credentials();
    const user = new Parse.User();
    user.set({ ...fields, ...extra });
    await user.signUp();
    return { user, ...fields };
  }

  async function stored(objectId: string): Promise<Record<string, any>> {
    const response = await suite.app.get(`/1/users/${objectId}`, MASTER);
    assert.equal(response.status, 200, response.text);
    return response.body;
  }

  it('signUp creates the user, makes it current with a revocable session and keeps no password', async () => {
    const { user, username, email } = await signUp({ favoriteColor: 'blue' });
    assert.ok(user.id);
    assert.match(user.getSessionToken()!, REVOCABLE_TOKEN);
    assert.equal(user.isCurrent(), true);
    assert.equal(Parse.User.current()!.id, user.id);
    assert.equal((await Parse.User.currentAsync())!.id, user.id);
    assert.equal(user.get('password'), undefined);
    assert.equal(user.getUsername(), username);
    assert.equal(user.getEmail(), email);
    assert.equal(user.existed(), false);

    const row = await stored(user.id!);
    assert.deepEqual(
      { username: row.username, email: row.email, favoriteColor: row.favoriteColor, ACL: row.ACL },
      { username, email, favoriteColor: 'blue', ACL: { '*': { read: true }, [user.id!]: { read: true, write: true } } },
    );
    assert.equal('password' in row, false);
    assert.equal(sdkRequests.filter((request) => request.path === 'users').length >= 1, true);
    // The token works on its own.
    const me = await suite.app.get('/1/users/me', as(user.getSessionToken()!));
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.objectId, user.id);
  });

  it('the static Parse.User.signUp and the sign-up errors 202, 203 and 125', async () => {
    const fields = credentials();
    const user = await Parse.User.signUp(fields.username, fields.password, { email: fields.email });
    assert.equal(Parse.User.current()!.id, user.id);
    await Parse.User.logOut();

    // (An empty username or password never leaves the SDK: it refuses them itself.)
    await rejectsWithCode(() => Parse.User.signUp(fields.username, 'other', {}), Parse.Error.USERNAME_TAKEN);
    await rejectsWithCode(() => Parse.User.signUp(unique('user'), 'pw', { email: fields.email }), Parse.Error.EMAIL_TAKEN);
    // Emails are kept in lower case, so the same address in capitals is taken too.
    await rejectsWithCode(() => Parse.User.signUp(unique('user'), 'pw', { email: fields.email.toUpperCase() }), Parse.Error.EMAIL_TAKEN);
    await rejectsWithCode(() => Parse.User.signUp(unique('user'), 'pw', { email: 'not an email' }), Parse.Error.INVALID_EMAIL_ADDRESS);
    assert.equal(Parse.User.current(), null);
    const count = await suite.app.get('/1/users', { ...MASTER, query: { where: { username: fields.username }, count: 1, limit: 0 } });
    assert.equal(count.body.count, 1);
  });

  it('logIn makes the user current with a new session; a wrong password is 101', async () => {
    const { user, username, password } = await signUp({ level: 7 });
    const firstToken = user.getSessionToken()!;
    await Parse.User.logOut();

    const loggedIn = await Parse.User.logIn(username, password);
    assert.equal(loggedIn.id, user.id);
    assert.equal(loggedIn.get('level'), 7);
    assert.equal(loggedIn.get('password'), undefined);
    assert.match(loggedIn.getSessionToken()!, REVOCABLE_TOKEN);
    assert.notEqual(loggedIn.getSessionToken(), firstToken);
    assert.equal(Parse.User.current()!.id, user.id);
    assert.equal(loggedIn.existed(), true);

    // The SDK's POST form of a login works too.
    const viaPost = await Parse.User.logIn(username, password, { usePost: true });
    assert.equal(viaPost.id, user.id);
    assert.equal(sdkRequests.at(-1)!.method, 'POST');
    assert.equal(sdkRequests.at(-1)!.path, 'login');

    await Parse.User.logOut();
    await rejectsWithCode(() => Parse.User.logIn(username, 'wrong'), Parse.Error.OBJECT_NOT_FOUND);
    await rejectsWithCode(() => Parse.User.logIn(unique('nobody'), password), Parse.Error.OBJECT_NOT_FOUND);
    assert.equal(Parse.User.current(), null);
  });

  it('logOut clears the current user and ends its session on the server (209 afterwards)', async () => {
    const { user } = await signUp();
    const token = user.getSessionToken()!;
    await Parse.User.logOut();
    assert.equal(Parse.User.current(), null);
    assert.equal(await Parse.User.currentAsync(), null);
    const me = await suite.app.get('/1/users/me', as(token));
    assert.equal(me.status, 400);
    assert.equal(me.body.code, 209);
    await rejectsWithCode(() => Parse.User.become(token), Parse.Error.INVALID_SESSION_TOKEN);
  });

  it('become takes over a session token; Parse.User.me reads the user of a token', async () => {
    const { user, username } = await signUp({ nick: 'bec' });
    const token = user.getSessionToken()!;
    forgetCurrentUser();
    assert.equal(Parse.User.current(), null);

    const became = await Parse.User.become(token);
    assert.equal(became.id, user.id);
    assert.equal(became.getUsername(), username);
    assert.equal(became.get('nick'), 'bec');
    assert.equal(became.getSessionToken(), token);
    assert.equal(Parse.User.current()!.id, user.id);

    const me = await Parse.User.me(token);
    assert.equal(me.id, user.id);
    assert.equal(me.getSessionToken(), token);
    await rejectsWithCode(() => Parse.User.become('r:00000000000000000000000000000000'), Parse.Error.INVALID_SESSION_TOKEN);
  });

  it('verifyPassword answers the user for the right password and 101 for a wrong one, and changes no current user', async () => {
    const { user, username, password } = await signUp();
    await Parse.User.logOut();
    // The SDK hands back the answer's JSON, not a Parse.User.
    const checked = (await Parse.User.verifyPassword(username, password)) as unknown as Record<string, unknown>;
    assert.equal(checked.objectId, user.id);
    assert.equal(checked.username, username);
    assert.equal(checked.sessionToken, undefined);
    assert.equal(Parse.User.current(), null);
    await rejectsWithCode(() => Parse.User.verifyPassword(username, 'not-the-password'), Parse.Error.OBJECT_NOT_FOUND);
  });

  it('loginAs opens a session for a user with the master key and makes it current', async () => {
    const { user, username } = await signUp();
    const ownToken = user.getSessionToken()!;
    await Parse.User.logOut();
    const as_ = await Parse.User.loginAs(user.id!);
    assert.equal(as_.id, user.id);
    assert.equal(as_.getUsername(), username);
    assert.match(as_.getSessionToken()!, REVOCABLE_TOKEN);
    assert.equal(Parse.User.current()!.id, user.id);
    const session = await suite.app.get('/1/sessions/me', as(as_.getSessionToken()!));
    assert.deepEqual(session.body.createdWith, { action: 'login', authProvider: 'masterkey' });
    await rejectsWithCode(() => Parse.User.loginAs('noSuchUser'), Parse.Error.OBJECT_NOT_FOUND);
    assert.equal((await suite.app.get('/1/users/me', as(ownToken))).status, 400, 'the logOut ended the first session');
  });

  it('requests go out with the current user’s session: its ACL-protected objects are readable', async () => {
    const { user } = await signUp();
    const className = unique('Private');
    const object = new Parse.Object<Record<string, any>>(className, { secret: 1 });
    object.setACL(new Parse.ACL(user));
    await object.save();
    assert.equal((await new Parse.Query(className).get(object.id!)).get('secret'), 1);
    await Parse.User.logOut();
    await rejectsWithCode(() => new Parse.Query(className).get(object.id!), Parse.Error.OBJECT_NOT_FOUND);
  });

  it('saves the current user (PUT /1/classes/_User/<id>) and keeps it current', async () => {
    const { user } = await signUp();
    user.set('nick', 'changed');
    user.increment('logins');
    await user.save();
    assert.equal(user.get('nick'), 'changed');
    assert.equal(user.get('logins'), 1);
    assert.equal(Parse.User.current()!.get('nick'), 'changed');
    const row = await stored(user.id!);
    assert.deepEqual([row.nick, row.logins], ['changed', 1]);
    // The password too: the old one stops working, the session that changed it stays.
    user.setPassword('a-new-password');
    await user.save();
    const me = await suite.app.get('/1/users/me', as(user.getSessionToken()!));
    assert.equal(me.status, 200, me.text);
    await Parse.User.logOut();
    await rejectsWithCode(() => Parse.User.logIn(user.getUsername()!, 'wrong-password'), Parse.Error.OBJECT_NOT_FOUND);
    assert.equal((await Parse.User.logIn(user.getUsername()!, 'a-new-password')).id, user.id);
  });

  it('fetches the current user and refuses to save another user (206)', async () => {
    const other = await signUp();
    await Parse.User.logOut();
    const { user } = await signUp();
    await suite.app.put(`/1/users/${user.id}`, { nick: 'set over http' }, MASTER);
    await user.fetch();
    assert.equal(user.get('nick'), 'set over http');
    const theirs = Parse.User.createWithoutData(other.user.id!) as Parse.User;
    theirs.set('nick', 'hacked');
    await rejectsWithCode(() => theirs.save(), Parse.Error.SESSION_MISSING);
    assert.equal((await stored(other.user.id!)).nick, undefined);
  });

  it('new Parse.Query(Parse.User) finds users; the password is never returned', async () => {
    const { user, username } = await signUp({ team: 'query-team' });
    const found = await new Parse.Query(Parse.User).equalTo('username', username).find();
    assert.deepEqual(found.map((u) => u.id), [user.id]);
    assert.equal(found[0]!.get('team'), 'query-team');
    assert.equal(found[0]!.get('password'), undefined);
    assert.equal((await new Parse.Query(Parse.User).get(user.id!)).getUsername(), username);
    assert.equal(await new Parse.Query(Parse.User).equalTo('team', 'query-team').count(), 1);
  });

  it('destroying the current user deletes it and ends its sessions', async () => {
    const { user, username, password } = await signUp();
    const token = user.getSessionToken()!;
    await user.destroy();
    assert.equal((await suite.app.get(`/1/users/${user.id}`, MASTER)).status, 404);
    assert.equal((await suite.app.get('/1/users/me', as(token))).body.code, 209);
    // The SDK forgets a destroyed current user.
    assert.equal(Parse.User.current(), null);
    await rejectsWithCode(() => Parse.User.logIn(username, password), Parse.Error.OBJECT_NOT_FOUND);
  });

  it('requestPasswordReset answers for a known email, 205 for an unknown one, 125 for a malformed one', async () => {
    const { email } = await signUp();
    await Parse.User.logOut();
    await Parse.User.requestPasswordReset(email);
    await rejectsWithCode(() => Parse.User.requestPasswordReset(`${unique('nobody')}@example.com`), Parse.Error.EMAIL_NOT_FOUND);
    await rejectsWithCode(() => Parse.User.requestPasswordReset('no-at-sign'), Parse.Error.INVALID_EMAIL_ADDRESS);
    await rejectsWithCode(() => Parse.User.requestPasswordReset(''), Parse.Error.EMAIL_MISSING);
  });

  it('changing the email to one another user has is 203 and changes nothing', async () => {
    const first = await signUp();
    await Parse.User.logOut();
    const { user, email } = await signUp();
    user.setEmail(first.email);
    await rejectsWithCode(() => user.save(), Parse.Error.EMAIL_TAKEN);
    assert.equal((await stored(user.id!)).email, email);
  });
});
