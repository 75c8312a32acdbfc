import { request as httpRequest, Agent, type IncomingMessage } from 'node:http';
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { ADMIN } from '../helpers/targets.ts';
import { http, newApp, unique, type AppClient, type Response } from '../helpers/client.ts';

/** Spec 1 and 4 common rules: CORS, request ids, health, unknown routes, response shapes. */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ORIGIN = 'https://example.test';

/** The request headers of spec 5 and decisions.md; each must pass a browser preflight under both prefixes. */
const SPEC_HEADERS = [
  'Application-Id', 'REST-API-Key', 'Client-Key', 'Javascript-Key', 'Windows-Key', 'Master-Key', 'Session-Token',
  'Revocable-Session', 'Installation-Id', 'Email', 'Password', 'Account-Key', 'Request-Id',
];

function headerList(response: Response, name: string): string[] {
  return (response.headers.get(name) ?? '').split(',').map((item) => item.trim().toLowerCase()).filter(Boolean);
}

function assertNoEndpoint(response: Response): void {
  assert.equal(response.status, 404, response.text);
  assert.deepEqual(Object.keys(response.body).sort(), ['code', 'error']);
  assert.equal(response.body.code, 108);
  assert.match(response.body.error, /No endpoint/);
}

eachBackend('http edge', (target) => {
  let app: AppClient;
  let cls: string;
  let objectPath: string;

  before(async () => {
    app = await newApp(target);
    cls = unique('Http');
    const created = await app.post(`/1/classes/${cls}`, { a: 1 });
    objectPath = `/1/classes/${cls}/${created.body.objectId}`;
  });

  const preflight = (path: string) =>
    http(`${target.url}${path}`, 'OPTIONS', {
      headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'x-svc-application-id, x-svc-master-key, content-type' },
    });

  it('answers preflights on every route with 204 and the spec headers under both prefixes', async () => {
    for (const path of [`/1/classes/${cls}`, objectPath, '/1/batch', '/1/schemas', '/1/apps', '/health', '/1/no-such-route']) {
      const response = await preflight(path);
      assert.equal(response.status, 204, `${path}: ${response.status}`);
      assert.equal(response.text, '');
      assert.equal(response.headers.get('access-control-allow-origin'), ORIGIN);
      const methods = headerList(response, 'access-control-allow-methods');
      for (const method of ['get', 'post', 'put', 'delete', 'options']) assert.ok(methods.includes(method), `${path}: ${method} not allowed`);
      const allowed = headerList(response, 'access-control-allow-headers');
      for (const name of ['content-type', 'authorization', ...SPEC_HEADERS.flatMap((header) => [`x-svc-${header}`, `x-parse-${header}`].map((full) => full.toLowerCase()))]) {
        assert.ok(allowed.includes(name), `${path}: ${name} missing from Access-Control-Allow-Headers`);
      }
      assert.match(response.headers.get('x-request-id') ?? '', UUID);
    }
  });

  it('sends CORS headers on successes and failures alike', async () => {
    const requests: Promise<Response>[] = [
      app.get(`/1/classes/${cls}`, { headers: { Origin: ORIGIN } }),
      app.post(`/1/classes/${cls}`, { b: 2 }, { headers: { Origin: ORIGIN } }),
      app.get(`/1/classes/${cls}`, { key: 'none', headers: { Origin: ORIGIN } }),
      http(`${target.url}/1/nowhere`, 'GET', { headers: { Origin: ORIGIN } }),
      http(`${target.url}/1/classes/%E0%A4%A`, 'GET', { headers: { Origin: ORIGIN } }),
      app.request('POST', `/1/classes/${cls}`, { raw: '{"broken', headers: { Origin: ORIGIN } }),
      http(`${target.url}/health`, 'GET', { headers: { Origin: ORIGIN } }),
    ];
    for (const response of await Promise.all(requests)) {
      assert.equal(response.headers.get('access-control-allow-origin'), ORIGIN, `${response.status} ${response.text}`);
      const exposed = headerList(response, 'access-control-expose-headers');
      for (const name of ['x-request-id', 'location']) assert.ok(exposed.includes(name), `${name} not exposed on a ${response.status}`);
    }
    const anonymous = await http(`${target.url}/health`, 'GET');
    assert.equal(anonymous.headers.get('access-control-allow-origin'), '*');
    // Only browsers read exposed headers, and their cross-origin requests all carry Origin.
    assert.equal(anonymous.headers.get('access-control-expose-headers'), null);
  });

  it('gives every response its own X-Request-Id, and never echoes the client\'s', async () => {
    const responses = await Promise.all([
      http(`${target.url}/health`, 'GET', { headers: { 'X-Request-Id': 'client-chosen-id' } }),
      app.get(`/1/classes/${cls}`, { headers: { 'X-Request-Id': 'client-chosen-id' } }),
      app.get(`/1/classes/${cls}`),
      app.get(`/1/classes/${cls}`, { key: 'none' }),
      app.post(`/1/classes/${cls}`, { c: 3 }),
      http(`${target.url}/1/nowhere`, 'GET'),
      http(`${target.url}/1/classes/%E0%A4%A`, 'GET', { headers: { 'X-Request-Id': 'client-chosen-id' } }),
      http(`${target.url}/1/classes/${'L'.repeat(1200)}`, 'GET'),
      app.request('POST', `/1/classes/${cls}`, { raw: '{"broken' }),
      app.request('POST', `/1/classes/${cls}`, { raw: JSON.stringify({ big: 'x'.repeat(1_100_000) }) }),
      preflight('/1/batch'),
    ]);
    const ids = responses.map((response) => response.headers.get('x-request-id') ?? '');
    for (const [i, id] of ids.entries()) assert.match(id, UUID, `response ${i} (${responses[i]!.status}) has X-Request-Id ${JSON.stringify(id)}`);
    assert.equal(new Set(ids).size, ids.length);
  });

  it('reads a body refused for its size to its end and keeps the connection, so the client reads the 413', async () => {
    // One socket, kept: the second request can only be answered on the connection the first used.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string, path: string, body?: string) =>
      new Promise<{ response: IncomingMessage; text: string; reused: boolean }>((resolve, reject) => {
        const headers: Record<string, string | number> = { 'X-Svc-Application-Id': app.app.applicationId, 'X-Svc-REST-API-Key': app.app.restKey };
        if (body !== undefined) Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
        const outgoing = httpRequest(`${target.url}${path}`, { method, agent, headers }, (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ response, text, reused: outgoing.reusedSocket }));
        });
        outgoing.on('error', reject);
        outgoing.end(body);
      });
    try {
      const className = unique('Big');
      const refused = await send('POST', `/1/classes/${className}`, JSON.stringify({ blob: 'x'.repeat(1_100_000) }));
      assert.equal(refused.response.statusCode, 413);
      assert.deepEqual(JSON.parse(refused.text), { code: 116, error: 'The request body is too large.' });
      assert.notEqual(refused.response.headers.connection, 'close');
      const next = await send('GET', `/1/classes/${className}`);
      assert.equal(next.response.statusCode, 200, next.text);
      assert.deepEqual(JSON.parse(next.text), { results: [] });
      assert.equal(next.reused, true, 'answered on the connection of the refused body');
    } finally {
      agent.destroy();
    }
  });

  it('answers GET /health with 200 {status, database} and needs no key', async () => {
    const response = await http(`${target.url}/health`, 'GET');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { status: 'ok', database: target.backend });
  });

  it('answers an unknown route, method or malformed path with 404 and {code, error}', async () => {
    const cases: [string, string][] = [
      ['GET', '/1/nowhere'],
      ['GET', '/nowhere'],
      ['GET', '/'],
      ['GET', '/2/classes/X'],
      ['PATCH', `/1/classes/${cls}`],
      ['DELETE', `/1/classes/${cls}`],
      ['PUT', '/1/batch'],
      ['GET', '/1/classes/%E0%A4%A'],
      ['GET', `/1/classes/${'L'.repeat(1200)}`],
      // An object URL takes a POST only as an SDK `_method` override.
      ['POST', objectPath],
      // NUL names no object; PostgreSQL could not even compare it.
      ['GET', `${objectPath}%00`],
      ['PUT', `/1/classes/${cls}/%00`],
      ['DELETE', `${objectPath}%00x`],
    ];
    for (const [method, path] of cases) {
      const withKeys = await app.request(method, path, method === 'POST' || method === 'PATCH' ? { body: { a: 1 } } : {});
      assertNoEndpoint(withKeys);
      assertNoEndpoint(await http(`${target.url}${path}`, method));
    }
    // the same through the SDK body form's method override
    for (const [method, path] of [['PATCH', objectPath], ['GET', '/1/batch'], ['PUT', `/1/classes/${cls}`], ['GET', `${objectPath}%00`]]) {
      const raw = JSON.stringify({ _ApplicationId: app.app.applicationId, _JavaScriptKey: app.app.javascriptKey, _method: method });
      assertNoEndpoint(await http(`${target.url}${path}`, 'POST', { raw, headers: { 'Content-Type': 'text/plain' } }));
    }
    const unchanged = await app.get(objectPath);
    assert.equal(unchanged.body.a, 1);
  });

  it('answers every request with a JSON object body (batch excepted)', async () => {
    const responses: Response[] = [
      await http(`${target.url}/health`, 'GET'),
      await app.get(`/1/classes/${cls}`),
      await app.get(objectPath),
      await app.post(`/1/classes/${cls}`, { d: 4 }),
      await app.put(objectPath, { a: 1 }),
      await app.get('/1/schemas', { key: 'master' }),
      await app.get(`/1/classes/${cls}/missing0001`),
      await app.get(`/1/classes/${cls}`, { key: 'none' }),
      await http(`${target.url}/1/classes/${cls}`, 'GET'),
      await app.get('/1/schemas'),
      await app.get(`/1/classes/${cls}`, { query: { where: '{' } }),
      await app.get(`/1/classes/${cls}`, { query: { limit: 'x' } }),
      await app.request('POST', `/1/classes/${cls}`, { raw: '[1, 2]' }),
      await app.request('POST', `/1/classes/${cls}`, { raw: JSON.stringify({ big: 'x'.repeat(1_100_000) }) }),
      await http(`${target.url}/1/nowhere`, 'GET'),
      await http(`${target.url}/1/classes/%E0%A4%A`, 'GET'),
      await http(`${target.url}/1/apps`, 'GET', { headers: { 'X-Svc-Email': ADMIN.email, 'X-Svc-Password': 'wrong' } }),
    ];
    for (const response of responses) {
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/, `${response.status} ${response.text.slice(0, 200)}`);
      assert.ok(response.body !== null && typeof response.body === 'object' && !Array.isArray(response.body), `${response.status} ${response.text.slice(0, 200)}`);
    }
  });

  it('answers creations with 201 and a Location that reads the new resource', async () => {
    const created = await app.post(`/1/classes/${cls}`, { e: 5 });
    assert.equal(created.status, 201);
    const location = created.headers.get('location');
    assert.equal(location, `${target.url}/1/classes/${cls}/${created.body.objectId}`);
    const fetched = await http(location!, 'GET', { headers: { 'X-Svc-Application-Id': app.app.applicationId, 'X-Svc-REST-API-Key': app.app.restKey } });
    assert.equal(fetched.status, 200);
    assert.equal(fetched.body.e, 5);

    const appCreated = await http(`${target.url}/1/apps`, 'POST', { body: { appName: unique('app') }, headers: { 'X-Svc-Email': ADMIN.email, 'X-Svc-Password': ADMIN.password } });
    assert.equal(appCreated.status, 201);
    const appLocation = appCreated.headers.get('location');
    assert.equal(appLocation, `${target.url}/1/apps/${appCreated.body.applicationId}`);
    const appFetched = await http(appLocation!, 'GET', { headers: { 'X-Svc-Email': ADMIN.email, 'X-Svc-Password': ADMIN.password } });
    assert.equal(appFetched.status, 200);
    assert.equal(appFetched.body.applicationId, appCreated.body.applicationId);
  });

  it('reads a body as JSON whatever its content type, and treats an empty body as none', async () => {
    for (const contentType of ['application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/octet-stream']) {
      const created = await app.request('POST', `/1/classes/${cls}`, { raw: '{"kind":"typed"}', headers: { 'Content-Type': contentType } });
      assert.equal(created.status, 201, `${contentType}: ${created.text}`);
      assert.equal((await app.get(`/1/classes/${cls}/${created.body.objectId}`)).body.kind, 'typed');
    }
    const empty = await app.request('PUT', objectPath, { raw: '', headers: { 'Content-Type': 'application/json' } });
    assert.equal(empty.status, 200, empty.text);
    assert.equal((await app.get(objectPath)).body.a, 1);
  });
});
