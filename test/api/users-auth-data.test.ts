import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient, type Response } from '../helpers/client.ts';
import { FakeFacebook } from '../helpers/fake-facebook.ts';
import { FakeTwitter } from '../helpers/fake-twitter.ts';
import { openStorage } from '../helpers/storage.ts';
import { freePort } from '../helpers/process.ts';

/**
 * authData (spec 2.4.1, 4.3): sign-up and login through anonymous, facebook and twitter, linking
 * and unlinking on PUT /1/users/<objectId>. Facebook and Twitter are local servers that answer
 * as their APIs do (the Twitter one checks the OAuth 1.0a signature); Basalt reaches them at the
 * base URLs of the app's `auth` setting.
 */

const UNLIMITED = { rateLimits: { authRequestsPerMinute: 0 } };
const CONSUMER = { key: 'consumer-key-1', secret: 'consumer-secret-1' };

function assertError(response: Response, status: number, code: number): void {
  assert.equal(response.status, status, `expected ${status}/${code}, got ${response.status} ${response.text}`);
  assert.deepEqual(Object.keys(response.body ?? {}).sort(), ['code', 'error'], response.text);
  assert.equal(response.body.code, code, response.text);
}

function as(token: string) {
  return { headers: { 'X-Svc-Session-Token': token } };
}

function facebookData(id: string, token: string) {
  return { id, access_token: token, expiration_date: '2030-01-01T00:00:00.000Z' };
}

