import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import { FILE_LIMIT, keyHeaders } from '../helpers/files.ts';
import { KeptAliveConnection, type WireAnswer } from '../helpers/keep-alive.ts';

/** Long enough for a few hundred MB over loopback on a busy machine; it only stops a hang. */
const HANG_GUARD = { timeout: 300_000 };
const OVERSIZED_FILE = Buffer.alloc(FILE_LIMIT + 1024 * 1024, 0x61);
const OVERSIZED_JSON = Buffer.from(JSON.stringify({ blob: 'x'.repeat(1_100_000) }));

function refused(answer: { status: number; body: any; text: string }, status: number, code: number, context: string): void {
  assert.equal(answer.status, status, `${context}: ${answer.text.slice(0, 200)}`);
  assert.deepEqual(Object.keys(answer.body).sort(), ['code', 'error'], context);
  assert.equal(answer.body.code, code, context);
  assert.equal(typeof answer.body.error, 'string', context);
}

function keptAlive(answer: WireAnswer, context: string): void {
  assert.notEqual(answer.headers.connection, 'close', `${context}: the rest of the body is read, not cut off`);
}

/**
 * Spec 8 (limits) over HTTP/1.1 keep-alive: a body refused for its size (a file over 10 MB,
 * 413/129; JSON over 1 MB, 413/116) while the client is still sending it is read to its end and
 * dropped, so the client always reads the refusal (a connection closed under a client still
 * writing is reset, and the answer lost with it), and the connection serves the next request.
 */
eachBackend('bodies over the size limits, on a kept-alive connection', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newApp(target);
  });

  it('refuses 30 uploads over the file limit in a row on one raw connection, sized or chunked, with and without Expect: 100-continue, and then stores a file', HANG_GUARD, async () => {
    const connection = await KeptAliveConnection.open(target.url);
    try {
      for (let round = 0; round < 30; round++) {
        const context = `upload ${round}`;
        const answer = await connection.request({
          method: 'POST',
          path: `/1/files/big-${round}.bin`,
          headers: { ...keyHeaders(app), 'Content-Type': 'application/octet-stream' },
          body: OVERSIZED_FILE,
          chunk: 256 * 1024,
          expectContinue: round % 3 === 2,
          chunked: round % 5 === 4,
        });
        refused(answer, 413, 129, context);
        keptAlive(answer, context);
      }
      const stored = await connection.request({ method: 'POST', path: '/1/files/after.txt', headers: { ...keyHeaders(app), 'Content-Type': 'text/plain' }, body: Buffer.from('after') });
      assert.equal(stored.status, 201, stored.text);
      const file = await fetch(stored.body.url);
      assert.equal(await file.text(), 'after');
    } finally {
      connection.close();
    }
  });

  // node's client does not reuse a connection whose answer came before its body was sent, so
  // these show that the client reads every refusal; the raw connection above shows the reuse.
  it('refuses uploads over the file limit through fetch and through http.request on a kept-alive agent, with and without Expect: 100-continue', HANG_GUARD, async () => {
    for (let round = 0; round < 8; round++) {
      const response = await fetch(`${target.url}/1/files/fetched-${round}.bin`, { method: 'POST', headers: { ...keyHeaders(app), 'Content-Type': 'application/octet-stream' }, body: OVERSIZED_FILE });
      const text = await response.text();
      refused({ status: response.status, body: JSON.parse(text), text }, 413, 129, `fetch ${round}`);
    }
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let round = 0; round < 8; round++) {
        const expectContinue = round % 2 === 1;
        const answer = await agentUpload(agent, `${target.url}/1/files/agent-${round}.bin`, { ...keyHeaders(app), 'Content-Type': 'application/octet-stream' }, OVERSIZED_FILE, expectContinue);
        refused(answer, 413, 129, `http.request ${round}${expectContinue ? ' (100-continue)' : ''}`);
      }
      const small = await agentUpload(agent, `${target.url}/1/files/small.txt`, { ...keyHeaders(app), 'Content-Type': 'text/plain' }, Buffer.from('small'), false);
      assert.equal(small.status, 201, small.text);
    } finally {
      agent.destroy();
    }
  });

  it('refuses JSON bodies over 1 MB with 413/116 on one raw connection, whatever their type and framing, writes nothing, and then serves a create', HANG_GUARD, async () => {
    const className = unique('Big');
    const connection = await KeptAliveConnection.open(target.url);
    const headers = { ...keyHeaders(app) };
    try {
      // Every type is read as JSON, within the same limit.
      for (const type of ['application/json', 'text/plain', 'application/octet-stream']) {
        for (let round = 0; round < 5; round++) {
          const context = `${type} ${round}`;
          for (const [method, path] of [['POST', `/1/classes/${className}`], ['POST', '/1/batch'], ['PUT', `/1/classes/${className}/nope`]]) {
            const answer = await connection.request({ method: method!, path: path!, headers: { ...headers, 'Content-Type': type }, body: OVERSIZED_JSON, chunk: 128 * 1024, expectContinue: round === 4, chunked: round === 3 });
            refused(answer, 413, 116, `${context} ${method} ${path}`);
            keptAlive(answer, context);
          }
        }
      }
      const created = await connection.request({ method: 'POST', path: `/1/classes/${className}`, headers: { ...headers, 'Content-Type': 'application/json' }, body: Buffer.from('{"small":true}') });
      assert.equal(created.status, 201, created.text);
      const listed = await app.get(`/1/classes/${className}`, { key: 'master' });
      assert.deepEqual(
        listed.body.results.map((row: { small: boolean }) => row.small),
        [true],
        'only the small object was written',
      );
    } finally {
      connection.close();
    }
  });
});

interface AgentAnswer {
  readonly status: number;
  readonly text: string;
  readonly body: any;
}

/** An upload through node's client on `agent`; with Expect: 100-continue the body waits for the 100. */
function agentUpload(agent: Agent, url: string, headers: Record<string, string>, body: Buffer, expectContinue: boolean): Promise<AgentAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', agent, headers: { ...headers, 'Content-Length': String(body.length), ...(expectContinue ? { Expect: '100-continue' } : {}) } });
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, text, body: text ? JSON.parse(text) : undefined });
      });
    });
    if (expectContinue) req.on('continue', () => req.end(body));
    else req.end(body);
  });
}
