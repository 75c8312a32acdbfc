/**
 * Child processes under test and the temporary resources they need. Every resource made here is
 * handed to the caller's cleanup list before anything else can fail, so an error or Ctrl-C in the
 * middle of a run still stops the servers and drops the database.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export const ROOT = new URL('..', import.meta.url).pathname;

export const APP = { id: 'bench-app', restKey: 'bench-rest-key', masterKey: 'bench-master-key' };
export const ADMIN = { email: 'bench@basalt.local', password: 'bench-admin-password' };

export type Cleanup = () => Promise<void> | void;

export interface RunningServer {
  readonly name: string;
  readonly url: string;
  readonly pid: number;
  /** The last lines the child wrote, to explain a failure. */
  output(): string;
  /** Throws, with the child's last output, if it is no longer running. */
  assertAlive(): void;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}

/** BASALT_ settings of the invoking shell would silently change what is measured. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('BASALT_')));
}

const OUTPUT_TAIL = 8192;

/**
 * Starts `node <script>` (through tsx for a .ts script) and resolves once GET /health answers 200.
 * `nodeFlags` lets a profiling run add e.g. --cpu-prof without touching the command otherwise.
 */
export async function startServer(
  name: string,
  script: string,
  env: Record<string, string>,
  cleanups: Cleanup[],
  nodeFlags: string[] = [],
  onOutput?: (text: string) => void,
): Promise<RunningServer> {
  const port = await freePort();
  // Compiled JavaScript runs as users run it (`npm start`); TypeScript sources go through tsx.
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child: ChildProcess = spawn(process.execPath, [...nodeFlags, ...loader, script], {
    cwd: ROOT,
    env: { ...cleanEnv(), ...env, BASALT_PORT: String(port), BASALT_HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const keep = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    tail = (tail + text).slice(-OUTPUT_TAIL);
    onOutput?.(text);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    // Basalt drains in-flight requests on SIGTERM; a server that hangs must not hang the bench.
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  cleanups.push(stop);
  const assertAlive = () => {
    if (child.exitCode === null && child.signalCode === null) return;
    // Basalt exits 0 only after SIGTERM/SIGINT, so 0 here means something outside the bench stopped it.
    throw new Error(`the ${name} server exited (${child.exitCode ?? child.signalCode}) during the run; its last output:\n${tail}`);
  };
  if (child.pid === undefined) throw new Error(`could not start the ${name} server`);

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the ${name} server exited with code ${child.exitCode}:\n${tail}`);
    try {
      const response = await fetch(`${url}/health`);
      if (response.ok) return { name, url, pid: child.pid, output: () => tail, assertAlive, stop };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the ${name} server did not answer /health within 60 s:\n${tail}`);
}

export function startCeiling(cleanups: Cleanup[]): Promise<RunningServer> {
  return startServer('node:http', 'bench/ceiling.ts', {}, cleanups);
}

/** `logLevel` and `onOutput`: the queue suite reads the job log lines of a server at debug level. */
export function startBasalt(name: string, env: Record<string, string>, cleanups: Cleanup[], nodeFlags: string[] = [], watch: { logLevel?: string; onOutput?: (text: string) => void } = {}): Promise<RunningServer> {
  return startServer(
    name,
    'dist/main.js',
    {
      ...env,
      // BENCH_LOG_LEVEL=info shows why a server stopped; info logs every request, which costs throughput.
      BASALT_LOG_LEVEL: watch.logLevel ?? process.env.BENCH_LOG_LEVEL ?? 'warn',
      BASALT_APP_ID: APP.id,
      BASALT_REST_KEY: APP.restKey,
      BASALT_MASTER_KEY: APP.masterKey,
      BASALT_ADMIN_EMAIL: ADMIN.email,
      BASALT_ADMIN_PASSWORD: ADMIN.password,
    },
    cleanups,
    nodeFlags,
    watch.onOutput,
  );
}

export function tempDataDir(cleanups: Cleanup[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'basalt-bench-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const DB_PREFIX = 'basalt_bench_';

export interface TempDatabase {
  readonly url: string;
  /** PostgreSQL's own processes serving this database, whose CPU the server's numbers leave out. */
  backendPids(): Promise<number[]>;
}

/** The pid in the name lets a later run tell an abandoned database from one still in use. */
export async function tempDatabase(adminUrl: string, cleanups: Cleanup[]): Promise<TempDatabase> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  cleanups.push(() => admin.end());
  await dropAbandoned(admin);
  const name = `${DB_PREFIX}${process.pid}_${Date.now()}`;
  await admin.query(`CREATE DATABASE "${name}"`);
  cleanups.push(async () => {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async backendPids() {
      const { rows } = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [name]);
      return rows.map((row) => row.pid);
    },
  };
}

/** A run killed with SIGKILL cannot clean up after itself; the next one does it instead. */
async function dropAbandoned(admin: pg.Client): Promise<void> {
  const { rows } = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${DB_PREFIX}%`]);
  for (const { datname } of rows) {
    const pid = Number(datname.slice(DB_PREFIX.length).split('_')[0]);
    if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) continue;
    await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Resident set size in MB, as the kernel accounts it (what an operator's `top` shows). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) / 1024;
}

/**
 * CPU seconds (user + system) the process has used so far. Linux reports these fields in
 * USER_HZ ticks, which is 100 on every architecture Node supports.
 */
export function cpuSeconds(pid: number): number {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    // A database connection closed mid-run; its time is lost, which only under-reports.
    return 0;
  }
  // The command name may contain spaces, so the numeric fields are counted from its closing paren.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * CPU seconds the whole machine has spent busy, summed over cores. Set against the processes the
 * bench knows about, it shows how much CPU something else took during a workload.
 */
export function machineBusySeconds(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line.trim().split(/\s+/).slice(1).map(Number);
  return (user + nice + system + irq + softirq + steal) / 100;
}
