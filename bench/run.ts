/**
 * `npm run bench`: a bare node:http server (the ceiling), then Basalt on SQLite, then Basalt on
 * PostgreSQL, each its own child process, each loaded by autocannon from this process.
 *
 *   BENCH_SECONDS          measured seconds per workload (default 10)
 *   BENCH_WARMUP_SECONDS   unmeasured load before each workload, for the JIT and caches (default 2)
 *   BENCH_CONNECTIONS      concurrent connections (default 32)
 *   BENCH_TARGETS          comma list of ceiling,sqlite,postgres (default all; a partial run does
 *                          not overwrite bench/results/latest.md)
 *   BENCH_WORKLOADS        comma list of create,get-by-id,update,batch (default all; also a partial run)
 *   BENCH_POSTGRES_URL     server to create the temporary database on
 *                          (default postgres://postgres@127.0.0.1:5432/postgres)
 *   BENCH_CPU_PROF         a directory: Basalt children run with --cpu-prof and write profiles there
 *   BENCH_LOG_LEVEL        Basalt's log level (default warn; any other value is also a partial run)
 */
import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { renderMarkdown, targetMet, type Row, type ServerInfo, type Target } from './report.ts';
import { cpuSeconds, machineBusySeconds, ROOT, rssMb, startBasalt, startCeiling, tempDataDir, tempDatabase, type Cleanup, type RunningServer, type TempDatabase } from './servers.ts';
import { BATCH_SIZE, WORKLOADS, type Prepared, type Request, type Workload } from './workloads.ts';

