/**
 * `npm test`: starts one Basalt per storage backend (SQLite in a temporary directory, PostgreSQL
 * in a fresh temporary database), then runs every test file with node's test runner against both.
 * PostgreSQL is required: when it cannot be reached the run fails, it does not skip.
 *
 *   BASALT_TEST_POSTGRES_URL  server to create the test database on (default postgres://postgres@127.0.0.1:5432/postgres)
 *   npm test -- test/api/objects.test.ts   runs only the files named
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import pg from 'pg';

const ROOT = new URL('..', import.meta.url).pathname;
const ADMIN = { email: 'admin@test.local', password: 'admin-password' };
const APP = { id: 'test-app', master: 'test-master-key', rest: 'test-rest-key' };

function findTests(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules') continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...findTests(path));
    else if (entry.endsWith('.test.ts')) out.push(relative(ROOT, path));
  }
  return out.sort();
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function startServer(name: string, env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      ...cleanEnv(),
      ...env,
      BASALT_PORT: String(port),
      BASALT_HOST: '127.0.0.1',
      BASALT_LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      BASALT_ADMIN_EMAIL: ADMIN.email,
      BASALT_ADMIN_PASSWORD: ADMIN.password,
      BASALT_APP_ID: APP.id,
      BASALT_MASTER_KEY: APP.master,
      BASALT_REST_KEY: APP.rest,
      // Failed jobs (mail to a closed port) reach their last attempt in seconds, not minutes.
      BASALT_QUEUE_RETRY_DELAY: '50',
      // A webhook receiver that never answers fails its call in 3 s, not 30 (test/api/webhooks-functions.test.ts);
      // long enough for a test to look at the queue while a receiver holds a call (webhooks-after.test.ts).
      BASALT_WEBHOOK_TIMEOUT: '3000',
      // A remembered count outlives any pause of a loaded machine within a test (count-memory.test.ts).
      BASALT_COUNT_CACHE_TIME: '60000',
      // Test files start more processes on the one PostgreSQL: each keeps to the old default.
      BASALT_DATABASE_POOL_SIZE: '10',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the ${name} server exited with code ${child.exitCode}`);
    try {
      const response = await fetch(`${url}/health`);
      if (response.ok) return { url, child };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the ${name} server did not start within 60 s`);
}

/** The tests must not inherit BASALT_ settings of the shell that runs them. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('BASALT_')));
}

/** The servers serve dashboard/dist (test/api/dashboard-serving.test.ts, test/dashboard/): built once when missing. */
function buildDashboardIfMissing(): boolean {
  if (existsSync(join(ROOT, 'dashboard', 'dist', 'index.html'))) return true;
  process.stderr.write('dashboard/dist is missing: building it (npm run build:dashboard)\n');
  return spawnSync('npm', ['run', '--silent', 'build:dashboard'], { cwd: ROOT, stdio: 'inherit' }).status === 0;
}

async function main(): Promise<number> {
  if (!buildDashboardIfMissing()) return 1;
  const adminUrl = process.env.BASALT_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const database = `basalt_test_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  try {
    await admin.connect();
  } catch (error) {
    process.stderr.write(`PostgreSQL is required for the tests and could not be reached at ${adminUrl}: ${(error as Error).message}\n`);
    return 1;
  }
  await admin.query(`CREATE DATABASE "${database}"`);
  const pgUrl = new URL(adminUrl);
  pgUrl.pathname = `/${database}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'basalt-test-'));
  const servers: ChildProcess[] = [];
  try {
    const sqlite = await startServer('sqlite', { BASALT_DATA_DIR: dataDir });
    servers.push(sqlite.child);
    const postgres = await startServer('postgres', { BASALT_DATABASE_URL: pgUrl.toString(), BASALT_DATA_DIR: join(dataDir, 'pg') });
    servers.push(postgres.child);
    const files = process.argv.slice(2).length ? process.argv.slice(2) : [...findTests(join(ROOT, 'src')), ...findTests(join(ROOT, 'test'))];
    const runner = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], {
      cwd: ROOT,
      stdio: 'inherit',
      env: {
        ...cleanEnv(),
        TEST_TARGETS: JSON.stringify([
          { backend: 'sqlite', url: sqlite.url },
          { backend: 'postgres', url: postgres.url },
        ]),
        TEST_ADMIN_EMAIL: ADMIN.email,
        TEST_ADMIN_PASSWORD: ADMIN.password,
        TEST_POSTGRES_URL: pgUrl.toString(),
        TEST_SQLITE_DATA_DIR: dataDir,
        TEST_POSTGRES_ADMIN_URL: adminUrl,
        TEST_DEFAULT_APP: JSON.stringify(APP),
      },
    });
    return await new Promise<number>((resolve) => runner.on('exit', (code) => resolve(code ?? 1)));
  } finally {
    for (const child of servers) child.kill('SIGTERM');
    await Promise.all(servers.map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.on('exit', resolve)))));
    rmSync(dataDir, { recursive: true, force: true });
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).catch(() => {});
    await admin.end();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
