import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { http, newApp, sdkBody, unique, type AppClient, type Response } from '../helpers/client.ts';

/** Spec 5 and decisions.md "Headers and keys": which credentials open an app, and which do not. */

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

function assertError(response: Response, status: number, code: number): void {
  assert.equal(response.status, status, `expected ${status}/${code}, got ${response.status} ${response.text}`);
  assert.deepEqual(Object.keys(response.body).sort(), ['code', 'error']);
  assert.equal(response.body.code, code);
  assert.equal(typeof response.body.error, 'string');
  assert.ok(response.body.error.length > 0);
}

eachBackend('authentication', (target) => {
  let app: AppClient;
  let other: AppClient;
  let cls: string;
  let objectId: string;

  before(async () => {
    app = await newApp(target);
    other = await newApp(target);
    cls = unique('Auth');
    const created = await app.post(`/1/classes/${cls}`, { name: 'seed' });
    assert.equal(created.status, 201);
    objectId = created.body.objectId;
  });

  /** GET of the seeded class with exactly these headers (no key added by the client). */
  const list = (headers: Record<string, string>) => http(`${target.url}/1/classes/${cls}`, 'GET', { headers });
  const sdkPost = (path: string, body: Record<string, unknown>, contentType = 'text/plain') =>
    http(`${target.url}${path}`, 'POST', { raw: JSON.stringify(body), headers: { 'Content-Type': contentType } });

  it('accepts every key kind through its header, under both prefixes', async () => {
    const keys = app.app;
    const cases: Record<string, string>[] = [
      { 'X-Svc-Application-Id': keys.applicationId, 'X-Svc-REST-API-Key': keys.restKey },
      { 'X-Parse-Application-Id': keys.applicationId, 'X-Parse-REST-API-Key': keys.restKey },
      { 'X-Svc-Application-Id': keys.applicationId, 'X-Svc-Client-Key': keys.clientKey },
      { 'X-Parse-Application-Id': keys.applicationId, 'X-Parse-Client-Key': keys.clientKey },
      { 'X-Svc-Application-Id': keys.applicationId, 'X-Svc-Windows-Key': keys.windowsKey },
      { 'X-Parse-Application-Id': keys.applicationId, 'X-Parse-Windows-Key': keys.windowsKey },
      { 'X-Svc-Application-Id': keys.applicationId, 'X-Svc-Master-Key': keys.masterKey },
      { 'X-Parse-Application-Id': keys.applicationId, 'X-Parse-Master-Key': keys.masterKey },
      // The Parse JS SDK's file uploads send the JavaScript key as this header (decisions.md).
      { 'X-Parse-Application-Id': keys.applicationId, 'X-Parse-JavaScript-Key': keys.javascriptKey },
      { 'X-Svc-Application-Id': keys.applicationId, 'X-Parse-JavaScript-Key': keys.javascriptKey },
    ];
    for (const headers of cases) {
      const response = await list(headers);
      assert.equal(response.status, 200, `${JSON.stringify(Object.keys(headers))}: ${response.text}`);
      assert.deepEqual(response.body.results.map((o: any) => o.objectId), [objectId]);
    }
  });

  it('does not take the JavaScript key from an X-Svc- header (spec 5, rule 2)', async () => {
    const response = await list({ 'X-Svc-Application-Id': app.app.applicationId, 'X-Svc-Javascript-Key': app.app.javascriptKey });
    assertError(response, 401, 903);
  });

  it('answers 401/902 without an application id, whatever keys are sent', async () => {
    const cases: Record<string, string>[] = [
      {},
      { 'X-Svc-REST-API-Key': app.app.restKey },
      { 'X-Svc-Master-Key': app.app.masterKey },
      { 'X-Svc-Application-Id': '', 'X-Svc-REST-API-Key': app.app.restKey },
    ];
    for (const headers of cases) assertError(await list(headers), 401, 902);
  });

  it('answers 401/903 for an unknown app, a missing key, a wrong key, or another app\'s key', async () => {
    const id = app.app.applicationId;
    const cases: Record<string, string>[] = [
      { 'X-Svc-Application-Id': unique('noapp'), 'X-Svc-REST-API-Key': app.app.restKey },
      { 'X-Svc-Application-Id': unique('noapp'), 'X-Svc-Master-Key': app.app.masterKey },
      { 'X-Svc-Application-Id': id },
      { 'X-Svc-Application-Id': id, 'X-Svc-REST-API-Key': 'wrong' },
      { 'X-Svc-Application-Id': id, 'X-Svc-REST-API-Key': '' },
      { 'X-Svc-Application-Id': id, 'X-Svc-Client-Key': app.app.restKey },
      { 'X-Svc-Application-Id': id, 'X-Svc-Master-Key': app.app.restKey },
      { 'X-Svc-Application-Id': id, 'X-Svc-REST-API-Key': other.app.restKey },
      { 'X-Svc-Application-Id': id, 'X-Svc-Master-Key': other.app.masterKey },
      // A prefix of the right key, and the right key with one more character: the whole key counts.
      { 'X-Svc-Application-Id': id, 'X-Svc-REST-API-Key': app.app.restKey.slice(0, -1) },
      { 'X-Svc-Application-Id': id, 'X-Svc-REST-API-Key': `${app.app.restKey}x` },
      { 'X-Svc-Application-Id': id, 'X-Svc-Master-Key': `${app.app.masterKey.slice(0, -1)}${app.app.masterKey.endsWith('a') ? 'b' : 'a'}` },
    ];
    for (const headers of cases) assertError(await list(headers), 401, 903);
  });

  it('refuses a request with a wrong key beside a right one (a wrong master key is not ignored)', async () => {
    const id = app.app.applicationId;
    assertError(await list({ 'X-Svc-Application-Id': id, 'X-Svc-REST-API-Key': app.app.restKey, 'X-Svc-Master-Key': 'wrong' }), 401, 903);
    assertError(await list({ 'X-Svc-Application-Id': id, 'X-Svc-REST-API-Key': 'wrong', 'X-Svc-Master-Key': app.app.masterKey }), 401, 903);
    assertError(await list({ 'X-Svc-Application-Id': id, 'X-Svc-Client-Key': app.app.clientKey, 'X-Parse-Master-Key': 'wrong' }), 401, 903);
  });

  it('writes nothing when the key is refused', async () => {
    const fresh = unique('Auth');
    const refused = await http(`${target.url}/1/classes/${fresh}`, 'POST', {
      body: { a: 1 },
      headers: { 'X-Svc-Application-Id': app.app.applicationId, 'X-Svc-REST-API-Key': 'wrong' },
    });
    assertError(refused, 401, 903);
    assert.deepEqual((await app.get(`/1/classes/${fresh}`, { key: 'master' })).body, { results: [] });
  });

  it('accepts Basic auth: javascript-key=K, master-key=K, or the bare master key', async () => {
    const id = app.app.applicationId;
    for (const password of [`javascript-key=${app.app.javascriptKey}`, `master-key=${app.app.masterKey}`, app.app.masterKey]) {
      const response = await list({ Authorization: basic(id, password) });
      assert.equal(response.status, 200, `${password}: ${response.text}`);
      assert.deepEqual(response.body.results.map((o: any) => o.objectId), [objectId]);
    }
    // Only the master forms open a master-only endpoint.
    const schemas = (password: string) => http(`${target.url}/1/schemas`, 'GET', { headers: { Authorization: basic(id, password) } });
    assert.equal((await schemas(`master-key=${app.app.masterKey}`)).status, 200);
    assert.equal((await schemas(app.app.masterKey)).status, 200);
    assertError(await schemas(`javascript-key=${app.app.javascriptKey}`), 403, 119);
  });

  it('refuses Basic auth with a wrong or empty password, or another app\'s key', async () => {
    const id = app.app.applicationId;
    for (const password of ['javascript-key=wrong', 'master-key=wrong', 'wrong', '', `javascript-key=${other.app.javascriptKey}`, app.app.restKey]) {
      assertError(await list({ Authorization: basic(id, password) }), 401, 903);
    }
    assertError(await list({ Authorization: basic(unique('noapp'), app.app.masterKey) }), 401, 903);
  });

  it('accepts the SDK body form with a text/plain or JSON body and each key field', async () => {
    const id = app.app.applicationId;
    for (const [field, key] of [['_JavaScriptKey', app.app.javascriptKey], ['_ClientKey', app.app.clientKey], ['_MasterKey', app.app.masterKey]] as const) {
      for (const contentType of ['text/plain', 'application/json']) {
        const response = await sdkPost(`/1/classes/${cls}`, { _ApplicationId: id, [field]: key, _method: 'GET', _ClientVersion: 'js5.3.0', _InstallationId: 'inst-1' }, contentType);
        assert.equal(response.status, 200, `${field} ${contentType}: ${response.text}`);
        assert.deepEqual(response.body.results.map((o: any) => o.objectId), [objectId]);
      }
    }
  });

  it('runs where, order, limit, skip, keys and count from the body of a _method GET', async () => {
    const scores = unique('Score');
    for (const [name, score] of [['a', 3], ['b', 1], ['c', 2], ['d', 5]] as const) await app.post(`/1/classes/${scores}`, { name, score, other: 'x' });
    const response = await sdkPost(`/1/classes/${scores}`, sdkBody(app.app, { _method: 'GET', where: { score: { $gte: 2 } }, order: '-score', limit: 2, skip: 1, keys: 'name', count: 1 }));
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.count, 3);
    assert.deepEqual(response.body.results.map((o: any) => o.name), ['a', 'c']);
    assert.equal(response.body.results[0].other, undefined);
    // where may also come as the JSON text of the URL form
    const asText = await sdkPost(`/1/classes/${scores}`, sdkBody(app.app, { _method: 'GET', where: JSON.stringify({ name: 'd' }) }));
    assert.deepEqual(asText.body.results.map((o: any) => o.score), [5]);
  });

  it('routes _method GET, PUT and DELETE to object URLs, and keeps the SDK fields out of stored data', async () => {
    const objects = unique('Sdk');
    const created = await sdkPost(`/1/classes/${objects}`, sdkBody(app.app, { name: 'first', _ClientVersion: 'js5.3.0', _InstallationId: 'inst-1' }));
    assert.equal(created.status, 201, created.text);
    const path = `/1/classes/${objects}/${created.body.objectId}`;
    assert.equal(created.headers.get('location'), `${target.url}${path}`);

    const fetched = await sdkPost(path, sdkBody(app.app, { _method: 'GET' }));
    assert.equal(fetched.status, 200, fetched.text);
    assert.deepEqual(Object.keys(fetched.body).sort(), ['createdAt', 'name', 'objectId', 'updatedAt']);

    const updated = await sdkPost(path, sdkBody(app.app, { _method: 'PUT', name: 'second' }));
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(Object.keys(updated.body), ['updatedAt']);
    assert.equal((await app.get(path)).body.name, 'second');

    const deleted = await sdkPost(path, sdkBody(app.app, { _method: 'DELETE' }));
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(deleted.body, {});
    assertError(await app.get(path), 404, 101);
  });

  it('refuses the SDK body form without an app id, without a key, or with a wrong key', async () => {
    const path = `/1/classes/${cls}`;
    assertError(await sdkPost(path, { _JavaScriptKey: app.app.javascriptKey, _method: 'GET' }), 401, 902);
    assertError(await sdkPost(path, { _ApplicationId: app.app.applicationId, _method: 'GET' }), 401, 903);
    assertError(await sdkPost(path, { _ApplicationId: app.app.applicationId, _JavaScriptKey: 'wrong', _method: 'GET' }), 401, 903);
    assertError(await sdkPost(path, { _ApplicationId: app.app.applicationId, _ClientKey: app.app.clientKey, _MasterKey: 'wrong', _method: 'GET' }), 401, 903);
    assertError(await sdkPost(path, { _ApplicationId: unique('noapp'), _MasterKey: app.app.masterKey, _method: 'GET' }), 401, 903);
    // a refused create writes nothing
    const fresh = unique('Sdk');
    assertError(await sdkPost(`/1/classes/${fresh}`, { _ApplicationId: app.app.applicationId, _JavaScriptKey: 'wrong', a: 1 }), 401, 903);
    assert.deepEqual((await app.get(`/1/classes/${fresh}`, { key: 'master' })).body, { results: [] });
  });

  it('answers 403/119 to every non-master key on a master-only endpoint', async () => {
    for (const key of ['rest', 'client', 'windows', 'javascript'] as const) {
      assertError(await app.get('/1/schemas', { key }), 403, 119);
      assertError(await app.get(`/1/schemas/${cls}`, { key }), 403, 119);
    }
    assertError(await sdkPost('/1/schemas', sdkBody(app.app, { _method: 'GET' })), 403, 119);
    const master = await app.get('/1/schemas', { key: 'master' });
    assert.equal(master.status, 200);
    assert.ok(master.body.results.some((schema: any) => schema.className === cls));
    const viaBody = await sdkPost('/1/schemas', { _ApplicationId: app.app.applicationId, _MasterKey: app.app.masterKey, _method: 'GET' });
    assert.equal(viaBody.status, 200, viaBody.text);
  });

  it('answers 209 to any session token while no session exists', async () => {
    const tokens = ['r:0123456789abcdef0123456789abcdef', 'legacy-token', "'; DROP TABLE _Session; --"];
    for (const token of tokens) {
      assertError(await app.get(`/1/classes/${cls}`, { headers: { 'X-Svc-Session-Token': token } }), 400, 209);
      assertError(await app.get(`/1/classes/${cls}`, { headers: { 'X-Parse-Session-Token': token } }), 400, 209);
    }
    assertError(await sdkPost(`/1/classes/${cls}`, sdkBody(app.app, { _method: 'GET', _SessionToken: 'r:0123456789abcdef0123456789abcdef' })), 400, 209);
    // nothing is written under an invalid token
    const fresh = unique('Auth');
    assertError(await app.post(`/1/classes/${fresh}`, { a: 1 }, { headers: { 'X-Svc-Session-Token': tokens[0]! } }), 400, 209);
    assert.deepEqual((await app.get(`/1/classes/${fresh}`, { key: 'master' })).body, { results: [] });
  });
});
