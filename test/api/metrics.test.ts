import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { eachBackend } from '../helpers/each-backend.ts';
import { http } from '../helpers/client.ts';
import { start, stop, tempDatabase, tempDir, type Started } from '../helpers/process.ts';
import { targets } from '../helpers/targets.ts';

/**
 * GET /metrics (Prometheus text format) is off by default; with --metrics and --metrics-token it
 * answers a scrape that sends the token, and counts every request once, whatever its shape.
 */

eachBackend('GET /metrics without --metrics', (target) => {
  it('is not served: 404, code 108, as any unknown path', async () => {
    const response = await http(`${target.url}/metrics`, 'GET');
    assert.equal(response.status, 404, response.text);
    assert.equal(response.body.code, 108);
    assert.equal(typeof response.body.error, 'string');
  });
});

const TOKEN = 'scrape-secret-1';
const APP = 'metered';
const KEYS = { 'X-Parse-Application-Id': APP, 'X-Parse-REST-API-Key': 'r' };
const MASTER = { 'X-Parse-Application-Id': APP, 'X-Parse-Master-Key': 'm' };

/** node:http, so that a body can be sent chunked or with a declared length. */
function send(url: string, method: string, path: string, body: string | undefined, chunked: boolean): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const headers: Record<string, string | number> = { ...KEYS, 'Content-Type': 'application/json' };
    if (body !== undefined && !chunked) headers['Content-Length'] = Buffer.byteLength(body);
    const req = httpRequest({ hostname, port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    if (body !== undefined && chunked) {
      req.write(body.slice(0, 3));
      req.end(body.slice(3));
    } else req.end(body);
  });
}

/** The samples of a scrape, by metric name and labels as written (`name{a="b"}`). */
function samples(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    found.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return found;
}

describe('GET /metrics with --metrics and --metrics-token', () => {
  for (const backend of targets().map((t) => t.backend)) {
    describe(`[${backend}]`, () => {
      let server: Started;
      let dataDir: string;
      let database: { url: string; drop: () => Promise<void> } | null = null;

      before(async () => {
        dataDir = tempDir();
        database = backend === 'postgres' ? await tempDatabase() : null;
        const env: Record<string, string> = { BASALT_DATA_DIR: dataDir, BASALT_APP_ID: APP, BASALT_REST_KEY: 'r', BASALT_MASTER_KEY: 'm', BASALT_QUEUE_CONCURRENCY: '0', BASALT_METRICS: 'true', BASALT_METRICS_TOKEN: TOKEN };
        if (database) env.BASALT_DATABASE_URL = database.url;
        server = await start(env);
      });

      after(async () => {
        await stop(server);
        await database?.drop();
        rmSync(dataDir, { recursive: true, force: true });
      });

      const scrape = async () => {
        const response = await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
        assert.equal(response.status, 200);
        assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
        return samples(await response.text());
      };

      it('refuses a scrape without the token (401, code 903) or with another (403, code 119)', async () => {
        for (const headers of [{} as Record<string, string>, { Authorization: 'Basic c2NyYXBlOnNlY3JldA==' }, { Authorization: 'Bearer' }]) {
          const response = await http(`${server.url}/metrics`, 'GET', { headers });
          assert.equal(response.status, 401, JSON.stringify(headers));
          assert.equal(response.body.code, 903);
          assert.equal(typeof response.body.error, 'string');
        }
        for (const token of ['wrong', `${TOKEN}x`, TOKEN.slice(0, -1)]) {
          const response = await http(`${server.url}/metrics`, 'GET', { headers: { Authorization: `Bearer ${token}` } });
          assert.equal(response.status, 403, token);
          assert.equal(response.body.code, 119);
          assert.ok(!response.text.includes('basalt_'), 'no figures in a refusal');
        }
      });

      // The first scrape of this server: the queue figures are reused for 5 s after a scrape.
      it('reports the database, the job queue (no worker runs: --queue-concurrency 0) and no cloud code worker restart (no cloud code here; cloud-isolation.test.ts counts them)', async () => {
        const enqueued = await http(`${server.url}/1/queue/jobs`, 'POST', { headers: MASTER, body: { type: 'noop', payload: { ms: 0 }, count: 3 } });
        assert.equal(enqueued.status, 201, enqueued.text);
        const figures = await scrape();
        assert.ok((figures.get('basalt_db_open_apps') ?? 0) >= 1, 'the default app is open');
        assert.equal(figures.get('basalt_queue_pending_jobs'), 3);
        const age = figures.get('basalt_queue_oldest_due_seconds')!;
        assert.ok(age >= 0 && age < 60, String(age));
        assert.equal(figures.get('basalt_worker_restarts_total'), 0);
        if (backend === 'postgres') {
          assert.ok((figures.get('basalt_db_pool_connections{pool="main",state="total"}') ?? 0) >= 1);
          assert.equal(typeof figures.get('basalt_db_pool_connections{pool="main",state="waiting"}'), 'number');
        } else assert.ok(![...figures.keys()].some((name) => name.startsWith('basalt_db_pool_connections')), 'no pools on SQLite');
      });
      it('counts the requests sent, per route family and status class, sized or chunked', async () => {
        const before = await scrape();
        // Two JSON bodies of a declared length, one chunked.
        for (const chunked of [false, false, true]) {
          const created = await send(server.url, 'POST', '/1/classes/Meter', JSON.stringify({ n: 1 }), chunked);
          assert.equal(created.status, 201, created.text);
        }
        // A 4xx of the classes family, without a body and with a chunked one.
        assert.equal((await send(server.url, 'GET', '/1/classes/Meter/nothere', undefined, false)).status, 404);
        assert.equal((await send(server.url, 'PUT', '/1/classes/Meter/nothere', '{"n":2}', true)).status, 404);
        const batch = await send(server.url, 'POST', '/1/batch', JSON.stringify({ requests: [{ method: 'POST', path: '/1/classes/Meter', body: { n: 3 } }] }), false);
        assert.equal(batch.status, 200, batch.text);
        assert.equal((await send(server.url, 'GET', '/1/no-such-route/at-all', undefined, false)).status, 404);
        const afterwards = await scrape();

        const moved = (name: string) => (afterwards.get(name) ?? 0) - (before.get(name) ?? 0);
        assert.equal(moved('basalt_http_requests_total{family="classes",status="2xx"}'), 3);
        assert.equal(moved('basalt_http_requests_total{family="classes",status="4xx"}'), 2);
        assert.equal(moved('basalt_http_requests_total{family="classes",status="5xx"}'), 0);
        assert.equal(moved('basalt_http_requests_total{family="batch",status="2xx"}'), 1);
        assert.equal(moved('basalt_http_requests_total{family="unmatched",status="4xx"}'), 1);
        assert.equal(moved('basalt_http_request_duration_seconds_count{family="classes",status="2xx"}'), 3);
        assert.equal(moved('basalt_http_request_duration_seconds_count{family="batch",status="2xx"}'), 1);
        assert.equal(moved('basalt_http_request_duration_seconds_bucket{le="+Inf",family="classes",status="4xx"}'), 2);
        // The raw URL never becomes a label.
        for (const name of afterwards.keys()) assert.ok(!name.includes('nothere') && !name.includes('no-such-route'), name);
      });

    });
  }
});
