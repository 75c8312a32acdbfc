import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { http } from '../helpers/client.ts';
import { start, stop, tempDatabase, tempDir } from '../helpers/process.ts';
import { targets } from '../helpers/targets.ts';

/**
 * At level info every request writes an "incoming request" and a "request completed" line with
 * its request id, GET and HEAD alike (the edge, src/http/edge/), and secret query values never
 * reach the log.
 */
describe('request log', () => {
  for (const backend of targets().map((t) => t.backend)) {
    it(`logs both lines for a GET and a HEAD, with the X-Request-Id and a redacted password [${backend}]`, async () => {
      const dataDir = tempDir();
      const database = backend === 'postgres' ? await tempDatabase() : null;
      const env: Record<string, string> = { BASALT_DATA_DIR: dataDir, BASALT_APP_ID: 'logged', BASALT_REST_KEY: 'r', BASALT_LOG_LEVEL: 'info' };
      if (database) env.BASALT_DATABASE_URL = database.url;
      const server = await start(env);
      try {
        const headers = { 'X-Parse-Application-Id': 'logged', 'X-Parse-REST-API-Key': 'r' };
        // GET /1/login is an app route; its HEAD is answered from it.
        const got = await http(`${server.url}/1/login?username=someone&password=hunter2`, 'GET', { headers });
        const head = await fetch(`${server.url}/1/login?username=someone&password=hunter2`, { method: 'HEAD', headers });
        assert.equal(got.status, 404, got.text);
        assert.equal(got.body.code, 101);
        assert.equal(head.status, 404);
        for (const [label, id, status] of [['GET', got.headers.get('x-request-id'), 404], ['HEAD', head.headers.get('x-request-id'), 404]] as const) {
          assert.ok(id, label);
          const lines = await linesOf(server.stdout, id, 2);
          const incoming = lines.find((line) => line.msg === 'incoming request');
          const completed = lines.find((line) => line.msg === 'request completed');
          assert.ok(incoming && completed, `${label}: ${JSON.stringify(lines)}`);
          assert.equal(incoming.level, 30);
          assert.equal(incoming.req.url, '/1/login?username=someone&password=[redacted]', label);
          assert.equal(incoming.req.remoteAddress, '127.0.0.1', label);
          assert.equal(typeof incoming.req.remotePort, 'number', label);
          assert.match(incoming.req.host, /^127\.0\.0\.1:\d+$/, label);
          assert.deepEqual(completed.res, { statusCode: status }, label);
          assert.equal(typeof completed.responseTime, 'number', label);
        }
        assert.ok(!server.stdout().includes('hunter2'), 'the password is not in the log');
      } finally {
        await stop(server);
        await database?.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  }
});

/** The JSON log lines of one request id, once `count` of them are written (output comes in chunks). */
async function linesOf(output: () => string, reqId: string, count: number): Promise<Record<string, any>[]> {
  let lines: Record<string, any>[] = [];
  for (let attempt = 0; attempt < 100; attempt++) {
    lines = output()
      .split('\n')
      .filter((text) => text.startsWith('{'))
      .map((text) => JSON.parse(text) as Record<string, any>)
      .filter((line) => line.reqId === reqId);
    if (lines.length >= count) return lines;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return lines;
}
