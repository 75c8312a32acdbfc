import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { rawExchange } from '../helpers/keep-alive.ts';
import { http, newApp, type AppClient } from '../helpers/client.ts';
import { assertError } from '../helpers/users.ts';


function parseRaw(answer: string): { status: number; body: any } {
  const [head, body] = answer.split('\r\n\r\n', 2) as [string, string];
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), body: JSON.parse(body) };
}

/**
 * Requests the fuzzer (fuzz.test.ts) found answered with a 500 or a body of another shape, each
 * kept here as a case of its own: every one now gets a 4xx `{code, error}`.
 */
eachBackend('hostile requests found by the fuzzer', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newApp(target);
  });

  it('answers a file URL whose application id holds NUL with 404/101 (PostgreSQL refused the lookup)', async () => {
    assertError(await http(`${target.url}/files/%00/a.txt`, 'GET'), 404, 101);
    assertError(await http(`${target.url}/files/a%00b/a.txt`, 'GET'), 404, 101);
  });

  it('refuses NUL in a query-string value or name with 400/107 (PostgreSQL refused the login lookup)', async () => {
    assertError(await app.get('/1/login', { query: { username: '\u0000', password: 'x' } }), 400, 107, 'login');
    assertError(await app.get('/1/login', { query: { username: 'a\u0000b', password: 'x' } }), 400, 107, 'login');
    assertError(await app.get('/1/classes/Thing', { query: { order: 'a\u0000' } }), 400, 107, 'order');
    assertError(await app.get('/1/users', { query: { 'x\u0000': '1' } }), 400, 107, 'name');
    const still = await app.get('/1/login', { query: { username: 'nobody', password: 'x' } });
    assertError(still, 404, 101, 'an ordinary wrong login');
  });

  it('refuses a JSON object with a toString key where a string belongs with its own 4xx (quoting it in the message threw a 500)', async () => {
    assertError(await app.post('/1/requestPasswordReset', { email: { toString: 0 } }), 400, 125, 'password reset');
    assertError(await app.post('/1/requestPasswordReset', { email: { toString: 'x', valueOf: 1 } }), 400, 125, 'password reset');
    assertError(await app.post('/1/users', { username: `u${Date.now()}`, password: 'p', email: { toString: 1 } }), 400, 125, 'sign-up');
    assertError(await app.post('/1/roles', { name: { toString: '' } }), 400, 139, 'role');
    assertError(await app.post('/1/roles', { name: [{ toString: 1 }] }), 400, 139, 'role named by an array');
    assertError(await app.request('PUT', '/1/schemas/Thing', { body: { className: { toString: 1 } }, key: 'master' }), 400, 103, 'schema');
    assertError(await app.request('POST', '/1/schemas/Thing', { body: { className: [{ toString: 1 }] }, key: 'master' }), 400, 103, 'schema');
    assert.equal((await app.get('/1/roles', { key: 'master' })).body.results.length, 0, 'no role was written');
  });

  it('answers request headers over 16 KB with 431 and {code: 116, error}', async () => {
    const response = await http(`${target.url}/1/classes/Thing`, 'GET', { headers: { 'X-Svc-Application-Id': app.app.applicationId, 'X-Padding': 'x'.repeat(20_000) } });
    assertError(response, 431, 116);
    const longUrl = await http(`${target.url}/1/classes/Thing?where=${'%7B'.repeat(6_000)}`, 'GET', { headers: { 'X-Svc-Application-Id': app.app.applicationId } });
    assertError(longUrl, 431, 116, 'a URL over the limit');
  });

  it('answers 431 and {code: 116, error} to headers over 16 KB followed by a body the client goes on sending', async () => {
    for (const [round, size] of [300_000, 3_000_000, 300_000, 3_000_000, 300_000].entries()) {
      const response = await fetch(`${target.url}/1/batch`, {
        method: round % 2 ? 'OPTIONS' : 'POST',
        headers: { 'X-Svc-Application-Id': 'x'.repeat(8_000), 'X-Padding': 'y'.repeat(9_000), 'Content-Type': 'application/json' },
        body: 'z'.repeat(size),
      });
      assert.equal(response.status, 431, `round ${round}`);
      assert.deepEqual(Object.keys(await response.json()).sort(), ['code', 'error']);
    }
  });

  it('answers a request that is not HTTP with 400 and {code: 107, error}', async () => {
    const answer = parseRaw(await rawExchange(target.url, 'THIS IS NOT HTTP\r\n\r\n'));
    assert.equal(answer.status, 400);
    assert.deepEqual(Object.keys(answer.body).sort(), ['code', 'error']);
    assert.equal(answer.body.code, 107);
    const badHeader = parseRaw(await rawExchange(target.url, 'GET /health HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n'));
    assert.equal(badHeader.status, 400);
    assert.equal(badHeader.body.code, 107);
  });
});
