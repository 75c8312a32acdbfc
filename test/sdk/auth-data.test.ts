import { after, beforeEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { unique } from '../helpers/client.ts';
import { FakeFacebook } from '../helpers/fake-facebook.ts';
import { REVOCABLE_TOKEN, as } from '../helpers/users.ts';
import { Parse, eachBackendWithSdk, rejectsWithCode, sdkRequests } from '../helpers/sdk.ts';

/**
 * Anonymous users (Parse.AnonymousUtils) and linking: Parse.User.logInWith and user.linkWith with
 * Facebook, whose Graph API a local stand-in answers. (Twitter works the same way on the wire,
 * only its check differs; its provider is covered by the HTTP tests in test/api/users-auth-data.)
 */

const MASTER = { key: 'master' } as const;
const facebook = await FakeFacebook.start();
after(() => facebook.close());

const facebookAuth = (id: string, token: string) => ({ id, access_token: token, expiration_date: '2030-01-01T00:00:00.000Z' });

eachBackendWithSdk(
  'SDK anonymous users and linked services',
  (suite) => {
    beforeEach(async () => {
      await Parse.User.logOut();
    });

    async function storedAuthData(objectId: string): Promise<Record<string, any>> {
      const response = await suite.app.get(`/1/users/${objectId}`, MASTER);
      assert.equal(response.status, 200, response.text);
      return response.body.authData;
    }

    it('AnonymousUtils.logIn creates a user linked to anonymous and makes it current', async () => {
      const user = await Parse.AnonymousUtils.logIn();
      assert.ok(user.id);
      assert.match(user.getSessionToken()!, REVOCABLE_TOKEN);
      assert.equal(Parse.User.current()!.id, user.id);
      assert.equal(Parse.AnonymousUtils.isLinked(user), true);
      assert.equal(user.getUsername()!.length, 25);
      const authData = await storedAuthData(user.id!);
      assert.deepEqual(Object.keys(authData), ['anonymous']);
      assert.equal(authData.anonymous.id, user.get('authData').anonymous.id);
      const session = await suite.app.get('/1/sessions/me', as(user.getSessionToken()!));
      assert.deepEqual(session.body.createdWith, { action: 'signup', authProvider: 'anonymous' });

      // Another anonymous login is another user.
      await Parse.User.logOut();
      const second = await Parse.AnonymousUtils.logIn();
      assert.notEqual(second.id, user.id);
    });

    it('logInWith the same anonymous id logs in to the same user with a new session', async () => {
      const authData = { id: crypto.randomUUID() };
      const first = await Parse.User.logInWith('anonymous', { authData });
      await Parse.User.logOut();
      const again = await Parse.User.logInWith('anonymous', { authData });
      assert.equal(again.id, first.id);
      assert.equal(again.existed(), true);
      assert.notEqual(again.getSessionToken(), first.getSessionToken());
      assert.equal(Parse.User.current()!.id, first.id);
    });

    it('an anonymous user who sets a username and password becomes a regular user', async () => {
      const user = await Parse.AnonymousUtils.logIn();
      const username = unique('user');
      user.setUsername(username);
      user.setPassword('converted-password');
      await user.save();
      assert.deepEqual(await storedAuthData(user.id!), undefined);
      await Parse.User.logOut();
      const loggedIn = await Parse.User.logIn(username, 'converted-password');
      assert.equal(loggedIn.id, user.id);
      assert.equal(Parse.AnonymousUtils.isLinked(loggedIn), false);
    });

    it('logInWith facebook signs up, then logs in to the same user; the Graph API is asked each time', async () => {
      const fbId = unique('fb');
      facebook.issue(`${fbId}-t1`, fbId);
      facebook.issue(`${fbId}-t2`, fbId);
      const user = await Parse.User.logInWith('facebook', { authData: facebookAuth(fbId, `${fbId}-t1`) });
      assert.equal(user._isLinked('facebook'), true);
      assert.equal(Parse.User.current()!.id, user.id);
      assert.ok(facebook.requests.some((path) => path.includes(`access_token=${fbId}-t1`)));
      await Parse.User.logOut();

      const again = await Parse.User.logInWith('facebook', { authData: facebookAuth(fbId, `${fbId}-t2`) });
      assert.equal(again.id, user.id);
      assert.equal((await storedAuthData(user.id!)).facebook.access_token, `${fbId}-t2`);
      const session = await suite.app.get('/1/sessions/me', as(again.getSessionToken()!));
      assert.deepEqual(session.body.createdWith, { action: 'login', authProvider: 'facebook' });
    });

    it('a token Facebook does not confirm is 251, an unknown service 252; no user is made', async () => {
      const fbId = unique('fb');
      await rejectsWithCode(() => Parse.User.logInWith('facebook', { authData: facebookAuth(fbId, 'never-issued') }), 251);
      await rejectsWithCode(() => Parse.User.logInWith('myOwnService', { authData: { id: 'x1', token: 'y' } }), 252);
      assert.equal(Parse.User.current(), null);
      const users = await suite.app.get('/1/users', { ...MASTER, query: { where: { 'authData.facebook.id': fbId }, count: 1, limit: 0 } });
      assert.equal(users.body.count, 0, users.text);
    });

    it('linkWith facebook on the current anonymous user links it and drops the anonymous link', async () => {
      const user = await Parse.AnonymousUtils.logIn();
      const fbId = unique('fb');
      facebook.issue(`${fbId}-t`, fbId);
      await user.linkWith('facebook', { authData: facebookAuth(fbId, `${fbId}-t`) });
      const write = sdkRequests.at(-1)!;
      assert.equal(write.method, 'PUT');
      assert.equal(write.path, `classes/_User/${user.id}`);
      assert.equal(user._isLinked('facebook'), true);
      assert.equal(Parse.AnonymousUtils.isLinked(user), false);
      assert.deepEqual(Object.keys(await storedAuthData(user.id!)), ['facebook']);

      // The Facebook account now logs in to this user.
      await Parse.User.logOut();
      const again = await Parse.User.logInWith('facebook', { authData: facebookAuth(fbId, `${fbId}-t`) });
      assert.equal(again.id, user.id);

      // Unlinking removes it; the user stays.
      await again._unlinkFrom('facebook');
      assert.equal(again._isLinked('facebook'), false);
      assert.equal(await storedAuthData(user.id!), undefined);
    });

    it('linking a Facebook account another user has is 208, and the user keeps its links', async () => {
      const fbId = unique('fb');
      facebook.issue(`${fbId}-t`, fbId);
      const owner = await Parse.User.logInWith('facebook', { authData: facebookAuth(fbId, `${fbId}-t`) });
      await Parse.User.logOut();
      const other = await Parse.AnonymousUtils.logIn();
      await rejectsWithCode(() => other.linkWith('facebook', { authData: facebookAuth(fbId, `${fbId}-t`) }), Parse.Error.ACCOUNT_ALREADY_LINKED);
      assert.equal(Parse.AnonymousUtils.isLinked(other), true);
      assert.deepEqual(Object.keys(await storedAuthData(other.id!)), ['anonymous']);
      assert.deepEqual(Object.keys(await storedAuthData(owner.id!)), ['facebook']);
    });
  },
  { auth: { facebook: { graphUrl: facebook.url } } },
);