eachBackend('authData', (target) => {
  let facebook: FakeFacebook;
  let twitter: FakeTwitter;
  let app: AppClient;

  before(async () => {
    facebook = await FakeFacebook.start();
    twitter = await FakeTwitter.start(CONSUMER.key, CONSUMER.secret);
    app = await newApp(target, {
      auth: { facebook: { graphUrl: facebook.url }, twitter: { consumerKey: CONSUMER.key, consumerSecret: CONSUMER.secret, apiUrl: twitter.url } },
      ...UNLIMITED,
    });
  });

  after(async () => {
    await facebook?.close();
    await twitter?.close();
  });

  const signUpWith = (authData: Record<string, unknown>, extra: Record<string, unknown> = {}) => app.post('/1/users', { authData, ...extra });

  function twitterData(id: string, token: string, secret: string) {
    return { id, screen_name: `name${id}`, consumer_key: CONSUMER.key, consumer_secret: CONSUMER.secret, auth_token: token, auth_token_secret: secret };
  }

  describe('anonymous', () => {
    it('signs up with a generated unique username: 201, Location, {username, createdAt, objectId, sessionToken}', async () => {
      const first = await signUpWith({ anonymous: { id: randomUUID() } });
      assert.equal(first.status, 201, first.text);
      assert.deepEqual(Object.keys(first.body).sort(), ['createdAt', 'objectId', 'sessionToken', 'username']);
      assert.equal(first.headers.get('location'), `${target.url}/1/users/${first.body.objectId}`);
      assert.match(first.body.sessionToken, /^r:[0-9a-f]{32}$/);
      assert.match(first.body.username, /^[A-Za-z0-9]{20,}$/);
      const second = await signUpWith({ anonymous: { id: randomUUID() } });
      assert.equal(second.status, 201);
      assert.notEqual(second.body.username, first.body.username);
      assert.notEqual(second.body.objectId, first.body.objectId);

      const me = await app.get('/1/users/me', as(first.body.sessionToken));
      assert.equal(me.status, 200);
      assert.equal(me.body.username, first.body.username);
      const session = await app.get('/1/sessions/me', as(first.body.sessionToken));
      assert.deepEqual(session.body.createdWith, { action: 'signup', authProvider: 'anonymous' });
    });

    it('logs in with the same authData: 200, Location, the user\'s fields, authData and a new session token', async () => {
      const id = randomUUID();
      const created = await signUpWith({ anonymous: { id } }, { nickname: 'anon' });
      assert.equal(created.status, 201, created.text);
      const again = await signUpWith({ anonymous: { id } });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.headers.get('location'), `${target.url}/1/users/${created.body.objectId}`);
      assert.equal(again.body.objectId, created.body.objectId);
      assert.equal(again.body.username, created.body.username);
      assert.equal(again.body.nickname, 'anon');
      assert.deepEqual(again.body.authData, { anonymous: { id } });
      assert.equal(typeof again.body.createdAt, 'string');
      assert.equal(typeof again.body.updatedAt, 'string');
      assert.equal('password' in again.body, false);
      assert.match(again.body.sessionToken, /^r:/);
      assert.notEqual(again.body.sessionToken, created.body.sessionToken);
      const session = await app.get('/1/sessions/me', as(again.body.sessionToken));
      assert.deepEqual(session.body.createdWith, { action: 'login', authProvider: 'anonymous' });
    });

    it('of several first sign-ins with one id at once, one creates the user and the others log in to it', async () => {
      const id = randomUUID();
      const answers = await Promise.all([1, 2, 3, 4].map(() => signUpWith({ anonymous: { id } })));
      assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 200, 200, 201], answers.map((answer) => answer.text).join('\n'));
      assert.equal(new Set(answers.map((answer) => answer.body.objectId)).size, 1);
    });

    it('refuses a missing id (250), malformed data (251) and an unknown service (252)', async () => {
      assertError(await signUpWith({ anonymous: {} }), 400, 250);
      assertError(await signUpWith({ anonymous: { id: '' } }), 400, 250);
      assertError(await signUpWith({ anonymous: { id: 42 } }), 400, 251);
      assertError(await signUpWith({ anonymous: 'x' }), 400, 251);
      assertError(await signUpWith({ myspace: { id: '1' } }), 400, 252);
      assertError(await signUpWith({ 'bad key!': { id: '1' } }), 400, 252);
      assertError(await app.post('/1/users', { authData: 'x', username: unique('u'), password: 'pw' }), 400, 251);
    });

    it('becomes a regular user when it sets a password: the anonymous link goes', async () => {
      const id = randomUUID();
      const created = await signUpWith({ anonymous: { id } });
      const username = unique('user');
      const put = await app.put(`/1/users/${created.body.objectId}`, { username, password: 'a-password' }, as(created.body.sessionToken));
      assert.equal(put.status, 200, put.text);
      const login = await app.get('/1/login', { query: { username, password: 'a-password' } });
      assert.equal(login.status, 200, login.text);
      assert.equal(login.body.authData, undefined);
      // The anonymous id now belongs to nobody: it signs up a new user.
      const fresh = await signUpWith({ anonymous: { id } });
      assert.equal(fresh.status, 201);
      assert.notEqual(fresh.body.objectId, created.body.objectId);
    });

    it('keeps authData from other users and from clients without the user\'s session', async () => {
      const id = randomUUID();
      const created = await signUpWith({ anonymous: { id } });
      const other = await signUpWith({ anonymous: { id: randomUUID() } });
      const seen = await app.get(`/1/users/${created.body.objectId}`, as(other.body.sessionToken));
      assert.equal(seen.status, 200);
      assert.equal(seen.body.authData, undefined);
      const found = await app.get('/1/users', { query: { where: { objectId: created.body.objectId } } });
      assert.equal(found.body.results[0].authData, undefined);
      const own = await app.get(`/1/users/${created.body.objectId}`, as(created.body.sessionToken));
      assert.deepEqual(own.body.authData, { anonymous: { id } });
    });

    it('is indexed: a unique index on authData.anonymous.id answers the look-ups', async () => {
      const marker = unique('Marker');
      assert.equal((await app.post(`/1/schemas/${marker}`, {}, { key: 'master' })).status, 201);
      const storage = await openStorage(target, marker);
      try {
        const indexes = await storage.indexesNamed('_User', 'authData:anonymous');
        assert.equal(indexes.length, 1, JSON.stringify([...(await storage.indexes('_User'))]));
        assert.match(indexes[0]![1], /UNIQUE/i);
      } finally {
        await storage.close();
      }
    });
  });

  describe('facebook', () => {
    it('asks the Graph API whose token it is; signs up, then logs in and keeps the newest token', async () => {
      const fbId = String(Date.now()) + String(Math.floor(Math.random() * 1000));
      facebook.issue('fb-token-1', fbId);
      facebook.issue('fb-token-2', fbId);
      const created = await signUpWith({ facebook: facebookData(fbId, 'fb-token-1') });
      assert.equal(created.status, 201, created.text);
      assert.ok(facebook.requests.some((path) => path.startsWith('/me?') && path.includes('access_token=fb-token-1')), facebook.requests.join('\n'));
      const again = await signUpWith({ facebook: facebookData(fbId, 'fb-token-2') });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.objectId, created.body.objectId);
      assert.equal(again.body.authData.facebook.access_token, 'fb-token-2');
      const session = await app.get('/1/sessions/me', as(again.body.sessionToken));
      assert.deepEqual(session.body.createdWith, { action: 'login', authProvider: 'facebook' });
    });

    it('refuses a token Facebook does not know, or one that belongs to someone else (251)', async () => {
      facebook.issue('fb-token-other', 'someone-else');
      assertError(await signUpWith({ facebook: facebookData('12345', 'unknown-token') }), 400, 251);
      assertError(await signUpWith({ facebook: facebookData('12345', 'fb-token-other') }), 400, 251);
      assertError(await signUpWith({ facebook: { id: '12345' } }), 400, 251);
      assertError(await signUpWith({ facebook: { access_token: 'fb-token-other' } }), 400, 250);
    });
  });

  describe('twitter', () => {
    it('checks verify_credentials with a signed request; signs up, then logs in', async () => {
      const id = String(900000 + Math.floor(Math.random() * 99999));
      twitter.issue('tw-token-1', 'tw-secret-1', id, 'someone');
      const created = await signUpWith({ twitter: twitterData(id, 'tw-token-1', 'tw-secret-1') });
      assert.equal(created.status, 201, created.text);
      const again = await signUpWith({ twitter: twitterData(id, 'tw-token-1', 'tw-secret-1') });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.objectId, created.body.objectId);
      assert.equal(again.body.authData.twitter.id, id);
    });

    it('refuses a wrong token secret, another user\'s token and another consumer key (251)', async () => {
      const id = String(800000 + Math.floor(Math.random() * 99999));
      twitter.issue('tw-token-2', 'tw-secret-2', id, 'other');
      const refusedBefore = twitter.refusals.length;
      assertError(await signUpWith({ twitter: twitterData(id, 'tw-token-2', 'wrong-secret') }), 400, 251);
      assert.equal(twitter.refusals.at(refusedBefore), 'bad signature');
      assertError(await signUpWith({ twitter: twitterData('1', 'tw-token-2', 'tw-secret-2') }), 400, 251);
      assertError(await signUpWith({ twitter: { ...twitterData(id, 'tw-token-2', 'tw-secret-2'), consumer_key: 'another-app' } }), 400, 251);
      assertError(await signUpWith({ twitter: { id } }), 400, 251);
    });
  });

  describe('linking and unlinking (PUT /1/users/<objectId>)', () => {
    async function passwordUser(): Promise<{ objectId: string; sessionToken: string; username: string }> {
      const username = unique('user');
      const response = await app.post('/1/users', { username, password: 'pw' });
      assert.equal(response.status, 201, response.text);
      return { objectId: response.body.objectId, sessionToken: response.body.sessionToken, username };
    }

    it('links a service to a user, who can then log in with it; unlinking frees it for another user', async () => {
      const fbId = `link${Date.now()}`;
      facebook.issue(`token-${fbId}`, fbId);
      const owner = await passwordUser();
      const link = await app.put(`/1/users/${owner.objectId}`, { authData: { facebook: facebookData(fbId, `token-${fbId}`) } }, as(owner.sessionToken));
      assert.equal(link.status, 200, link.text);
      assert.deepEqual(Object.keys(link.body), ['updatedAt']);
      const me = await app.get('/1/users/me', as(owner.sessionToken));
      assert.equal(me.body.authData.facebook.id, fbId);
      const viaFacebook = await signUpWith({ facebook: facebookData(fbId, `token-${fbId}`) });
      assert.equal(viaFacebook.status, 200, viaFacebook.text);
      assert.equal(viaFacebook.body.objectId, owner.objectId);
      assert.equal(viaFacebook.body.username, owner.username);

      const other = await passwordUser();
      assertError(await app.put(`/1/users/${other.objectId}`, { authData: { facebook: facebookData(fbId, `token-${fbId}`) } }, as(other.sessionToken)), 400, 208);

      const unlink = await app.put(`/1/users/${owner.objectId}`, { authData: { facebook: null } }, as(owner.sessionToken));
      assert.equal(unlink.status, 200, unlink.text);
      assert.equal((await app.get('/1/users/me', as(owner.sessionToken))).body.authData, undefined);
      const relink = await app.put(`/1/users/${other.objectId}`, { authData: { facebook: facebookData(fbId, `token-${fbId}`) } }, as(other.sessionToken));
      assert.equal(relink.status, 200, relink.text);
      assert.equal((await signUpWith({ facebook: facebookData(fbId, `token-${fbId}`) })).body.objectId, other.objectId);
    });

    it('links a second service beside the first and keeps the first', async () => {
      const anonymousId = randomUUID();
      const created = await signUpWith({ anonymous: { id: anonymousId } });
      const id = String(700000 + Math.floor(Math.random() * 99999));
      twitter.issue(`tw-${id}`, `tw-secret-${id}`, id, 'linked');
      const put = await app.put(`/1/users/${created.body.objectId}`, { authData: { twitter: twitterData(id, `tw-${id}`, `tw-secret-${id}`) } }, as(created.body.sessionToken));
      assert.equal(put.status, 200, put.text);
      const me = await app.get('/1/users/me', as(created.body.sessionToken));
      assert.deepEqual(Object.keys(me.body.authData).sort(), ['anonymous', 'twitter']);
    });

    it('refuses bad authData before changing anything: 251, 252, 250', async () => {
      const user = await passwordUser();
      assertError(await app.put(`/1/users/${user.objectId}`, { authData: { facebook: facebookData('1', 'no-such-token') }, nickname: 'x' }, as(user.sessionToken)), 400, 251);
      assertError(await app.put(`/1/users/${user.objectId}`, { authData: { orkut: { id: '1' } } }, as(user.sessionToken)), 400, 252);
      assertError(await app.put(`/1/users/${user.objectId}`, { authData: { anonymous: { id: null } } }, as(user.sessionToken)), 400, 250);
      assertError(await app.put(`/1/users/${user.objectId}`, { authData: [1] }, as(user.sessionToken)), 400, 251);
      const me = await app.get('/1/users/me', as(user.sessionToken));
      assert.equal(me.body.nickname, undefined);
      assert.equal(me.body.authData, undefined);
    });

    it('refuses authData that leads to two different users (208)', async () => {
      const a = randomUUID();
      const first = await signUpWith({ anonymous: { id: a } });
      const fbId = `two${Date.now()}`;
      facebook.issue(`token-${fbId}`, fbId);
      const owner = await passwordUser();
      assert.equal((await app.put(`/1/users/${owner.objectId}`, { authData: { facebook: facebookData(fbId, `token-${fbId}`) } }, as(owner.sessionToken))).status, 200);
      assertError(await signUpWith({ anonymous: { id: a }, facebook: facebookData(fbId, `token-${fbId}`) }), 400, 208);
      assert.equal((await signUpWith({ anonymous: { id: a } })).body.objectId, first.body.objectId);
    });
  });
});

