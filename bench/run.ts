/**
 * `npm run bench`: a bare node:http server (the ceiling), then Basalt on SQLite, then Basalt on
 * PostgreSQL, each its own child process, each loaded by autocannon from this process.
 *
 *   BENCH_SUITES           comma list of http,queries,autoindex,users,queue,push (default all but push; a partial
 *                          run does not overwrite bench/results/latest.md). http: the workloads of workloads.ts
 *                          against the ceiling; queries, autoindex and users: bench/queries.ts,
 *                          bench/auto-index.ts, bench/users.ts; queue: no-op jobs through the job queue
 *                          (bench/queue.ts), on a server of its own; push: pushes to growing audiences
 *                          (bench/push.ts), only when named, as in `npm run bench -- push` (the first
 *                          argument, when given, is the suite list)
 *   BENCH_SECONDS          measured seconds per http workload (default 10)
 *   BENCH_QUERY_SECONDS    measured seconds per query and user workload (default 5)
 *   BENCH_WARMUP_SECONDS   unmeasured load before each workload, for the JIT and caches (default 2)
 *   BENCH_CONNECTIONS      concurrent connections (default 32)
 *   BENCH_TARGETS          comma list of ceiling,sqlite,postgres (default all; a partial run does
 *                          not overwrite bench/results/latest.md)
 *   BENCH_WORKLOADS        comma list of create,get-by-id,update,batch,function,create-before-save (default all but the last two; also a partial
 *                          run); http suite only
 *   BENCH_POSTGRES_URL     server to create the temporary database on
 *                          (default postgres://postgres@127.0.0.1:5432/postgres)
 *   BENCH_CPU_PROF         a directory: Basalt children run with --cpu-prof and write profiles there
 *   BENCH_LOG_LEVEL        Basalt's log level (default warn; any other value is also a partial run)
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { renderMarkdown, targetMet, type Row, type Section, type ServerInfo, type Target } from './report.ts';
import { measure, stopLoad, type LoadSettings } from './measure.ts';
import { queryTargets, runQueries, timeAlone, type SuiteContext } from './queries.ts';
import { postgresSeeder, sqliteSeeder, type Seeder } from './seed.ts';
import { ROOT, rssMb, startBasalt, startCeiling, tempDataDir, tempDatabase, type Cleanup, type RunningServer, type TempDatabase } from './servers.ts';
import { runUsers, userTargets } from './users.ts';
import { runAutoIndex } from './auto-index.ts';
import { queueNotes, runQueueSuite, type QueueResult } from './queue.ts';
import { pushNotes, runPushSuite, type PushResult } from './push.ts';
import { BATCH_SIZE, WORKLOADS } from './workloads.ts';

function envNumber(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number ≥ ${min}, not ${JSON.stringify(raw)}`);
  return value;
}

const LOAD: LoadSettings = {
  seconds: envNumber('BENCH_SECONDS', 10, 1),
  warmupSeconds: envNumber('BENCH_WARMUP_SECONDS', 2, 0),
  connections: Math.floor(envNumber('BENCH_CONNECTIONS', 32, 1)),
};
// Thirteen query and user workloads a backend, after seeding a million objects: at the http
// suite's 10 s each the whole run would pass ten minutes.
const SUITE_LOAD: LoadSettings = { ...LOAD, seconds: envNumber('BENCH_QUERY_SECONDS', 5, 1) };
const ALL_SUITES = ['http', 'queries', 'autoindex', 'users', 'queue'] as const;
// Run only when named: seeding its audiences takes minutes. A run with it is still a full run.
const OPTIONAL_SUITES = ['push'] as const;
type SuiteName = (typeof ALL_SUITES)[number] | (typeof OPTIONAL_SUITES)[number];
const SUITES = (process.argv[2] ?? process.env.BENCH_SUITES ?? ALL_SUITES.join(',')).split(',').map((s) => s.trim()) as SuiteName[];
const ALL_TARGETS = ['ceiling', 'sqlite', 'postgres'] as const;
type TargetName = (typeof ALL_TARGETS)[number];
// The ceiling is the http suite's denominator; the other suites do not use it.
const TARGETS = ((process.env.BENCH_TARGETS ?? ALL_TARGETS.join(',')).split(',').map((t) => t.trim()) as TargetName[]).filter(
  (t) => t !== 'ceiling' || SUITES.includes('http'),
);
const ONLY_WORKLOADS = process.env.BENCH_WORKLOADS?.split(',').map((w) => w.trim());
// The opt-in workloads (`function`, `create-before-save`) need the default app's cloud code (bench/cloud/main.js).
const CLOUD_ENV: Record<string, string> = ONLY_WORKLOADS?.some((id) => WORKLOADS.find((w) => w.id === id)?.optIn) ? { BASALT_CLOUD: join(ROOT, 'bench/cloud/main.js') } : {};
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CPU_PROF = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined;

/** Above this much CPU taken by unrelated processes, a run's req/s say more about them than about Basalt. */
const BUSY_OTHER_PCT = 25;

