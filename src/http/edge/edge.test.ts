import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import pino from 'pino';
import { Edge } from './edge.ts';
import { HttpServer } from './server.ts';
import type { EdgeRoute } from './types.ts';

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

/** node:http, so that HEAD, OPTIONS and any Content-Type can be sent as they are. */
function send(url: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const all: Record<string, string | number> = { ...headers };
    if (body !== undefined) all['Content-Length'] = Buffer.byteLength(body);
    const req = httpRequest(`${url}${path}`, { method, headers: all, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Routes that answer what they were given, to see what the edge hands a route and sends back. */
const ROUTES: EdgeRoute[] = [
  { method: 'GET', path: '/echo/:name', handler: (request) => ({ status: 200, body: { name: request.params.name, query: request.query } }) },
  { method: 'POST', path: '/echo', handler: (request) => ({ status: 201, body: { body: request.body ?? null } }) },
  { method: 'POST', path: '/form', body: 'form', handler: (request) => ({ status: 200, body: { body: request.body ?? null } }) },
  { method: 'GET', path: '/page', head: false, handler: () => ({ status: 200, body: '<p>once</p>', headers: { 'Content-Type': 'text/html; charset=utf-8' } }) },
];

describe('the HTTP edge', () => {
  let server: HttpServer;
  let edge: Edge;
  let url: string;
  before(async () => {
    edge = new Edge(ROUTES, { bodyLimit: 1024, trustProxy: false }, pino({ level: 'silent' }));
    server = new HttpServer(edge);
    url = await server.listen(0, '127.0.0.1');
  });
  after(() => server.close());

  it('routes, decodes parameters and parses the query string', async () => {
    const reply = await send(url, 'GET', '/echo/a%20b/?x=1&x=2&y=z');
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(JSON.parse(reply.text), { name: 'a b', query: { x: ['1', '2'], y: 'z' } });
    assert.equal(reply.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(reply.headers['access-control-allow-origin'], '*');
    assert.match(String(reply.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  });

  it('answers HEAD of a GET route with its headers and no body, unless the route declines HEAD', async () => {
    const got = await send(url, 'GET', '/echo/x');
    const head = await send(url, 'HEAD', '/echo/x');
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal(head.headers['content-length'], got.headers['content-length']);
    assert.equal(head.headers['content-type'], got.headers['content-type']);
    assert.equal((await send(url, 'HEAD', '/page')).status, 404);
    assert.equal((await send(url, 'GET', '/page')).text, '<p>once</p>');
  });

  it('answers OPTIONS on any path with the CORS preflight', async () => {
    for (const path of ['/echo/x', '/nowhere']) {
      const reply = await send(url, 'OPTIONS', path, { Origin: 'https://a.test' });
      assert.equal(reply.status, 204, path);
      assert.equal(reply.text, '');
      assert.equal(reply.headers['access-control-allow-origin'], 'https://a.test');
      assert.equal(reply.headers['access-control-allow-methods'], 'GET, POST, PUT, DELETE, OPTIONS');
    }
  });

  it('reads a JSON body whatever its type, URL-encoded fields only on a form route, and no body as none', async () => {
    for (const type of ['application/json', 'text/plain', 'application/octet-stream', 'application/x-www-form-urlencoded']) {
      const reply = await send(url, 'POST', '/echo', { 'Content-Type': type }, '{"a":1}');
      assert.equal(reply.status, 201, `${type}: ${reply.text}`);
      assert.deepEqual(JSON.parse(reply.text), { body: { a: 1 } }, type);
    }
    assert.deepEqual(JSON.parse((await send(url, 'POST', '/echo')).text), { body: null });
    const form = await send(url, 'POST', '/form', { 'Content-Type': 'application/x-www-form-urlencoded' }, 'a=1&b=x%20y');
    assert.deepEqual(JSON.parse(form.text), { body: { a: '1', b: 'x y' } });
    const json = await send(url, 'POST', '/form', { 'Content-Type': 'application/json' }, '{"a":1}');
    assert.deepEqual(JSON.parse(json.text), { body: { a: 1 } });
  });

  it('refuses malformed JSON with 400/107 and a body over the limit with 413/116', async () => {
    const malformed = await send(url, 'POST', '/echo', { 'Content-Type': 'application/json' }, '{"a":');
    assert.equal(malformed.status, 400);
    assert.deepEqual(JSON.parse(malformed.text), { code: 107, error: 'The request body is not valid JSON.' });
    const large = await send(url, 'POST', '/echo', { 'Content-Type': 'application/json' }, JSON.stringify({ a: 'x'.repeat(2000) }));
    assert.equal(large.status, 413);
    assert.deepEqual(JSON.parse(large.text), { code: 116, error: 'The request body is too large.' });
  });

  it('answers an unknown path or method with 404/108, naming the method a POST body asks for', async () => {
    const get = await send(url, 'GET', '/nowhere?x=1');
    assert.equal(get.status, 404);
    assert.deepEqual(JSON.parse(get.text), { code: 108, error: 'No endpoint at GET /nowhere.' });
    const patch = await send(url, 'PATCH', '/echo');
    assert.deepEqual(JSON.parse(patch.text), { code: 108, error: 'No endpoint at PATCH /echo.' });
    const override = await send(url, 'POST', '/nowhere', { 'Content-Type': 'text/plain' }, '{"_method":"PUT"}');
    assert.equal(override.status, 404);
    assert.deepEqual(JSON.parse(override.text), { code: 108, error: 'No endpoint at PUT /nowhere.' });
    const broken = await send(url, 'GET', '/echo/%E0%A4%A');
    assert.equal(broken.status, 404);
    assert.equal(JSON.parse(broken.text).code, 108);
  });

  it('answers 503 with {code, error} and closes the connection once the server is closing', async () => {
    edge.close();
    const reply = await send(url, 'GET', '/echo/x');
    assert.equal(reply.status, 503);
    assert.deepEqual(JSON.parse(reply.text), { code: 100, error: 'The server is shutting down; send the request again.' });
    assert.equal(reply.headers.connection, 'close');
  });
});
