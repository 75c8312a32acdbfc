import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppClient, newApp, unique, type AppInfo } from '../helpers/client.ts';
import { cloudServer } from '../helpers/cloud.ts';
import { as, assertError, newUserApp, signUp } from '../helpers/users.ts';

/**
 * Cloud functions (spec 4.10, docs/cloud-code.md): an unchanged Parse Server main.js
 * (test/fixtures/cloud/parse-app) answers POST /1/functions/<name>, with its validators, its
 * errors, the SDK's data calls as the master key or the caller's session, httpRequest and its
 * log lines in GET /1/scriptlog; the default app's code comes from --cloud; --cloud-watch reloads.
 */

const DEFAULT_APP = { applicationId: 'cloud-default-app', masterKey: 'cloud-default-master', restKey: 'cloud-default-rest' };

/** Polls until `check` passes (a reload takes as long as a worker start); fails after 20 s. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail('the condition was not met within 20 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`cloud functions [${backend}]`, () => {
    const cloud = cloudServer(
      backend,
      { BASALT_APP_ID: DEFAULT_APP.applicationId, BASALT_MASTER_KEY: DEFAULT_APP.masterKey, BASALT_REST_KEY: DEFAULT_APP.restKey, BASALT_CLOUD_WATCH: 'true' },
      ['--cloud', 'test/fixtures/cloud/parse-app/main.js'],
    );
    let app: AppClient;
    let echo: Server;
    let echoUrl: string;

    before(async () => {
      app = await cloud().appWithCode('parse-app');
      // A local HTTP server for Parse.Cloud.httpRequest: it echoes what it received.
      echo = createServer((request, response) => {
        let body = '';
        request.on('data', (chunk) => (body += chunk));
        request.on('end', () => {
          if (request.url?.startsWith('/missing')) {
            response.writeHead(404).end('not here');
            return;
          }
          response.writeHead(200, { 'Content-Type': 'application/json', 'X-Echo': 'echoed' });
          response.end(JSON.stringify({ method: request.method, url: request.url, contentType: request.headers['content-type'], body: JSON.parse(body || 'null') }));
        });
      });
      await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
      const address = echo.address();
      echoUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    });

    after(() => new Promise<void>((resolve) => (echo ? echo.close(() => resolve()) : resolve())));

    const run = (name: string, params: unknown = {}, options = {}) => app.post(`/1/functions/${name}`, params, options);

    it('runs functions of the unchanged main.js, with modules of its own folder and node_modules', async () => {
      assert.deepEqual((await run('hello')).body, { result: 'Hello world!' });
      assert.deepEqual((await run('greet', { name: 'Ann' })).body, { result: 'Hello, Ann!' });
      assert.deepEqual((await run('slug', { text: 'Hi There, You' })).body, { result: 'hi-there-you' });
      // Parse.Cloud.run from cloud code comes back to the same app.
      assert.deepEqual((await run('runHello')).body, { result: 'Hello world!' });
    });

    it('answers 200 to every key, and 141 for a name the code does not define', async () => {
      for (const key of ['master', 'rest', 'client', 'javascript'] as const) {
        const response = await run('hello', {}, { key });
        assert.equal(response.status, 200, `${key}: ${response.text}`);
      }
      const unknown = await run('nothingHere');
      assert.equal(unknown.status, 400);
      assert.deepEqual(unknown.body, { code: 141, error: 'Invalid function: "nothingHere"' });
    });

    it('decodes parameters into Parse values and passes the call\'s fields', async () => {
      const response = await run(
        'describe',
        {
          when: { __type: 'Date', iso: '2026-05-01T10:00:00.000Z' },
          where: { __type: 'GeoPoint', latitude: 10, longitude: 20 },
          who: { __type: 'Pointer', className: 'Player', objectId: 'p1' },
          text: 'plain',
          list: [1, 2],
        },
        { headers: { 'X-Svc-Installation-Id': 'inst-1' } },
      );
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body.result, {
        kinds: { when: 'Date', where: 'GeoPoint', who: 'Object:Player:p1', text: 'string', list: 'array' },
        master: false,
        installationId: 'inst-1',
        functionName: 'describe',
        hasLog: true,
      });
      assert.equal((await run('describe', {}, { key: 'master' })).body.result.master, true);
    });

    it('passes the request\'s headers and the context header (X-Svc-Cloud-Context) to the function', async () => {
      const response = await run('echoRequest', {}, { headers: { 'X-Custom': 'yes', 'X-Svc-Cloud-Context': JSON.stringify({ source: 'test' }) } });
      assert.deepEqual(response.body, { result: { custom: 'yes', context: { source: 'test' } } });
      assert.deepEqual((await run('echoRequest')).body, { result: { custom: null, context: {} } });
    });

    it('encodes results: Dates, GeoPoints and Pointers typed, a saved Parse.Object as a full Object', async () => {
      const shifted = await run('shift', {
        when: { __type: 'Date', iso: '2026-05-01T10:00:00.000Z' },
        where: { __type: 'GeoPoint', latitude: 10, longitude: 20 },
        who: { __type: 'Pointer', className: 'Player', objectId: 'p1' },
      });
      assert.equal(shifted.status, 200, shifted.text);
      assert.deepEqual(shifted.body.result, {
        later: { __type: 'Date', iso: '2026-05-02T10:00:00.000Z' },
        north: { __type: 'GeoPoint', latitude: 11, longitude: 20 },
        who: { __type: 'Pointer', className: 'Player', objectId: 'p1' },
        whoClass: 'Player',
      });

      const className = unique('CloudMade');
      const made = await run('makeThing', { className, name: 'widget' });
      assert.equal(made.status, 200, made.text);
      const result = made.body.result;
      assert.equal(result.__type, 'Object');
      assert.equal(result.className, className);
      assert.equal(result.name, 'widget');
      assert.deepEqual(result.when, { __type: 'Date', iso: '2026-01-02T03:04:05.000Z' });
      // It was saved through the API (the SDK's master key): the stored object is the one answered.
      const stored = await app.get(`/1/classes/${className}/${result.objectId}`);
      assert.equal(stored.status, 200, stored.text);
      assert.equal(stored.body.name, 'widget');
      assert.equal(stored.body.createdAt, result.createdAt);
    });

    it('checks validators with Parse Server\'s messages (142)', async () => {
      const cases: [string, unknown, string][] = [
        ['greet', {}, 'Validation failed. Please specify data for name.'],
        ['greet', { name: 5 }, 'Validation failed. Invalid type for name. Expected: string'],
        ['pick', { color: 'green' }, 'Validation failed. Invalid option for color. Expected: red, blue'],
        ['adminOnly', {}, 'Validation failed. Master key is required to complete this request.'],
        ['needsUser', {}, 'Validation failed. Please login to continue.'],
        ['needsNickname', {}, 'Please login to make this request.'],
      ];
      for (const [name, params, error] of cases) {
        const response = await run(name, params);
        assert.equal(response.status, 400, `${name}: ${response.text}`);
        assert.deepEqual(response.body, { code: 142, error }, name);
      }
      assert.deepEqual((await run('pick')).body, { result: 'red' }, 'a default fills a missing field');
      assert.deepEqual((await run('adminOnly', {}, { key: 'master' })).body, { result: 'for the master key' });

      const user = await signUp(app);
      assert.deepEqual((await run('needsUser', {}, as(user.sessionToken))).body, { result: user.objectId });
      assert.deepEqual((await run('needsNickname', {}, as(user.sessionToken))).body, { code: 142, error: 'Validation failed. Please set data for nickname on your account.' });
      const named = await signUp(app, { nickname: 'Nick' });
      assert.deepEqual((await run('needsNickname', {}, as(named.sessionToken))).body, { result: 'has a nickname' });
    });

    it('keeps the code of a thrown Parse.Error; any other throw or rejection is 141 with its message', async () => {
      const notFound = await run('notFound');
      assertError(notFound, 404, 101);
      assert.equal(notFound.body.error, 'nothing here');
      assert.deepEqual((await run('customCode')).body, { code: 3001, error: 'an app-defined failure' });
      assert.deepEqual((await run('failsPlain')).body, { code: 141, error: 'plain failure' });
      assert.deepEqual((await run('rejects')).body, { code: 141, error: 'rejected with text' });
    });

    it('gives request.user the caller\'s user with its session token; the SDK honours sessionToken and useMasterKey', async () => {
      const alice = await signUp(app);
      const bob = await signUp(app);
      assert.deepEqual((await run('whoami', {}, as(alice.sessionToken))).body, { result: { id: alice.objectId, token: alice.sessionToken } });
      assert.deepEqual((await run('whoami')).body, { result: null });

      const className = unique('Secret');
      const make = (name: string, acl: Record<string, unknown>) => app.post(`/1/classes/${className}`, { name, ACL: acl }, { key: 'master' });
      assert.equal((await make('public', { '*': { read: true } })).status, 201);
      assert.equal((await make('alice only', { [alice.objectId]: { read: true } })).status, 201);
      assert.equal((await make('nobody', {})).status, 201);

      assert.deepEqual((await run('visibleNames', { className }, as(alice.sessionToken))).body, { result: ['alice only', 'public'] });
      assert.deepEqual((await run('visibleNames', { className }, as(bob.sessionToken))).body, { result: ['public'] });
      assert.deepEqual((await run('visibleNames', { className, asMaster: true }, as(bob.sessionToken))).body, { result: ['alice only', 'nobody', 'public'] });
    });

    it('Parse.Cloud.httpRequest sends Parse Server\'s request shape and answers its response shape', async () => {
      const response = await run('fetch', { url: `${echoUrl}/echo`, sent: 'hi' });
      assert.equal(response.status, 200, response.text);
      const { status, data, text, header } = response.body.result;
      assert.equal(status, 200);
      assert.equal(header, 'echoed');
      assert.deepEqual(data, { method: 'POST', url: '/echo?q=x+y', contentType: 'application/json', body: { sent: 'hi' } });
      assert.deepEqual(JSON.parse(text), data);
      assert.deepEqual((await run('fetchMissing', { url: `${echoUrl}/missing` })).body, { result: { status: 404, text: 'not here' } });
    });

    it('GET /1/scriptlog answers recent lines of the app\'s code (master key), by level, newest first', async () => {
      const tag = unique('tag');
      assert.deepEqual((await run('writeLogs', { tag })).body, { result: 'logged' });
      const errors = await app.get('/1/scriptlog', { key: 'master', query: { level: 'error', n: 1 } });
      assert.equal(errors.status, 200, errors.text);
      assert.equal(errors.body.length, 1);
      assert.deepEqual(Object.keys(errors.body[0]).sort(), ['level', 'message', 'timestamp']);
      assert.deepEqual({ level: errors.body[0].level, message: errors.body[0].message }, { level: 'error', message: `error line ${tag}` });

      const infos = await app.get('/1/scriptlog', { key: 'master', query: { size: 100 } });
      assert.ok(infos.body.some((line: any) => line.level === 'info' && line.message === `console line ${tag}`), infos.text);
      assert.ok(infos.body.every((line: any) => line.level === 'info'));
      // A failed call is logged at error level.
      await run('failsPlain');
      const latest = await app.get('/1/scriptlog', { key: 'master', query: { level: 'error', size: 1 } });
      assert.equal(latest.body[0].message, 'Failed running cloud function failsPlain: plain failure');
      const oldestFirst = await app.get('/1/scriptlog', { key: 'master', query: { level: 'error', order: 'asc', size: 100 } });
      const times = oldestFirst.body.map((line: any) => line.timestamp);
      assert.deepEqual(times, [...times].sort());
      const future = await app.get('/1/scriptlog', { key: 'master', query: { level: 'error', from: '2999-01-01T00:00:00.000Z' } });
      assert.deepEqual(future.body, []);

      assertError(await app.get('/1/scriptlog', { key: 'rest' }), 403, 119);
      // Another app without code has an empty log.
      const other = await newApp(cloud().target);
      assert.deepEqual((await other.get('/1/scriptlog', { key: 'master' })).body, []);
    });

    it('an app without a folder under --cloud-dir has no functions', async () => {
      const other = await newApp(cloud().target);
      assert.deepEqual((await other.post('/1/functions/hello', {})).body, { code: 141, error: 'Invalid function: "hello"' });
    });

    it('loads an ES module entry (main.mjs) with its own imports', async () => {
      const esm = await cloud().appWithCode('esm-app');
      assert.deepEqual((await esm.post('/1/functions/shout', { text: 'hey' })).body, { result: 'HEY!' });
    });

    it('code that fails to load answers every call with 141 and why; other apps are unaffected', async () => {
      const broken = await cloud().appWithCode('broken-app');
      for (const name of ['never', 'anything']) {
        const response = await broken.post(`/1/functions/${name}`, {});
        assertError(response, 400, 141);
        assert.match(response.body.error, /^The app's cloud code failed to load: SyntaxError: /);
      }
      assert.equal((await broken.post('/1/classes/Plain', { a: 1 })).status, 201);
      assert.deepEqual((await run('hello')).body, { result: 'Hello world!' });
    });

    it('the default app runs the --cloud file', async () => {
      const info = { ...DEFAULT_APP, clientKey: '', javascriptKey: '', windowsKey: '', webhookKey: '' } as AppInfo;
      const defaultApp = new AppClient(cloud().target, info);
      assert.deepEqual((await defaultApp.post('/1/functions/hello', {})).body, { result: 'Hello world!' });
    });

    it('--cloud-watch: a changed file is reloaded; a call in flight finishes on the code it started on', async () => {
      const reloading = await newUserApp(cloud().target);
      const folder = join(cloud().cloudDir, reloading.app.applicationId);
      mkdirSync(folder);
      const version = (n: number) =>
        `Parse.Cloud.define('version', () => ${n});\nParse.Cloud.define('slow', () => {\n  console.log('slow started ${n}');\n  return new Promise((resolve) => setTimeout(() => resolve('slow ${n}'), 1000));\n});\n`;
      writeFileSync(join(folder, 'main.js'), version(1));
      assert.deepEqual((await reloading.post('/1/functions/version', {})).body, { result: 1 });
      const inFlight = reloading.post('/1/functions/slow', {});
      // The file changes once the slow call runs (it logs a line when it starts).
      await eventually(async () => (await reloading.get('/1/scriptlog', { key: 'master', query: { size: 100 } })).body.some((line: any) => line.message === 'slow started 1'));
      writeFileSync(join(folder, 'main.js'), version(2));
      await eventually(async () => (await reloading.post('/1/functions/version', {})).body.result === 2);
      assert.deepEqual((await inFlight).body, { result: 'slow 1' });
      assert.deepEqual((await reloading.post('/1/functions/version', {})).body, { result: 2 });
    });
  });
}