const SERVER_LABEL: Record<TargetName, string> = { ceiling: 'node:http', sqlite: 'Basalt SQLite', postgres: 'Basalt PostgreSQL' };

const cleanups: Cleanup[] = [];
let cleaning: Promise<void> | undefined;
let interrupted = false;

/** Runs once however it is reached (normal end, error or signal); later cleanups first. */
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    stopLoad();
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        process.stderr.write(`bench: cleanup failed: ${(error as Error).message}\n`);
      }
    }
  })();
  return cleaning;
}

/** Rows and notes of the query and user suites, apart from the http suite's. */
interface SuiteResults {
  readonly queries: Row[];
  readonly users: Row[];
  readonly aloneMs: Map<Row, number>;
  readonly notes: string[];
}

async function benchServer(target: TargetName, rows: Row[], servers: ServerInfo[], suites: SuiteResults): Promise<RunningServer> {
  const label = SERVER_LABEL[target];
  process.stderr.write(`bench: starting ${label}\n`);
  const profFlags = CPU_PROF && target !== 'ceiling' ? ['--cpu-prof', `--cpu-prof-dir=${join(CPU_PROF, target)}`] : [];
  let server: RunningServer;
  let database: TempDatabase | undefined;
  let dataDir: string | undefined;
  if (target === 'ceiling') server = await startCeiling(cleanups);
  else if (target === 'sqlite') {
    dataDir = tempDataDir(cleanups);
    server = await startBasalt(label, { BASALT_DATA_DIR: dataDir, ...CLOUD_ENV }, cleanups, profFlags);
  } else {
    database = await tempDatabase(POSTGRES_URL, cleanups);
    // Uploaded files still go to disk on PostgreSQL; keep them out of the working tree.
    server = await startBasalt(label, { BASALT_DATABASE_URL: database.url, BASALT_DATA_DIR: tempDataDir(cleanups), ...CLOUD_ENV }, cleanups, profFlags);
  }
  // A moment for start-up garbage to be collected, so "idle" is what a quiet server holds.
  await new Promise((r) => setTimeout(r, 1000));
  servers.push({ server: label, idleRssMb: rssMb(server.pid) });

  for (const workload of WORKLOADS) {
    if (!SUITES.includes('http')) break;
    if ((workload.backends === 'ceiling') !== (target === 'ceiling')) continue;
    if (ONLY_WORKLOADS && target !== 'ceiling' && !ONLY_WORKLOADS.includes(workload.id)) continue;
    if (workload.optIn && !ONLY_WORKLOADS?.includes(workload.id)) continue;
    process.stderr.write(`bench:   ${workload.name}\n`);
    const prepared = await workload.prepare(server.url, LOAD.connections);
    const row = await measure(server, workload, prepared, LOAD, database);
    rows.push(row);
    logRow(row);
  }
  if (target !== 'ceiling') await runSuites(server, database, dataDir, suites);
  return server;
}

/** The query and user suites, on the server the http suite used (its classes do not get in the way). */
async function runSuites(server: RunningServer, database: TempDatabase | undefined, dataDir: string | undefined, results: SuiteResults): Promise<void> {
  const wanted = (['queries', 'autoindex', 'users'] as const).filter((suite) => SUITES.includes(suite));
  if (wanted.length === 0) return;
  const seeder = database ? await postgresSeeder(database.url) : sqliteSeeder(dataDir!);
  // Also closed by the cleanups if a suite fails, before the database is dropped (they run last-in, first-out).
  cleanups.push(() => seeder.close());
  try {
    for (const suite of wanted) await runSuite(suite, server, database, seeder, results);
  } finally {
    await seeder.close();
  }
}