function envNumber(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number ≥ ${min}, not ${JSON.stringify(raw)}`);
  return value;
}

const SECONDS = envNumber('BENCH_SECONDS', 10, 1);
const WARMUP_SECONDS = envNumber('BENCH_WARMUP_SECONDS', 2, 0);
const CONNECTIONS = Math.floor(envNumber('BENCH_CONNECTIONS', 32, 1));
const ALL_TARGETS = ['ceiling', 'sqlite', 'postgres'] as const;
type TargetName = (typeof ALL_TARGETS)[number];
const TARGETS = (process.env.BENCH_TARGETS ?? ALL_TARGETS.join(',')).split(',').map((t) => t.trim()) as TargetName[];
const ONLY_WORKLOADS = process.env.BENCH_WORKLOADS?.split(',').map((w) => w.trim());
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CPU_PROF = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined;

/** Above this much CPU taken by unrelated processes, a run's req/s say more about them than about Basalt. */
const BUSY_OTHER_PCT = 25;

const SERVER_LABEL: Record<TargetName, string> = { ceiling: 'node:http', sqlite: 'Basalt SQLite', postgres: 'Basalt PostgreSQL' };

const cleanups: Cleanup[] = [];
let cleaning: Promise<void> | undefined;
let running: autocannon.Instance | undefined;
let interrupted = false;

/** Runs once however it is reached (normal end, error or signal); later cleanups first. */
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    running?.stop();
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

function cannon(url: string, requests: Request[], seconds: number): Promise<autocannon.Result> {
  return new Promise((resolvePromise, reject) => {
    running = autocannon({ url, connections: CONNECTIONS, duration: seconds, requests }, (error, result) => {
      running = undefined;
      if (error) reject(error);
      else resolvePromise(result);
    });
  });
}

/** CPU seconds of several processes, keyed by pid so one that exits mid-run can be left out. */
function cpuOf(pids: readonly number[]): Map<number, number> {
  return new Map(pids.map((pid) => [pid, cpuSeconds(pid)]));
}

function cpuSince(before: Map<number, number>): number {
  let total = 0;
  for (const [pid, start] of before) total += Math.max(0, cpuSeconds(pid) - start);
  return total;
}

async function measure(server: RunningServer, workload: Workload, prepared: Prepared, database?: TempDatabase): Promise<Row> {
  let itemErrors = 0;
  const requests = prepared.countsItemErrors
    ? prepared.requests.map((request) => ({
        ...request,
        onResponse: (status: number, body: string) => {
          if (status < 300) itemErrors += body.split('"error":').length - 1;
        },
      }))
    : prepared.requests;
  if (WARMUP_SECONDS > 0) await cannon(server.url, requests, WARMUP_SECONDS);
  server.assertAlive();
  itemErrors = 0;
  // The pool is warm after the warm-up, so these are the connections the measured run will use.
  const dbCpu = database ? cpuOf(await database.backendPids()) : undefined;
  const serverCpu = cpuSeconds(server.pid);
  const clientCpu = process.cpuUsage();
  const machineCpu = machineBusySeconds();
  const started = performance.now();
  const result = await cannon(server.url, requests, SECONDS);
  const wall = (performance.now() - started) / 1000;
  const client = process.cpuUsage(clientCpu);
  const machine = machineBusySeconds() - machineCpu;
  server.assertAlive();
  const serverUsed = cpuSeconds(server.pid) - serverCpu;
  const dbUsed = dbCpu ? cpuSince(dbCpu) : 0;
  const clientUsed = (client.user + client.system) / 1e6;
  return {
    server: server.name,
    workload: workload.name,
    // The total over the measured time, not autocannon's mean of per-second samples, which
    // drops the partial last second.
    reqPerSec: result.requests.total / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    itemErrors: prepared.countsItemErrors ? itemErrors : undefined,
    cpuUsPerRequest: result.requests.total ? ((serverUsed + dbUsed) / result.requests.total) * 1e6 : 0,
    serverCpuPct: (serverUsed / wall) * 100,
    dbCpuPct: dbCpu ? (dbUsed / wall) * 100 : undefined,
    clientCpuPct: (clientUsed / wall) * 100,
    // Kernel work on our behalf (loopback TCP, softirqs) lands here too, so a few percent is normal.
    otherCpuPct: (Math.max(0, machine - serverUsed - dbUsed - clientUsed) / wall) * 100,
    rssAfterMb: rssMb(server.pid),
  };
}

async function benchServer(target: TargetName, rows: Row[], servers: ServerInfo[]): Promise<RunningServer> {
  const label = SERVER_LABEL[target];
  process.stderr.write(`bench: starting ${label}\n`);
  const profFlags = CPU_PROF && target !== 'ceiling' ? ['--cpu-prof', `--cpu-prof-dir=${join(CPU_PROF, target)}`] : [];
  let server: RunningServer;
  let database: TempDatabase | undefined;
  if (target === 'ceiling') server = await startCeiling(cleanups);
  else if (target === 'sqlite') server = await startBasalt(label, { BASALT_DATA_DIR: tempDataDir(cleanups) }, cleanups, profFlags);
  else {
    database = await tempDatabase(POSTGRES_URL, cleanups);
    // Uploaded files still go to disk on PostgreSQL; keep them out of the working tree.
    server = await startBasalt(label, { BASALT_DATABASE_URL: database.url, BASALT_DATA_DIR: tempDataDir(cleanups) }, cleanups, profFlags);
  }
  // A moment for start-up garbage to be collected, so "idle" is what a quiet server holds.
  await new Promise((r) => setTimeout(r, 1000));
  servers.push({ server: label, idleRssMb: rssMb(server.pid) });

  for (const workload of WORKLOADS) {
    if ((workload.backends === 'ceiling') !== (target === 'ceiling')) continue;
    if (ONLY_WORKLOADS && target !== 'ceiling' && !ONLY_WORKLOADS.includes(workload.id)) continue;
    process.stderr.write(`bench:   ${workload.name}\n`);
    const prepared = await workload.prepare(server.url);
    const row = await measure(server, workload, prepared, database);
    rows.push(row);
    logRow(row);
  }
  return server;
}

function logRow(row: Row): void {
  process.stderr.write(`bench:     ${Math.round(row.reqPerSec)} req/s, p99 ${row.p99Ms} ms, non-2xx ${row.non2xx}, errors ${row.errors}\n`);
}

/**
 * The ceiling is measured again after Basalt and the faster run is kept: on a shared machine the
 * two runs see different load, and the faster one is closer to what the machine can do.
 */
async function remeasureCeiling(ceiling: RunningServer, rows: Row[], notes: string[]): Promise<void> {
  const workload = WORKLOADS.find((w) => w.backends === 'ceiling')!;
  process.stderr.write(`bench: ${ceiling.name} again\n`);
  const again = await measure(ceiling, workload, await workload.prepare(ceiling.url));
  logRow(again);
  const index = rows.findIndex((r) => r.server === ceiling.name);
  const first = rows[index]!;
  notes.push(`The ceiling ran before and after Basalt: ${fixedInt(first.reqPerSec)} and ${fixedInt(again.reqPerSec)} req/s; the faster is shown.`);
  if (again.reqPerSec > first.reqPerSec) rows[index] = again;
}

const fixedInt = (n: number) => Math.round(n).toLocaleString('en-US');

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
  for (const name of ONLY_WORKLOADS ?? []) {
    if (!WORKLOADS.some((w) => w.id === name)) throw new Error(`BENCH_WORKLOADS: unknown workload ${JSON.stringify(name)}; use ${WORKLOADS.map((w) => w.id).join(',')}`);
  }
  // Basalt is measured as `npm start` runs it: the compiled JavaScript in dist/.
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  const rows: Row[] = [];
  const servers: ServerInfo[] = [];
  const notes: string[] = [];
  let ceiling: RunningServer | undefined;
  for (const target of ALL_TARGETS) {
    if (!TARGETS.includes(target)) continue;
    const server = await benchServer(target, rows, servers);
    // The idle ceiling costs nothing while Basalt runs and saves a restart for its second run.
    if (target === 'ceiling') ceiling = server;
    else await server.stop();
  }
  if (ceiling && TARGETS.length > 1) await remeasureCeiling(ceiling, rows, notes);
  await ceiling?.stop();

  const cpu = cpus();
  const otherMax = Math.max(0, ...rows.map((r) => r.otherCpuPct));
  const batchRows = rows.filter((r) => r.workload.startsWith('batch'));
  const markdown = renderMarkdown({
    header: [
      `${new Date().toISOString().slice(0, 10)} · ${version} · Node ${process.version} · ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'} · ` +
        `${CONNECTIONS} connections · ${SECONDS} s per workload after ${WARMUP_SECONDS} s warm-up.`,
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
    notes: [...notes, ...batchRows.map((r) => `${r.server}, batch: ${fixedInt(r.reqPerSec * BATCH_SIZE)} objects/s.`)],
  });
  process.stdout.write(`\n${markdown}`);

  if (ALL_TARGETS.every((t) => TARGETS.includes(t)) && !ONLY_WORKLOADS && !process.env.BENCH_LOG_LEVEL) {
    const dir = join(ROOT, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'latest.md'), markdown);
    process.stderr.write(`bench: written to bench/results/latest.md\n`);
  } else {
    process.stderr.write('bench: partial run; bench/results/latest.md left as it was\n');
  }
  const missed = targetsOf(rows, servers).filter((t) => targetMet(t) === false).length;
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
