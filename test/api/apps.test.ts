import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { http, unique } from '../helpers/client.ts';
import { ADMIN } from '../helpers/targets.ts';
import { assertError } from '../helpers/users.ts';
import { KEY_FIELDS, ONE_MB_AND_MORE, YEAR, apps, assertApp, assertNotCreated, createApp, listed, marker, readApp, type Call, type Headers } from '../helpers/apps.ts';

/**
 * Spec 4.12 and 5: the `/1/apps` endpoints, authenticated by an account (email and password, or
 * account key), their refusals (docs/api.md "Apps") and what each refusal leaves stored. Apps
 * cannot be deleted and other files create apps meanwhile, so nothing here counts all apps: each
 * test finds its own by a name or a setting no other test uses.
 */

eachBackend('apps', (target) => {
  const base = target.url;

  describe('account credentials', () => {
    it('answers 401/903 on every route without account credentials, and changes nothing', async () => {
      const app = await createApp(base);
      const newName = unique('app');
      const routes: [string, string, unknown][] = [
        ['GET', '', undefined],
        ['GET', `/${app.applicationId}`, undefined],
        ['POST', '', { appName: newName }],
        ['PUT', `/${app.applicationId}`, { appName: newName }],
        ['POST', `/${app.applicationId}`, { appName: newName }],
      ];
      const incomplete: [string, Headers][] = [
        ['no credentials', {}],
        ['an email without a password', { 'X-Svc-Email': ADMIN.email }],
        ['a password without an email', { 'X-Svc-Password': ADMIN.password }],
        ['an empty account key', { 'X-Svc-Account-Key': '' }],
        ['an empty password', { 'X-Svc-Email': ADMIN.email, 'X-Svc-Password': '' }],
      ];
      for (const [method, path, body] of routes) {
        for (const [label, headers] of incomplete) {
          const response = await apps(base, method, path, { body, headers });
          assertError(response, 401, 903, `${method} /1/apps${path} with ${label}:`);
          assert.equal(response.body.error, 'The apps endpoints need X-Svc-Email and X-Svc-Password, or X-Svc-Account-Key.');
        }
      }
      assert.deepEqual(await readApp(base, app.applicationId), app);
      await assertNotCreated(base, (candidate) => candidate.appName === newName, 'without credentials');
    });

    it('answers a wrong password and an unknown email alike, with 401/903, and changes nothing', async () => {
      const app = await createApp(base);
      const newName = unique('app');
      const wrong: [string, Headers][] = [
        ['a wrong password', { 'X-Svc-Email': ADMIN.email, 'X-Svc-Password': `${ADMIN.password}x` }],
        ['the password in another case', { 'X-Svc-Email': ADMIN.email, 'X-Svc-Password': ADMIN.password.toUpperCase() }],
        ['an unknown email', { 'X-Svc-Email': `${unique('nobody')}@test.local`, 'X-Svc-Password': ADMIN.password }],
      ];
      for (const [label, headers] of wrong) {
        for (const [method, path, body] of [['GET', '', undefined], ['GET', `/${app.applicationId}`, undefined], ['POST', '', { appName: newName }], ['PUT', `/${app.applicationId}`, { appName: newName }], ['POST', `/${app.applicationId}`, { appName: newName }]] as const) {
          const response = await apps(base, method, path, { body, headers });
          // One message for both, so that the answer does not tell which emails have accounts.
          assert.deepEqual({ status: response.status, body: response.body }, { status: 401, body: { code: 903, error: 'Invalid account credentials.' } }, `${method} ${path} with ${label}`);
        }
      }
      assert.deepEqual(await readApp(base, app.applicationId), app);
      await assertNotCreated(base, (candidate) => candidate.appName === newName, 'with wrong credentials');
      // The email is not case-sensitive; the password is.
      assert.deepEqual(await readApp(base, app.applicationId, { 'X-Svc-Email': ADMIN.email.toUpperCase(), 'X-Svc-Password': ADMIN.password }), app);
    });

    it('does not read app keys, Basic authentication or the SDK body form', async () => {
      const app = await createApp(base);
      const newName = unique('app');
      const appKeys: [string, Headers][] = [
        ['the master key', { 'X-Svc-Application-Id': app.applicationId, 'X-Svc-Master-Key': app.masterKey }],
        ['the REST key', { 'X-Svc-Application-Id': app.applicationId, 'X-Svc-REST-API-Key': app.restKey }],
        ['Basic authentication', { Authorization: `Basic ${Buffer.from(`${app.applicationId}:${app.masterKey}`).toString('base64')}` }],
      ];
      for (const [label, headers] of appKeys) {
        assertError(await apps(base, 'GET', '', { headers }), 401, 903, `list with ${label}:`);
        assertError(await apps(base, 'GET', `/${app.applicationId}`, { headers }), 401, 903, `read with ${label}:`);
        assertError(await apps(base, 'PUT', `/${app.applicationId}`, { body: { appName: newName }, headers }), 401, 903, `update with ${label}:`);
        assertError(await apps(base, 'POST', '', { body: { appName: newName }, headers }), 401, 903, `create with ${label}:`);
      }
      const sdkForm = { _ApplicationId: app.applicationId, _MasterKey: app.masterKey, appName: newName };
      assertError(await apps(base, 'POST', '', { raw: JSON.stringify(sdkForm), headers: {} }), 401, 903, 'create with the SDK body form:');
      assertError(await apps(base, 'POST', `/${app.applicationId}`, { raw: JSON.stringify(sdkForm), headers: {} }), 401, 903, 'update with the SDK body form:');
      assert.deepEqual(await readApp(base, app.applicationId), app);
      await assertNotCreated(base, (candidate) => candidate.appName === newName, 'with app keys');
    });

    it('accepts the X-Parse- twins of the email and password headers', async () => {
      const app = await createApp(base);
      assert.deepEqual(await readApp(base, app.applicationId, { 'X-Parse-Email': ADMIN.email, 'X-Parse-Password': ADMIN.password }), app);
    });
  });

  describe('reading and creating', () => {
    it('creates an app: 201, its Location, the documented fields with default settings and fresh keys', async () => {
      const appName = unique('app');
      const response = await apps(base, 'POST', '', { body: { appName, sessionLength: 3600, passwordPolicy: { minLength: 8 } } });
      assert.equal(response.status, 201, response.text);
      assertApp(base, response.body, appName, { sessionLength: 3600, passwordPolicy: { minLength: 8 } });
      assert.equal(response.headers.get('location'), `${base}/1/apps/${response.body.applicationId}`);
    });

    it('lists a newly created app as GET reads it, and another new app has other keys', async () => {
      const first = await createApp(base, { clientPushEnabled: true });
      const second = await createApp(base);
      const results = await listed(base);
      assert.deepEqual(results.filter((app) => app.applicationId === first.applicationId), [first]);
      assert.deepEqual(results.filter((app) => app.applicationId === second.applicationId), [second]);
      assert.deepEqual(await readApp(base, first.applicationId), first);
      for (const field of ['applicationId', ...KEY_FIELDS]) assert.notEqual(first[field], second[field], field);
    });

    it('gives the created app keys that work against /1/classes, and only for that app', async () => {
      const app = await createApp(base);
      const other = await createApp(base);
      const cls = unique('AppKeys');
      const asApp = (key: Headers) => ({ 'X-Svc-Application-Id': app.applicationId, ...key });
      const created = await http(`${base}/1/classes/${cls}`, 'POST', { body: { n: 1 }, headers: asApp({ 'X-Svc-REST-API-Key': app.restKey }) });
      assert.equal(created.status, 201, created.text);
      const read = await http(`${base}/1/classes/${cls}/${created.body.objectId}`, 'GET', { headers: asApp({ 'X-Svc-Master-Key': app.masterKey }) });
      assert.equal(read.status, 200, read.text);
      assert.equal(read.body.n, 1);
      const byClientKey = await http(`${base}/1/classes/${cls}`, 'GET', { headers: asApp({ 'X-Svc-Client-Key': app.clientKey }) });
      assert.deepEqual(byClientKey.body.results.map((object: { n: number }) => object.n), [1]);

      const crossed = await http(`${base}/1/classes/${cls}`, 'GET', { headers: { 'X-Svc-Application-Id': other.applicationId, 'X-Svc-REST-API-Key': app.restKey } });
      assertError(crossed, 401, 903, "one app's key under another app's id:");
      const otherClass = await http(`${base}/1/classes/${cls}`, 'GET', { headers: { 'X-Svc-Application-Id': other.applicationId, 'X-Svc-Master-Key': other.masterKey } });
      assert.deepEqual(otherClass.body, { results: [] });
    });

    it('answers 404/101 for GET of an application id that names no app', async () => {
      const app = await createApp(base);
      const otherCase = app.applicationId.toLowerCase() === app.applicationId ? app.applicationId.toUpperCase() : app.applicationId.toLowerCase();
      for (const id of [unique('noapp'), otherCase, `${app.applicationId}x`, app.applicationId.slice(0, 39), encodeURIComponent(app.appName)]) {
        assertError(await apps(base, 'GET', `/${id}`), 404, 101, `GET /1/apps/${id}:`);
      }
    });
  });

  describe('refused creations', () => {
    it('refuses a POST without appName with 400/135, and creates nothing', async () => {
      const found = marker();
      for (const call of [{ body: { filesURL: found } }, { body: { filesURL: found, appname: 'lower case' } }, { body: {} }, {}] as Call[]) {
        assertError(await apps(base, 'POST', '', call), 400, 135, JSON.stringify(call.body));
      }
      await assertNotCreated(base, (app) => app.filesURL === found, 'without appName');
    });

    it('refuses an appName that is not a string (number, boolean, object, array, null) with 400/135', async () => {
      const found = marker();
      for (const appName of [42, 0, true, { name: 'x' }, ['x'], [], null]) {
        assertError(await apps(base, 'POST', '', { body: { appName, filesURL: found } }), 400, 135, JSON.stringify(appName));
      }
      await assertNotCreated(base, (app) => app.filesURL === found, 'with an appName of a wrong type');
    });

    it('refuses an empty or blank appName with 400/135', async () => {
      const found = marker();
      for (const appName of ['', ' ', '\t\n ']) {
        assertError(await apps(base, 'POST', '', { body: { appName, filesURL: found } }), 400, 135, JSON.stringify(appName));
      }
      await assertNotCreated(base, (app) => app.filesURL === found, 'with a blank appName');
    });

    it('takes an appName of 200 characters and refuses one of 201 with 400/107', async () => {
      const prefix = unique('long');
      const longest = prefix + 'n'.repeat(200 - prefix.length);
      const created = await apps(base, 'POST', '', { body: { appName: longest } });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.appName, longest);
      const refused = `${longest}n`;
      assertError(await apps(base, 'POST', '', { body: { appName: refused } }), 400, 107, 'POST of 201 characters:');
      await assertNotCreated(base, (app) => app.appName === refused, 'with a 201-character appName');
      for (const method of ['PUT', 'POST']) {
        assertError(await apps(base, method, `/${created.body.applicationId}`, { body: { appName: refused } }), 400, 107, `${method} of 201 characters:`);
      }
      assert.deepEqual(await readApp(base, created.body.applicationId), created.body);
      // Characters are code points: 200 emoji (400 UTF-16 units) are a name, 201 are not.
      const emoji = await apps(base, 'POST', '', { body: { appName: '😀'.repeat(200) } });
      assert.equal(emoji.status, 201, emoji.text);
      assert.equal(emoji.body.appName, '😀'.repeat(200));
      assertError(await apps(base, 'PUT', `/${emoji.body.applicationId}`, { body: { appName: '😀'.repeat(201) } }), 400, 107, 'PUT of 201 emoji:');
      assert.deepEqual(await readApp(base, emoji.body.applicationId), emoji.body);
    });

    it('refuses a body over 1 MB with 413/116, and creates nothing', async () => {
      const prefix = unique('huge');
      const response = await apps(base, 'POST', '', { body: { appName: prefix + 'x'.repeat(ONE_MB_AND_MORE) } });
      assertError(response, 413, 116, 'a 1.1 MB appName:');
      await assertNotCreated(base, (app) => String(app.appName).startsWith(prefix), 'over 1 MB');
    });

    it('refuses malformed JSON with 400/107, and creates nothing', async () => {
      const appName = unique('app');
      for (const raw of [`{"appName":"${appName}"`, `{appName:"${appName}"}`, `{"appName":"${appName}"}}`, `{"appName":"${appName}",}`, `{"appName":"${appName}"}{"a":1}`]) {
        assertError(await apps(base, 'POST', '', { raw }), 400, 107, raw);
      }
      await assertNotCreated(base, (app) => app.appName === appName, 'malformed JSON');
    });

    it('refuses a body that is not a JSON object (array, string, number, null) with 400/107', async () => {
      const appName = unique('app');
      for (const raw of [JSON.stringify([{ appName }]), '[]', JSON.stringify(appName), '42', 'null', 'true']) {
        assertError(await apps(base, 'POST', '', { raw }), 400, 107, raw);
      }
      await assertNotCreated(base, (app) => app.appName === appName, 'a body that is not an object');
    });

    it('refuses key fields, dashboardURL and unknown settings in a POST with 400/107, and creates nothing', async () => {
      const appName = unique('app');
      for (const field of ['applicationId', ...KEY_FIELDS, 'dashboardURL', 'colour', 'settings', 'toString', 'constructor', 'hasOwnProperty']) {
        assertError(await apps(base, 'POST', '', { body: { appName, [field]: 'chosen' } }), 400, 107, field);
      }
      await assertNotCreated(base, (app) => app.appName === appName, 'with a key field or an unknown setting');
    });

    it('refuses a setting of a wrong type in a POST with 400/107, and creates nothing', async () => {
      const appName = unique('app');
      for (const setting of [{ clientPushEnabled: 'yes' }, { sessionLength: -1 }, { passwordPolicy: { minLength: 0 } }, { filesURL: 'ftp://files.example' }]) {
        assertError(await apps(base, 'POST', '', { body: { appName, ...setting } }), 400, 107, JSON.stringify(setting));
      }
      await assertNotCreated(base, (app) => app.appName === appName, 'with a setting of a wrong type');
    });
  });

  describe('updates', () => {
    it('answers 404/101 for PUT and POST-as-update of an application id that names no app, and creates none', async () => {
      const id = unique('noapp');
      for (const method of ['PUT', 'POST']) {
        assertError(await apps(base, method, `/${id}`, { body: { appName: unique('app') } }), 404, 101, `${method} /1/apps/${id}:`);
        assertError(await apps(base, method, `/${id}`, { body: {} }), 404, 101, `${method} /1/apps/${id} with an empty body:`);
      }
      assertError(await apps(base, 'GET', `/${id}`), 404, 101, 'the id afterwards:');
      await assertNotCreated(base, (app) => app.applicationId === id, 'by an update');
    });

    it('updates name and settings through PUT and POST alike; null clears an object setting', async () => {
      const app = await createApp(base, { passwordPolicy: { minLength: 8 } });
      const renamed = unique('renamed');
      const put = await apps(base, 'PUT', `/${app.applicationId}`, { body: { appName: renamed, clientPushEnabled: true, sessionLength: 100 * YEAR } });
      assert.equal(put.status, 200, put.text);
      const afterPut = { ...app, appName: renamed, clientPushEnabled: true, sessionLength: 100 * YEAR };
      assert.deepEqual(put.body, afterPut);
      assert.deepEqual(await readApp(base, app.applicationId), afterPut);

      const post = await apps(base, 'POST', `/${app.applicationId}`, { body: { passwordPolicy: null, clientPushEnabled: false } });
      assert.equal(post.status, 200, post.text);
      const afterPost = { ...afterPut, passwordPolicy: null, clientPushEnabled: false };
      assert.deepEqual(post.body, afterPost);
      assert.deepEqual(await readApp(base, app.applicationId), afterPost);

      // An empty update and no body at all change nothing.
      assert.deepEqual((await apps(base, 'PUT', `/${app.applicationId}`, { body: {} })).body, afterPost);
      assert.deepEqual((await apps(base, 'PUT', `/${app.applicationId}`)).body, afterPost);
    });

    it('ignores key fields and dashboardURL in an update: the keys stay', async () => {
      const app = await createApp(base);
      const renamed = unique('renamed');
      const chosen = Object.fromEntries(['applicationId', ...KEY_FIELDS, 'dashboardURL'].map((field) => [field, `chosen-${field}`]));
      const response = await apps(base, 'PUT', `/${app.applicationId}`, { body: { ...chosen, appName: renamed } });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body, { ...app, appName: renamed });
      assert.deepEqual(await readApp(base, app.applicationId), { ...app, appName: renamed });
    });

    // Each body also renames the app, to show that a refused update writes none of its fields.
    const wrongTypes: [string, unknown][] = [
      ['clientClassCreationEnabled', 'false'],
      ['clientClassCreationEnabled', 0],
      ['clientPushEnabled', null],
      ['requireRevocableSessions', 1],
      ['revokeSessionOnPasswordChange', []],
      ['sessionLength', -1],
      ['sessionLength', 1.5],
      ['sessionLength', '3600'],
      // Past any date an expiry can be given: sign-up and login would fail on every request.
      ['sessionLength', 100 * YEAR + 1],
      ['sessionLength', 1e13],
      ['sessionLength', 1e308],
      ['emailVerification', 'yes'],
      ['preventLoginWithUnverifiedEmail', {}],
      ['emailVerifyTokenValidityDuration', 0],
      ['emailVerifyTokenValidityDuration', YEAR + 1],
      ['emailVerifyTokenValidityDuration', 2.5],
      ['passwordPolicy', 'strong'],
      ['passwordPolicy', []],
      ['passwordPolicy', { minLength: 0 }],
      ['passwordPolicy', { pattern: '(' }],
      ['passwordPolicy', { minLength: 8, colour: 'red' }],
      ['accountLockout', { threshold: 3 }],
      ['accountLockout', { threshold: 0, duration: 5 }],
      ['accountLockout', true],
      ['push', []],
      ['push', 'apns'],
      ['email', { host: 'smtp.example' }],
      ['email', { host: 'smtp.example', from: 'app@example.com', port: 70_000 }],
      ['auth', { myspace: {} }],
      ['auth', { anonymous: { enabled: 'yes' } }],
      ['auth', []],
      ['filesURL', 'ftp://files.example'],
      ['filesURL', 'files'],
      ['filesURL', 42],
      ['fileUpload', { enableForPublic: 'no' }],
      ['fileUpload', false],
      ['rateLimits', 5],
      ['rateLimits', []],
    ];

    it('refuses settings of wrong types with 400/107 and leaves the app unchanged', async () => {
      const app = await createApp(base, { sessionLength: 3600, passwordPolicy: { minLength: 8 } });
      for (const [setting, value] of wrongTypes) {
        for (const method of ['PUT', 'POST']) {
          const response = await apps(base, method, `/${app.applicationId}`, { body: { appName: unique('renamed'), [setting]: value } });
          assertError(response, 400, 107, `${method} ${setting}: ${JSON.stringify(value)}:`);
          assert.ok(response.body.error.includes(setting), response.body.error);
        }
      }
      assert.deepEqual(await readApp(base, app.applicationId), app);
    });

    it('refuses unknown settings with 400/107 and leaves the app unchanged', async () => {
      const app = await createApp(base);
      const unknown = ['colour', 'AppName', 'ClientPushEnabled', 'settings', 'createdAt', 'updatedAt', 'objectId', 'ownerId', 'namespace', 'keys', 'toString', 'constructor', 'hasOwnProperty', 'valueOf', 'isPrototypeOf'];
      for (const setting of unknown) {
        for (const method of ['PUT', 'POST']) {
          const response = await apps(base, method, `/${app.applicationId}`, { body: { clientPushEnabled: true, [setting]: true } });
          assertError(response, 400, 107, `${method} ${setting}:`);
          assert.equal(response.body.error, `Unknown app setting "${setting}".`);
        }
      }
      // JSON.parse makes "__proto__" an own key; the body parser refuses it before any route runs.
      assertError(await apps(base, 'PUT', `/${app.applicationId}`, { raw: '{"clientPushEnabled":true,"__proto__":{"x":1}}' }), 400, 107, '__proto__:');
      assert.deepEqual(await readApp(base, app.applicationId), app);
    });

    it('refuses an appName that is not a non-empty string with 400/107 and leaves the app unchanged', async () => {
      const app = await createApp(base);
      for (const appName of [null, 42, true, '', '  ', ['x'], { name: 'x' }]) {
        for (const method of ['PUT', 'POST']) {
          assertError(await apps(base, method, `/${app.applicationId}`, { body: { appName, clientPushEnabled: true } }), 400, 107, `${method} ${JSON.stringify(appName)}:`);
        }
      }
      assert.deepEqual(await readApp(base, app.applicationId), app);
    });

    it('refuses an update body that is malformed, not an object, or over 1 MB, and leaves the app unchanged', async () => {
      const app = await createApp(base);
      const renamed = unique('renamed');
      const refusals: [string, number, number][] = [
        [`{"appName":"${renamed}"`, 400, 107],
        [`{"appName":"${renamed}"}}`, 400, 107],
        [JSON.stringify([{ appName: renamed }]), 400, 107],
        [JSON.stringify(renamed), 400, 107],
        ['null', 400, 107],
        [JSON.stringify({ appName: renamed + 'x'.repeat(ONE_MB_AND_MORE) }), 413, 116],
      ];
      for (const [raw, status, code] of refusals) {
        for (const method of ['PUT', 'POST']) {
          assertError(await apps(base, method, `/${app.applicationId}`, { raw }), status, code, `${method} ${raw.slice(0, 60)}:`);
        }
      }
      assert.deepEqual(await readApp(base, app.applicationId), app);
    });

    it('accepts a sessionLength of at most 100 years, with which users still sign up', async () => {
      const app = await createApp(base, { rateLimits: { authRequestsPerMinute: 0 } });
      const put = await apps(base, 'PUT', `/${app.applicationId}`, { body: { sessionLength: 100 * YEAR } });
      assert.equal(put.status, 200, put.text);
      const headers = { 'X-Svc-Application-Id': app.applicationId, 'X-Svc-REST-API-Key': app.restKey };
      const signUp = await http(`${base}/1/users`, 'POST', { body: { username: unique('user'), password: unique('pw') }, headers });
      assert.equal(signUp.status, 201, signUp.text);
    });
  });
});