async function runSuite(suite: 'queries' | 'autoindex' | 'users', server: RunningServer, database: TempDatabase | undefined, seeder: Seeder, results: SuiteResults): Promise<void> {
  // The automatic-index rows are query rows: one section of the report.
  const rows = results[suite === 'autoindex' ? 'queries' : suite];
  const context: SuiteContext = {
    server: server.name,
    url: server.url,
    seeder,
    connections: SUITE_LOAD.connections,
    async measure(workload, load, connections = SUITE_LOAD.connections) {
      process.stderr.write(`bench:   ${workload}\n`);
      const prepared = Array.isArray(load) ? { requests: load } : load;
      const alone = await timeAlone(server.url, prepared.requests[0]!);
      const row = await measure(server, { id: workload, name: workload, backends: 'basalt', prepare: async () => prepared }, prepared, { ...SUITE_LOAD, connections }, database);
      rows.push(row);
      results.aloneMs.set(row, alone);
      logRow(row);
      return row;
    },
    log: (message) => process.stderr.write(`bench:   ${message}\n`),
  };
  results.notes.push(...(await (suite === 'queries' ? runQueries(context) : suite === 'autoindex' ? runAutoIndex(context) : runUsers(context))));
}

/**
 * The queue suite on a server and database of its own, started after the other suites' server
 * stopped: its workers would otherwise take a share of the jobs, unseen in the log read here.
 */
async function queueSuite(target: 'sqlite' | 'postgres'): Promise<QueueResult> {
  const label = SERVER_LABEL[target];
  process.stderr.write(`bench: starting ${label} for the queue suite\n`);
  const env: Record<string, string> = target === 'sqlite' ? { BASALT_DATA_DIR: tempDataDir(cleanups) } : { BASALT_DATABASE_URL: (await tempDatabase(POSTGRES_URL, cleanups)).url, BASALT_DATA_DIR: tempDataDir(cleanups) };
  const result = await runQueueSuite(label, env, cleanups, (message) => process.stderr.write(`bench:   ${message}\n`));
  process.stderr.write(`bench:     ${queueNotes([result])[0]}\n`);
  return result;
}

/** The push suite on a server and database of its own, as the queue suite. */
async function pushSuite(target: 'sqlite' | 'postgres'): Promise<PushResult[]> {
  const label = SERVER_LABEL[target];
  process.stderr.write(`bench: starting ${label} for the push suite\n`);
  const env: Record<string, string> = target === 'sqlite' ? { BASALT_DATA_DIR: tempDataDir(cleanups) } : { BASALT_DATABASE_URL: (await tempDatabase(POSTGRES_URL, cleanups)).url, BASALT_DATA_DIR: tempDataDir(cleanups) };
  return runPushSuite(label, env, cleanups, (message) => process.stderr.write(`bench:   ${message}\n`));
}

function logRow(row: Row): void {
  process.stderr.write(`bench:     ${Math.round(row.reqPerSec)} req/s, p50 ${row.p50Ms.toFixed(1)} ms, p99 ${row.p99Ms.toFixed(1)} ms, non-2xx ${row.non2xx}, errors ${row.errors}\n`);
}

/**
 * The ceiling is measured again after Basalt and the faster run is kept: on a shared machine the
 * two runs see different load, and the faster one is closer to what the machine can do.
 */
async function remeasureCeiling(ceiling: RunningServer, rows: Row[], notes: string[]): Promise<void> {
  const workload = WORKLOADS.find((w) => w.backends === 'ceiling')!;
  process.stderr.write(`bench: ${ceiling.name} again\n`);
  const again = await measure(ceiling, workload, await workload.prepare(ceiling.url, LOAD.connections), LOAD);
  logRow(again);
  const index = rows.findIndex((r) => r.server === ceiling.name);
  const first = rows[index]!;
  notes.push(`The ceiling ran before and after Basalt: ${fixedInt(first.reqPerSec)} and ${fixedInt(again.reqPerSec)} req/s; the faster is shown.`);
  if (again.reqPerSec > first.reqPerSec) rows[index] = again;
}

const fixedInt = (n: number) => Math.round(n).toLocaleString('en-US');

