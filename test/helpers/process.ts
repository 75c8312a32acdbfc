import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const ROOT = new URL('../..', import.meta.url).pathname;

/** A Basalt process started by a test, with its output collected. */
export interface Started {
  readonly child: ChildProcess;
  readonly url: string;
  stdout(): string;
  stderr(): string;
  exited(): Promise<number | null>;
}

function baseEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('BASALT_') && !key.startsWith('TEST_')));
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'basalt-cli-'));
}

/** Runs `src/main.ts` with these arguments and environment (no BASALT_ variables inherited). */
export function run(args: string[], env: Record<string, string>): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { cwd: ROOT, env: { ...baseEnv(), BASALT_LOG_LEVEL: 'warn', BASALT_DATABASE_POOL_SIZE: '10', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (err += chunk));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, url: `http://127.0.0.1:${env.BASALT_PORT ?? ''}`, stdout: () => out, stderr: () => err, exited: () => exit };
}

/** Starts a server on a free port and waits until /health answers. */
export async function start(env: Record<string, string>, args: string[] = []): Promise<Started> {
  const port = await freePort();
  const started = run(args, { BASALT_HOST: '127.0.0.1', BASALT_PORT: String(port), ...env });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (started.child.exitCode !== null) throw new Error(`server exited (${started.child.exitCode}): ${started.stderr()}`);
    try {
      if ((await fetch(`${started.url}/health`)).ok) return started;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  started.child.kill('SIGKILL');
  throw new Error('server did not start');
}

export async function stop(started: Started): Promise<number | null> {
  if (started.child.exitCode === null) started.child.kill('SIGTERM');
  return started.exited();
}

/** A fresh PostgreSQL database for one test; dropped by the returned function. */
export async function tempDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = process.env.TEST_POSTGRES_ADMIN_URL;
  if (!adminUrl) throw new Error('TEST_POSTGRES_ADMIN_URL is not set: run through npm test');
  const name = `basalt_cli_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.end();
    },
  };
}
