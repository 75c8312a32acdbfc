/**
 * `npm run build:dashboard` (part of `npm run build`, so of `npm start`): installs the dashboard's
 * own packages when they are missing or older than its lockfile, then builds it into
 * dashboard/dist. A fresh clone's `npm ci && npm start` thus needs no second install command;
 * CI installs them itself (`npm ci --prefix dashboard` in .ci/run) and this finds them current.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

const DASHBOARD = new URL('../dashboard', import.meta.url).pathname;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(args: string[]): void {
  const result = spawnSync(npm, args, { cwd: DASHBOARD, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

/** npm writes node_modules/.package-lock.json on every install: older than the lockfile means stale. */
function installed(): boolean {
  const marker = join(DASHBOARD, 'node_modules', '.package-lock.json');
  return existsSync(marker) && statSync(marker).mtimeMs >= statSync(join(DASHBOARD, 'package-lock.json')).mtimeMs;
}

if (!installed()) run(['ci', '--no-audit', '--no-fund']);
run(['run', '--silent', 'build']);