const QUERIES_INTRO = [
  '`Item` objects (score, name, owner Pointer, loc GeoPoint) are bulk-loaded into a class made through the schema API, ' +
    'with indexes `{score: -1}`, `{loc: 1}` and `{owner: 1}` (and `{tier: 1}` on `Owner`) made through the schema API too; ' +
    'the same class is measured at 100,000 objects and again ' +
    'after it has grown to 1,000,000. Every request uses the REST API key; docs/benchmarks.md lists them. Latencies are to 0.1 ms.',
];
const USERS_INTRO = [
  'One user; 100,000 `Secret` objects of which every tenth has the ACL `{<user>: {read: true}}` and the rest are readable ' +
    'by another user only. The user query and the master-key query are the same request. `/users/me` is held against ' +
    'get-by-id measured again just before it, on the same server in the same state. Each `/1/classes/_User` row is the ' +
    'request of the `/1/users` row above it on the Parse SDKs\' path, which the same code serves.',
];

function rowOf(rows: readonly Row[], server: string, workload: string): Row | undefined {
  return rows.find((r) => r.server === server && r.workload === workload);
}

function targetsOf(rows: readonly Row[], servers: readonly ServerInfo[]): Target[] {
  const ceiling = rows.find((r) => r.server === SERVER_LABEL.ceiling);
  const versus = (label: string, server: string, workload: string, goal: number): Target => {
    const row = rowOf(rows, server, workload);
    return {
      label,
      measured: row && ceiling ? row.reqPerSec / ceiling.reqPerSec : undefined,
      byCpu: row?.cpuUsPerRequest && ceiling ? ceiling.cpuUsPerRequest / row.cpuUsPerRequest : undefined,
      goal,
      kind: 'ratio-at-least',
    };
  };
  const idle = (label: string, server: string): Target => ({ label, measured: servers.find((s) => s.server === server)?.idleRssMb, goal: 80, kind: 'mb-at-most' });
  return [
    versus('get-by-id, SQLite', SERVER_LABEL.sqlite, 'get-by-id', 0.5),
    versus('get-by-id, PostgreSQL', SERVER_LABEL.postgres, 'get-by-id', 0.25),
    versus('create, SQLite', SERVER_LABEL.sqlite, 'create', 0.35),
    versus('create, PostgreSQL', SERVER_LABEL.postgres, 'create', 0.15),
    idle('idle RSS, SQLite', SERVER_LABEL.sqlite),
    idle('idle RSS, PostgreSQL', SERVER_LABEL.postgres),
  ];
}

/** Which code was measured: a result file is only useful next to the commit it describes. */
function sourceVersion(): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = git('status', '--porcelain', '--', 'src', 'package.json', 'package-lock.json') !== '';
    return `commit ${git('rev-parse', '--short', 'HEAD')}${dirty ? ' with uncommitted changes in src/' : ''}`;
  } catch {
    return 'not a git checkout';
  }
}

