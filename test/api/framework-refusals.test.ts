import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { rawExchange } from '../helpers/keep-alive.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';

/**
 * Requests node:http refuses or answers itself before any route runs (its parser's refusals, an
 * Expect header other than 100-continue) get `{code, error}` like every other failure.
 */


function parseRaw(answer: string): { status: number; headers: string; body: any } {
  const [head, body] = answer.split('\r\n\r\n', 2) as [string, string];
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head.toLowerCase(), body: JSON.parse(body) };
}

const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part))));

eachBackend('refusals node:http makes before any route', (target) => {
  let app: AppClient;
  let keys: string;
  before(async () => {
    app = await newApp(target);
    keys = `X-Parse-Application-Id: ${app.app.applicationId}\r\nX-Parse-REST-API-Key: ${app.app.restKey}\r\n`;
  });

  const assertRefusal = (answer: string, status: number, code: number) => {
    const parsed = parseRaw(answer);
    assert.equal(parsed.status, status, answer);
    assert.deepEqual(Object.keys(parsed.body).sort(), ['code', 'error']);
    assert.equal(parsed.body.code, code);
    assert.equal(typeof parsed.body.error, 'string');
    assert.match(parsed.headers, /content-type: application\/json; charset=utf-8/);
    return parsed;
  };

  it('answers a path with raw bytes outside ASCII with 400/107, and creates nothing', async () => {
    const className = unique('Raw');
    const utf8 = await rawExchange(target.url, bytes(`POST /1/classes/${className}/caf`, [0xc3, 0xa9], ` HTTP/1.1\r\nHost: x\r\n${keys}Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`));
    assert.match(assertRefusal(utf8, 400, 107).body.error, /escaped/);
    assertRefusal(await rawExchange(target.url, bytes('GET /health', [0xff], ' HTTP/1.1\r\nHost: x\r\n\r\n')), 400, 107);
    assertRefusal(await rawExchange(target.url, bytes(`GET /1/classes/${className}`, [0xe9], ` HTTP/1.1\r\nHost: x\r\n${keys}\r\n`)), 400, 107);
    // The escaped form of the same path is routed as usual.
    const listed = await app.request('GET', `/1/classes/${className}`);
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.body.results, []);
  });

  it('answers an Expect header other than 100-continue with 417/107, and runs nothing', async () => {
    const className = unique('Expect');
    const body = JSON.stringify({ n: 1 });
    const post = await rawExchange(target.url, bytes(`POST /1/classes/${className} HTTP/1.1\r\nHost: x\r\n${keys}Content-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 200-ok\r\n\r\n${body}`));
    assert.match(assertRefusal(post, 417, 107).body.error, /Expect/);
    assertRefusal(await rawExchange(target.url, bytes('GET /health HTTP/1.1\r\nHost: x\r\nExpect: something\r\n\r\n')), 417, 107);
    const listed = await app.request('GET', `/1/classes/${className}`);
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.body.results, []);
  });

  it('answers the other requests node cannot parse with 400/107', async () => {
    const refused = [
      'GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      'GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      'GET /health HTTP/9.9\r\nHost: x\r\n\r\n',
      'GET /health HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n',
      'POST /health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    ];
    for (const raw of refused) assertRefusal(await rawExchange(target.url, bytes(raw)), 400, 107);
  });
});
