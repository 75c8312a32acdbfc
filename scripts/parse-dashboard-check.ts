/**
 * Checks Basalt the way a Parse user would: Parse Dashboard (the npm package) in Chromium, driven
 * by playwright-core, against a Basalt server started from this tree. See docs/parse-dashboard.md.
 *
 *   npm run check:parse-dashboard [-- --database postgres://… ] [-- --out <dir>] [-- --keep]
 *
 * On a fresh machine it installs what it needs itself: Chromium from Debian's apt (when
 * /usr/bin/chromium is missing) and Parse Dashboard from the npm registry into a cache folder
 * (scripts/parse-dashboard-check/package.json says which version), never into this project.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { runSteps, type CheckTarget } from './parse-dashboard-check/run.ts';
import { STEPS } from './parse-dashboard-check/steps.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MANIFEST = join(ROOT, 'scripts/parse-dashboard-check/package.json');
const CHROMIUM = '/usr/bin/chromium';
const APP_ID = 'dashboardCheck';
const MASTER_KEY = 'dashboard-check-master-key';
const APP_NAME = 'BasaltCheck';

interface Options {
  database?: string;
  out: string;
  cache: string;
  keep: boolean;
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = {
    out: join(ROOT, 'tmp/parse-dashboard-check'),
    cache: process.env.PARSE_DASHBOARD_CHECK_CACHE ?? join(tmpdir(), 'basalt-parse-dashboard-check'),
    keep: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--database') options.database = argv[++i];
    else if (arg === '--out') options.out = resolve(argv[++i]!);
    else if (arg === '--cache') options.cache = resolve(argv[++i]!);
    else if (arg === '--keep') options.keep = true;
    else throw new Error(`Unknown option ${arg}. Options: --database <postgres url>, --out <dir>, --cache <dir>, --keep.`);
  }
  return options;
}

function run(command: string, args: readonly string[], cwd?: string): void {
  const result = spawnSync(command, args, { cwd, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal}).`);
}

/** Seconds taken by fn, for the install times the doc quotes. */
function timed(label: string, fn: () => void): void {
  const started = Date.now();
  fn();
  console.log(`${label}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  // No question may stop the install; sudo would drop an exported variable, so env sets it.
  const aptGet = ['DEBIAN_FRONTEND=noninteractive', 'apt-get'];
  const asRoot = process.getuid?.() === 0;
  const apt = (args: string[]) => (asRoot ? run('env', [...aptGet, ...args]) : run('sudo', ['env', ...aptGet, ...args]));
  timed('Chromium installed from apt', () => {
    apt(['update']);
    apt(['install', '-y', 'chromium']);
  });
}

/** Parse Dashboard in the cache folder, installed again only when the pinned version changes. */
function ensureDashboard(cache: string): string {
  const wanted = (JSON.parse(readFileSync(MANIFEST, 'utf8')) as { dependencies: Record<string, string> }).dependencies['parse-dashboard']!;
  const installed = join(cache, 'node_modules/parse-dashboard/package.json');
  const version = existsSync(installed) ? (JSON.parse(readFileSync(installed, 'utf8')) as { version: string }).version : null;
  if (version !== wanted) {
    mkdirSync(cache, { recursive: true });
    copyFileSync(MANIFEST, join(cache, 'package.json'));
    timed(`parse-dashboard ${wanted} installed from npm`, () => run('npm', ['install', '--no-audit', '--no-fund', '--omit=dev'], cache));
  }
  return join(cache, 'node_modules/parse-dashboard/bin/parse-dashboard');
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

async function waitFor(url: string, what: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited (${child.exitCode}) before answering.`);
    try {
      const response = await fetch(url);
      if (response.status < 500) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((done) => setTimeout(done, 250));
  }
  throw new Error(`${what} did not answer ${url} within 60 s.`);
}

function start(label: string, command: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): ChildProcess {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const prefix = (chunk: Buffer) => chunk.toString().split('\n').filter(Boolean).map((line) => `[${label}] ${line}`).join('\n');
  child.stdout!.on('data', (chunk: Buffer) => process.env.PARSE_DASHBOARD_CHECK_VERBOSE && console.log(prefix(chunk)));
  child.stderr!.on('data', (chunk: Buffer) => console.error(prefix(chunk)));
  return child;
}

/** Parse Dashboard 9 needs Node 20.19 or later (its engines field). */
function checkNode(): void {
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  if (major < 20 || (major === 20 && minor < 19)) throw new Error(`Parse Dashboard needs Node 20.19 or later; this is ${process.versions.node}.`);
}

async function main(): Promise<number> {
  checkNode();
  const options = parseOptions(process.argv.slice(2));
  ensureChromium();
  const dashboardBin = ensureDashboard(options.cache);
  rmSync(options.out, { recursive: true, force: true });
  mkdirSync(options.out, { recursive: true });

  const dataDir = mkdtempSync(join(tmpdir(), 'basalt-dashboard-data-'));
  const basaltPort = await freePort();
  const dashboardPort = await freePort();
  const children: ChildProcess[] = [];
  try {
    const basalt = start('basalt', process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      BASALT_PORT: String(basaltPort),
      BASALT_HOST: '127.0.0.1',
      BASALT_DATA_DIR: dataDir,
      BASALT_APP_ID: APP_ID,
      BASALT_MASTER_KEY: MASTER_KEY,
      BASALT_APP_NAME: APP_NAME,
      BASALT_LOG_LEVEL: 'warn',
      ...(options.database ? { BASALT_DATABASE_URL: options.database } : {}),
    }, ROOT);
    children.push(basalt);
    const serverURL = `http://127.0.0.1:${basaltPort}/1`;
    await waitFor(`http://127.0.0.1:${basaltPort}/health`, 'Basalt', basalt);

    const dashboard = start('dashboard', process.execPath, [
      dashboardBin, '--dev', '--appId', APP_ID, '--masterKey', MASTER_KEY, '--serverURL', serverURL, '--appName', APP_NAME,
      '--host', '127.0.0.1', '--port', String(dashboardPort),
    ], {}, options.cache);
    children.push(dashboard);
    const dashboardURL = `http://127.0.0.1:${dashboardPort}`;
    await waitFor(dashboardURL, 'Parse Dashboard', dashboard);

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const target: CheckTarget = { serverURL, dashboardURL, appId: APP_ID, masterKey: MASTER_KEY, appName: APP_NAME, out: options.out };
      const results = await runSteps(browser, target, STEPS);
      console.log(`\nParse Dashboard against Basalt (${options.database ? 'PostgreSQL' : 'SQLite'}); screenshots in ${options.out}\n`);
      for (const result of results) {
        console.log(`${result.outcome.padEnd(10)} ${result.name}${result.detail ? `\n           ${result.detail.replace(/\n/g, '\n           ')}` : ''}`);
      }
      const failed = results.filter((result) => result.outcome === 'FAIL' || result.outcome === 'FIXED?');
      console.log(`\n${results.length - failed.length} of ${results.length} steps as expected.`);
      return failed.length === 0 ? 0 : 1;
    } finally {
      await browser.close();
    }
  } finally {
    for (const child of children) child.kill('SIGTERM');
    if (!options.keep) rmSync(dataDir, { recursive: true, force: true });
    else console.log(`Basalt data kept in ${dataDir}`);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);