async function main(): Promise<void> {
  const loadAtStart = loadavg()[0]!;
  const version = sourceVersion();
  for (const target of TARGETS) {
    if (!ALL_TARGETS.includes(target)) throw new Error(`BENCH_TARGETS: unknown target ${JSON.stringify(target)}; use ${ALL_TARGETS.join(',')}`);
  }
  for (const suite of SUITES) {
    if (![...ALL_SUITES, ...OPTIONAL_SUITES].includes(suite)) throw new Error(`BENCH_SUITES: unknown suite ${JSON.stringify(suite)}; use ${[...ALL_SUITES, ...OPTIONAL_SUITES].join(',')}`);
  }
  for (const name of ONLY_WORKLOADS ?? []) {
    if (!WORKLOADS.some((w) => w.id === name)) throw new Error(`BENCH_WORKLOADS: unknown workload ${JSON.stringify(name)}; use ${WORKLOADS.map((w) => w.id).join(',')}`);
  }
  // Basalt is measured as `npm start` runs it: the compiled JavaScript in dist/.
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  const rows: Row[] = [];
  const servers: ServerInfo[] = [];
  const notes: string[] = [];
  const suites: SuiteResults = { queries: [], users: [], aloneMs: new Map(), notes: [] };
  let ceiling: RunningServer | undefined;
  const queueResults: QueueResult[] = [];
  const pushResults: PushResult[] = [];
  for (const target of ALL_TARGETS) {
    if (!TARGETS.includes(target)) continue;
    const server = await benchServer(target, rows, servers, suites);
    // The idle ceiling costs nothing while Basalt runs and saves a restart for its second run.
    if (target === 'ceiling') ceiling = server;
    else {
      await server.stop();
      if (SUITES.includes('queue')) queueResults.push(await queueSuite(target));
      if (SUITES.includes('push')) pushResults.push(...(await pushSuite(target)));
    }
  }
  notes.push(...queueNotes(queueResults));
  notes.push(...pushNotes(pushResults));
  if (ceiling && TARGETS.length > 1) await remeasureCeiling(ceiling, rows, notes);
  await ceiling?.stop();

  const cpu = cpus();
  const otherMax = Math.max(0, ...[...rows, ...suites.queries, ...suites.users].map((r) => r.otherCpuPct));
  const basalts = (['sqlite', 'postgres'] as const).filter((t) => TARGETS.includes(t)).map((t) => SERVER_LABEL[t]);
  const sections: Section[] = [];
  if (SUITES.includes('queries') || SUITES.includes('autoindex')) {
    // The growth ratios need the query suite's rows; with the automatic-index suite alone they were not measured.
    const targets = queryTargets(suites.queries, basalts).filter((t) => SUITES.includes('queries') || !t.label.startsWith('range p50'));
    sections.push({ title: 'Queries', intro: QUERIES_INTRO, rows: suites.queries, aloneMs: suites.aloneMs, targets });
  }
  if (SUITES.includes('users')) {
    sections.push({ title: 'Users', intro: USERS_INTRO, rows: suites.users, aloneMs: suites.aloneMs, targets: userTargets(suites.users, rows, basalts) });
  }
  const batchRows = rows.filter((r) => r.workload.startsWith('batch'));
  const markdown = renderMarkdown({
    header: [
      `${new Date().toISOString().slice(0, 10)} · ${version} · Node ${process.version} · ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'} · ` +
        `${LOAD.connections} connections · ${LOAD.seconds} s per http workload, ${SUITE_LOAD.seconds} s per query and user workload, each after ${LOAD.warmupSeconds} s warm-up.`,
      '',
      `Load average when the run started: ${loadAtStart.toFixed(2)}; other processes used up to ${Math.round(otherMax)}% of a core during a workload` +
        (otherMax > BUSY_OTHER_PCT ? ' — **the machine was busy; throughput is understated and noisy, compare "by CPU cost".**' : '.'),
      '',
      'autocannon runs on the same machine and competes for CPU with the server. "server CPU" is the share of one core ' +
        'the server process used (all its threads); "DB CPU" the same for the PostgreSQL backends serving it; ' +
        '"other CPU" is what the rest of the machine used meanwhile (high values mean the row was measured on a busy machine).',
    ],
    rows,
    servers,
    targets: targetsOf(rows, servers),
    sections,
    notes: [...notes, ...batchRows.map((r) => `${r.server}, batch: ${fixedInt(r.reqPerSec * BATCH_SIZE)} objects/s.`), ...suites.notes],
  });
  process.stdout.write(`\n${markdown}`);

  if (ALL_TARGETS.every((t) => TARGETS.includes(t)) && ALL_SUITES.every((s) => SUITES.includes(s)) && !ONLY_WORKLOADS && !process.env.BENCH_LOG_LEVEL) {
    const dir = join(ROOT, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'latest.md'), markdown);
    process.stderr.write(`bench: written to bench/results/latest.md\n`);
  } else {
    process.stderr.write('bench: partial run; bench/results/latest.md left as it was\n');
  }
  const missed = [...targetsOf(rows, servers), ...sections.flatMap((s) => s.targets)].filter((t) => targetMet(t) === false).length;
  if (missed) process.stderr.write(`bench: ${missed} target(s) missed\n`);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    process.stderr.write(`bench: ${signal}, cleaning up\n`);
    void cleanUp().finally(() => process.exit(130));
  });
}

main()
  .then(cleanUp, async (error: unknown) => {
    // After a signal the servers are gone on purpose; what fails next is not news.
    if (!interrupted) process.stderr.write(`bench: ${(error as Error).stack ?? String(error)}\n`);
    await cleanUp();
    process.exitCode = 1;
  })
  .catch(() => {
    process.exitCode = 1;
  });
