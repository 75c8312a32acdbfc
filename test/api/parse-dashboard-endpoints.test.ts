import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { http, newApp, sdkBody, type AppClient, type Response } from '../helpers/client.ts';
import { as, assertError, newUserApp, signUp } from '../helpers/users.ts';

/**
 * What Parse Dashboard reads when it opens an app: GET /1/serverInfo (features and version,
 * which show and hide its pages) and the lists of features Basalt lacks, which answer empty.
 * And the 404 of an unknown route, which names the method a Parse SDK meant.
 */

const MASTER = { key: 'master' } as const;

const FEATURES = {
  globalConfig: { create: true, read: true, update: true, delete: true },
  hooks: { create: true, read: true, update: true, delete: true },
  cloudCode: { jobs: true },
  logs: { level: true, size: true, order: true, until: true, from: true },
  push: { immediatePush: true, scheduledPush: true, storedPushData: true, pushAudiences: false, localization: false },
  schemas: {
    addField: true,
    removeField: true,
    addClass: true,
    removeClass: true,
    clearAllDataFromClass: true,
    exportClass: false,
    editClassLevelPermissions: true,
    editPointerPermissions: true,
  },
  settings: { securityCheck: false },
};

/** Parse Server's answer shape for each list: arrays, `{in_use, jobs}` and a query answer (empty for an app without cloud code; test/api/cloud-jobs.test.ts fills the job lists). */
const EMPTY_LISTS: Record<string, unknown> = {
  '/1/cloud_code/jobs': [],
  '/1/cloud_code/jobs/data': { in_use: [], jobs: [] },
  '/1/push_audiences': { results: [] },
  // Served by cloud code (docs/cloud-code.md): empty for an app without code.
  '/1/scriptlog': [],
};

function assertOk(response: Response, body: unknown): void {
  assert.equal(response.status, 200, response.text);
  assert.deepEqual(response.body, body);
}

eachBackend('parse dashboard endpoints', (target) => {
  let app: AppClient;

  before(async () => {
    app = await newUserApp(target);
  });

  /** The SDK form: a POST whose body carries the keys and the meant method. */
  const sdkPost = (path: string, fields: Record<string, unknown>) => http(`${target.url}${path}`, 'POST', { body: sdkBody(app.app, fields) });

  it('GET /1/serverInfo describes Basalt: features it has, version 7.0.0', async () => {
    assertOk(await app.get('/1/serverInfo', MASTER), { features: FEATURES, parseServerVersion: '7.0.0' });
  });

  it('answers serverInfo in the SDK body form (POST, _method GET, _MasterKey)', async () => {
    assertOk(await sdkPost('/1/serverInfo', { _method: 'GET', _MasterKey: app.app.masterKey }), { features: FEATURES, parseServerVersion: '7.0.0' });
  });

  it('lists password among the user class\'s fields, as Parse Server does, and stores none', async () => {
    const user = await signUp(app);
    const schema = await app.get('/1/schemas/_User', MASTER);
    assert.equal(schema.status, 200, schema.text);
    assert.deepEqual(schema.body.fields.password, { type: 'String' });
    const read = await app.get(`/1/users/${user.objectId}`, MASTER);
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.password, undefined);
    const found = await app.get('/1/users', { ...MASTER, query: { where: { password: { $exists: true } } } });
    assert.deepEqual(found.body.results, []);
  });

  it('refuses serverInfo without the master key (403/119)', async () => {
    const user = await signUp(app);
    for (const options of [{}, { key: 'client' }, as(user.sessionToken)] as const) assertError(await app.get('/1/serverInfo', options), 403, 119);
    assertError(await sdkPost('/1/serverInfo', { _method: 'GET' }), 403, 119);
  });

  it('answers the lists of features not built yet empty, in Parse Server shapes', async () => {
    for (const [path, body] of Object.entries(EMPTY_LISTS)) {
      assertOk(await app.get(path, MASTER), body);
      assertOk(await sdkPost(path, { _method: 'GET', _MasterKey: app.app.masterKey }), body);
    }
  });

  it('refuses those lists without the master key (403/119)', async () => {
    for (const path of Object.keys(EMPTY_LISTS)) {
      assertError(await app.get(path), 403, 119, path);
      assertError(await app.get(path, { key: 'client' }), 403, 119, path);
    }
  });

  it('has no write on the audience list yet: creating an audience is no endpoint (404/108)', async () => {
    for (const path of ['/1/push_audiences']) {
      const response = await app.post(path, { url: 'https://example.test/hook', functionName: 'f' }, MASTER);
      assertError(response, 404, 108, path);
      assert.equal(response.body.error, `No endpoint at POST ${path}.`);
    }
  });

  it('names the method of an SDK body in the 404 of an unknown path', async () => {
    const fresh = await newApp(target);
    const answers = [
      await http(`${target.url}/1/nothing`, 'POST', { body: sdkBody(fresh.app, { _method: 'GET' }) }),
      await http(`${target.url}/1/nothing`, 'POST', { body: { _method: 'get' } }),
      // A body of another content type is read as JSON all the same; the same answer.
      await http(`${target.url}/1/nothing`, 'POST', { raw: JSON.stringify({ _method: 'GET' }), headers: { 'Content-Type': 'application/octet-stream' } }),
    ];
    for (const response of answers) {
      assertError(response, 404, 108);
      assert.equal(response.body.error, 'No endpoint at GET /1/nothing.');
    }
    const plain = await http(`${target.url}/1/nothing?x=1`, 'POST', { body: { a: 1 } });
    assertError(plain, 404, 108);
    assert.equal(plain.body.error, 'No endpoint at POST /1/nothing.');
  });

  it('names the meant method on a known path that has no such method, whatever the declared type of the body', async () => {
    const body = JSON.stringify(sdkBody(app.app, { _method: 'DELETE', _MasterKey: app.app.masterKey }));
    for (const type of ['application/json', 'application/octet-stream']) {
      const response = await http(`${target.url}/1/serverInfo`, 'POST', { raw: body, headers: { 'Content-Type': type } });
      assertError(response, 404, 108, type);
      assert.equal(response.body.error, 'No endpoint at DELETE /1/serverInfo.');
    }
  });
});
