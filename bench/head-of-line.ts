/**
 * The head-of-line check of SQLite (docs/benchmarks.md): does a scanning query hold up reads by
 * id? On a class of BENCH_HOL_ROWS objects with no index on `score` (written straight into the
 * app's file, as bench/seed.ts does), three measurements, BENCH_SECONDS each:
 *   get-by-id           32 connections of reads by id;
 *   query               32 connections of `score ≥ X order -score limit 20` (a scan);
 *   get-by-id + scans   the gets' latency while 4 more connections run the query.
 * Rounds alternate between the servers named by BENCH_HOL_BUILDS (directories holding a build:
 * `dist/main.js`), so that a busy machine weighs on each alike; the report gives medians.
 *
 *   node --import tsx bench/head-of-line.ts
 *   BENCH_HOL_BUILDS=.,../readers-base BENCH_HOL_ROUNDS=3 BENCH_HOL_ENV='{"BASALT_SQLITE_READERS":"0"}' …
 */
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { APP, ROOT, startBasalt, startServer, tempDataDir, type Cleanup } from './servers.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROWS = Number(process.env.BENCH_HOL_ROWS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_HOL_ROUNDS ?? 3);
const BUILDS = (process.env.BENCH_HOL_BUILDS ?? '.').split(',').map((dir) => resolve(ROOT, dir));
/** Extra environment per build, as a JSON list in the order of BENCH_HOL_BUILDS (e.g. readers off). */
const ENVS = JSON.parse(process.env.BENCH_HOL_ENV ?? '[]') as Record<string, string>[];
const HEADERS = { 'X-Svc-Application-Id': APP.id, 'X-Svc-REST-API-Key': APP.restKey };

interface Figures {
  rps: number;
  p50: number;
  p99: number;
}

function load(url: string, path: string, connections: number, seconds: number): Promise<Figures> {
  const latencies: number[] = [];
  return new Promise((done, fail) => {
    const instance = autocannon({ url: `${url}${path}`, connections, duration: seconds, headers: HEADERS }, (error, result) => {
      if (error) return fail(error);
      latencies.sort((a, b) => a - b);
      const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? Number.NaN;
      done({ rps: result.requests.total / seconds, p50: at(0.5), p99: at(0.99) });
    });
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) latencies.push(ms);
    });
  });
}

async function api(url: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}${path}`, { method, headers: { ...HEADERS, 'X-Svc-Master-Key': APP.masterKey, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** One object through the API (the class and its table are Basalt's), then ROWS more into the file. */
async function seed(url: string, dataDir: string): Promise<{ id: string; query: string }> {
  const first = await api(url, 'POST', '/1/classes/Item', { score: 0, name: 'first' });
  const apps = join(dataDir, 'apps');
  for (const file of readdirSync(apps).filter((name) => name.endsWith('.db'))) {
    const db = new Database(join(apps, file));
    db.pragma('busy_timeout = 10000');
    if (db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'Item'`).get()) {
      db.prepare(
        `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?)
         INSERT INTO "Item" ("objectId", "createdAt", "updatedAt", "_rperm", "_wperm", "data")
         SELECT printf('h%09d', x), "createdAt", "updatedAt", "_rperm", "_wperm", jsonb_set("data", '$.score', (x * 7919) % 1000003, '$.name', printf('item %d', x))
         FROM c, (SELECT * FROM "Item" LIMIT 1)`,
      ).run(ROWS);
    }
    db.close();
  }
  // The 1,000th highest score: the page of 20 is the first of many matches, as in bench/queries.ts.
  const query = `/1/classes/Item?${new URLSearchParams({ where: JSON.stringify({ score: { $gte: 1_000_003 - 1000 * 10 } }), order: '-score', limit: '20' })}`;
  await api(url, 'GET', query);
  return { id: String(first.objectId), query };
}

async function round(build: string, env: Record<string, string>): Promise<Record<string, Figures>> {
  const cleanups: Cleanup[] = [];
  try {
    const dataDir = tempDataDir(cleanups);
    const server = build === ROOT.replace(/\/$/, '')
      ? await startBasalt(build, { BASALT_DATA_DIR: dataDir, ...env }, cleanups)
      : await startServer(build, join(build, 'dist/main.js'), { BASALT_DATA_DIR: dataDir, BASALT_LOG_LEVEL: 'warn', BASALT_APP_ID: APP.id, BASALT_REST_KEY: APP.restKey, BASALT_MASTER_KEY: APP.masterKey, ...env }, cleanups);
    const { id, query } = await seed(server.url, dataDir);
    const get = `/1/classes/Item/${id}`;
    await load(server.url, get, 32, 1);
    const alone = await load(server.url, get, 32, SECONDS);
    const scanning = await load(server.url, query, 32, SECONDS);
    const [beside, scans] = await Promise.all([load(server.url, get, 32, SECONDS), load(server.url, query, 4, SECONDS)]);
    return { 'get-by-id': alone, query: scanning, 'get-by-id beside 4 scans': beside, 'the 4 scans': scans };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const results = new Map<string, Record<string, Figures>[]>();
for (let r = 0; r < ROUNDS; r++) {
  for (const [i, build] of BUILDS.entries()) {
    const label = `${build}${ENVS[i] ? ` ${JSON.stringify(ENVS[i])}` : ''}`;
    process.stderr.write(`round ${r + 1}: ${label}\n`);
    const figures = await round(build, ENVS[i] ?? {});
    process.stderr.write(`${JSON.stringify(figures)}\n`);
    results.set(label, [...(results.get(label) ?? []), figures]);
  }
}
process.stdout.write(`\n${ROWS.toLocaleString('en-US')} objects, ${SECONDS} s per measurement, medians of ${ROUNDS} alternating rounds\n\n| build | workload | req/s | p50 ms | p99 ms |\n|---|---|---|---|---|\n`);
for (const [label, rounds] of results) {
  for (const workload of Object.keys(rounds[0]!)) {
    const pick = (key: keyof Figures) => median(rounds.map((figures) => figures[workload]![key])).toFixed(key === 'rps' ? 0 : 1);
    process.stdout.write(`| ${label} | ${workload} | ${pick('rps')} | ${pick('p50')} | ${pick('p99')} |\n`);
  }
}