eachBackend('authData: app settings', (target) => {
  it('refuses a service the app switched off, and twitter without consumer keys (252)', async () => {
    const app = await newApp(target, { auth: { anonymous: { enabled: false } }, ...UNLIMITED });
    assertError(await app.post('/1/users', { authData: { anonymous: { id: randomUUID() } } }), 400, 252);
    assertError(await app.post('/1/users', { authData: { twitter: { id: '1', auth_token: 't', auth_token_secret: 's' } } }), 400, 252);
  });

  it('with appIds, refuses a Facebook token issued to another Facebook app; with appSecret, sends the proof', async () => {
    const facebook = await FakeFacebook.start();
    try {
      const app = await newApp(target, { auth: { facebook: { graphUrl: facebook.url, appIds: ['fb-app-1'], appSecret: 'fb-secret' } }, ...UNLIMITED });
      facebook.appSecret = 'fb-secret';
      facebook.issue('ours', 'fb-user-1', 'fb-app-1');
      facebook.issue('theirs', 'fb-user-1', 'fb-app-2');
      assertError(await app.post('/1/users', { authData: { facebook: facebookData('fb-user-1', 'theirs') } }), 400, 251);
      const accepted = await app.post('/1/users', { authData: { facebook: facebookData('fb-user-1', 'ours') } });
      assert.equal(accepted.status, 201, accepted.text);
      assert.ok(facebook.requests.some((path) => path.startsWith('/app?')));
      // Without the right secret the Graph API refuses the calls.
      const wrongSecret = await newApp(target, { auth: { facebook: { graphUrl: facebook.url, appSecret: 'other-secret' } }, ...UNLIMITED });
      assertError(await wrongSecret.post('/1/users', { authData: { facebook: facebookData('fb-user-1', 'ours') } }), 400, 251);
    } finally {
      await facebook.close();
    }
  });

  it('answers 251 when the service cannot be reached', async () => {
    const closed = await freePort();
    const app = await newApp(target, { auth: { facebook: { graphUrl: `http://127.0.0.1:${closed}` } }, ...UNLIMITED });
    assertError(await app.post('/1/users', { authData: { facebook: facebookData('1', 'token') } }), 400, 251);
  });

  it('refuses malformed auth settings when the app is written', async () => {
    for (const auth of [{ twitter: { consumerKey: 'k' } }, { facebook: { graphUrl: 'ftp://x' } }, { myspace: {} }, { anonymous: { enabled: 'yes' } }, 'x']) {
      const response = await fetch(`${target.url}/1/apps`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Svc-Email': process.env.TEST_ADMIN_EMAIL ?? 'admin@test.local', 'X-Svc-Password': process.env.TEST_ADMIN_PASSWORD ?? 'admin-password' },
        body: JSON.stringify({ appName: unique('app'), auth }),
      });
      assert.equal(response.status, 400, JSON.stringify(auth));
      assert.equal(((await response.json()) as { code: number }).code, 107);
    }
  });
});
