import { request as httpRequest } from 'node:http';
import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';

/**
 * Every request passes Basalt's one HTTP edge (src/http/edge/), whatever its shape: a JSON body
 * of a declared length or a chunked one, a body of another content type, HEAD beside GET, escaped
 * and trailing-slash paths, `_method` overrides. Each test sends one request in several shapes
 * and expects the same answer and the same stored effect.
 */

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  readonly body: any;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** node:http, so that a body can be sent chunked (no Content-Length) or with any Content-Type. */
function send(url: string, method: string, path: string, headers: Record<string, string>, body?: string, chunked = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const all: Record<string, string | number> = { ...headers };
    if (body !== undefined && !chunked) all['Content-Length'] = Buffer.byteLength(body);
    const req = httpRequest({ hostname, port, method, path, headers: all }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
      });
    });
    req.on('error', reject);
    if (body !== undefined && chunked) {
      // Two writes without a length: node sends the body in chunked transfer encoding.
      req.write(body.slice(0, 3));
      req.end(body.slice(3));
    } else req.end(body);
  });
}

eachBackend('app routes in every request shape', (target) => {
  let app: AppClient;
  let keys: Record<string, string>;

  before(async () => {
    app = await newApp(target);
    keys = { 'X-Parse-Application-Id': app.app.applicationId, 'X-Parse-REST-API-Key': app.app.restKey };
  });

  const json = (type: string) => ({ 'Content-Type': type });

  it('creates the same object from a JSON body of a declared length, a chunked one and one of another content type', async () => {
    const cls = unique('Front');
    const body = JSON.stringify({ title: 'same', n: 1, tags: ['a'] });
    const shapes: [string, Record<string, string>, boolean][] = [
      ['application/json', json('application/json'), false],
      ['text/plain from the JS SDK', json('text/plain;charset=UTF-8'), false],
      ['chunked', json('application/json'), true],
      ['form-urlencoded type', json('application/x-www-form-urlencoded'), false],
    ];
    for (const [label, headers, chunked] of shapes) {
      const created = await send(target.url, 'POST', `/1/classes/${cls}`, { ...keys, ...headers }, body, chunked);
      assert.equal(created.status, 201, `${label}: ${created.text}`);
      assert.deepEqual(Object.keys(created.body).sort(), ['createdAt', 'objectId'], label);
      assert.equal(created.headers.location, `${target.url}/1/classes/${cls}/${created.body.objectId}`, label);
      assert.match(String(created.headers['x-request-id']), UUID, label);
      assert.equal(created.headers['access-control-allow-origin'], '*', label);
      assert.equal(created.headers['content-type'], 'application/json; charset=utf-8', label);
      const read = await app.get(`/1/classes/${cls}/${created.body.objectId}`);
      assert.equal(read.status, 200, read.text);
      assert.deepEqual({ title: read.body.title, n: read.body.n, tags: read.body.tags }, { title: 'same', n: 1, tags: ['a'] }, label);
    }
    const listed = await app.get(`/1/classes/${cls}`);
    assert.equal(listed.body.results.length, shapes.length);
  });

  it('refuses malformed JSON and a body that is not an object alike, sized or chunked, and writes nothing', async () => {
    const cls = unique('Front');
    for (const chunked of [false, true]) {
      const malformed = await send(target.url, 'POST', `/1/classes/${cls}`, { ...keys, ...json('application/json') }, '{"a": ', chunked);
      assert.equal(malformed.status, 400, malformed.text);
      assert.deepEqual(malformed.body, { code: 107, error: 'The request body is not valid JSON.' });
      const list = await send(target.url, 'POST', `/1/classes/${cls}`, { ...keys, ...json('application/json') }, '[1, 2]', chunked);
      assert.equal(list.status, 400, list.text);
      assert.deepEqual(list.body, { code: 107, error: 'The request body must be a JSON object.' });
      const proto = await send(target.url, 'POST', `/1/classes/${cls}`, { ...keys, ...json('text/plain') }, '{"__proto__": {"x": 1}}', chunked);
      assert.equal(proto.status, 400, proto.text);
      assert.equal(proto.body.code, 107);
    }
    const listed = await app.get(`/1/classes/${cls}`);
    assert.deepEqual(listed.body, { results: [] });
  });

  it('answers HEAD with the headers of the GET, without a body', async () => {
    const cls = unique('Front');
    const created = await app.post(`/1/classes/${cls}`, { v: 'head' });
    const path = `/1/classes/${cls}/${created.body.objectId}`;
    const got = await send(target.url, 'GET', path, keys);
    const head = await send(target.url, 'HEAD', path, keys);
    assert.equal(got.status, 200, got.text);
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal(head.headers['content-length'], got.headers['content-length']);
    assert.equal(head.headers['content-type'], got.headers['content-type']);
    assert.match(String(head.headers['x-request-id']), UUID);
    assert.notEqual(head.headers['x-request-id'], got.headers['x-request-id']);
  });

  it('routes trailing slashes, escaped names and _method overrides as before', async () => {
    const cls = unique('Front');
    const created = await app.post(`/1/classes/${cls}`, { v: 1 });
    const id = String(created.body.objectId);
    const slash = await send(target.url, 'GET', `/1/classes/${cls}/${id}/`, keys);
    assert.equal(slash.status, 200, slash.text);
    assert.equal(slash.body.objectId, id);
    const escaped = await send(target.url, 'GET', `/1/classes/${cls.replace(/^F/, '%46')}/${id}`, keys);
    assert.equal(escaped.status, 200, escaped.text);
    assert.equal(escaped.body.objectId, id);
    const override = await send(target.url, 'POST', `/1/classes/${cls}/${id}`, { ...keys, ...json('text/plain') }, JSON.stringify({ _method: 'GET' }));
    assert.equal(override.status, 200, override.text);
    assert.equal(override.body.objectId, id);
    const put = await send(target.url, 'POST', `/1/classes/${cls}/${id}`, { ...keys, ...json('text/plain') }, JSON.stringify({ _method: 'PUT', v: 2 }));
    assert.equal(put.status, 200, put.text);
    assert.equal((await app.get(`/1/classes/${cls}/${id}`)).body.v, 2);
    const deleted = await send(target.url, 'DELETE', `/1/classes/${cls}/${id}`, { ...keys, 'Content-Length': '0' });
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(deleted.body, {});
    assert.equal((await app.get(`/1/classes/${cls}/${id}`)).status, 404);
  });

  it('answers paths no app route matches with 404/108, and a broken escape too', async () => {
    for (const path of ['/1/classez/Thing', '/1/classes/A/b/c', '/1/classes/%E0%A4%A/x', `/1/classes/${'x'.repeat(1001)}/y`]) {
      const answer = await send(target.url, 'GET', path, keys);
      assert.equal(answer.status, 404, `${path.slice(0, 40)}: ${answer.text}`);
      assert.equal(answer.body.code, 108, path.slice(0, 40));
      assert.match(String(answer.headers['x-request-id']), UUID);
    }
  });

  it('gives a browser the CORS headers whether the body is sized or chunked', async () => {
    const origin = 'https://app.example.test';
    const cls = unique('Front');
    const sized = await send(target.url, 'POST', `/1/classes/${cls}`, { ...keys, ...json('application/json'), Origin: origin }, '{"a":1}');
    const chunked = await send(target.url, 'POST', `/1/classes/${cls}`, { ...keys, ...json('application/json'), Origin: origin }, '{"a":1}', true);
    for (const answer of [sized, chunked]) {
      assert.equal(answer.status, 201, answer.text);
      assert.equal(answer.headers['access-control-allow-origin'], origin);
      assert.equal(answer.headers.vary, 'Origin');
      assert.match(String(answer.headers['access-control-expose-headers']), /X-Request-Id, Location/);
    }
  });
});
