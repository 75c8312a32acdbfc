import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { run, start, stop, tempDir } from '../helpers/process.ts';
import { http } from '../helpers/client.ts';

function printed(stdout: string, label: string): string {
  const match = new RegExp(`${label}:\\s+(\\S+)`).exec(stdout);
  if (!match) throw new Error(`"${label}" not printed in:\n${stdout}`);
  return match[1]!;
}

describe('command line', () => {
  it('--help lists every option with its environment variable and exits 0', async () => {
    const started = run(['--help'], {});
    assert.equal(await started.exited(), 0);
    const text = started.stdout();
    assert.match(text, /^Usage: basalt \[options\]/);
    for (const [flag, env] of <[string, string][]>[['--port', 'BASALT_PORT'], ['--database', 'BASALT_DATABASE_URL'], ['--data-dir', 'BASALT_DATA_DIR'], ['--master-key', 'BASALT_MASTER_KEY'], ['--app-id', 'BASALT_APP_ID']]) {
      assert.ok(text.includes(flag) && text.includes(env), `${flag} / ${env} missing from --help`);
    }
  });

  it('refuses an unknown flag, an unknown BASALT_ variable and a malformed value with exit code 2', async () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['--nope'], {}, /Unknown option --nope/],
      [[], { BASALT_PORTT: '1' }, /Unknown environment variable BASALT_PORTT/],
      [['--port', 'abc'], {}, /--port must be an integer/],
      [[], { BASALT_DATABASE_URL: 'not a url' }, /BASALT_DATABASE_URL must be a URL/],
      [['--port'], {}, /--port needs a value/],
    ];
    for (const [args, env, message] of cases) {
      const started = run(args, env);
      assert.equal(await started.exited(), 2, `exit code for ${args.join(' ')} ${JSON.stringify(env)}`);
      assert.match(started.stderr(), message);
      assert.equal(started.stdout(), '');
    }
  });

  it('creates an admin account and a default app on first start, prints their keys once, and keeps them', async () => {
    const dataDir = tempDir();
    try {
      const first = await start({ BASALT_DATA_DIR: dataDir });
      const out = first.stdout();
      const appId = printed(out, 'application id');
      const restKey = printed(out, 'REST API key');
      const masterKey = printed(out, 'master key');
      for (const label of ['client key', 'JavaScript key', 'Windows key', 'webhook key', 'account key', 'password']) printed(out, label);
      const created = await http(`${first.url}/1/classes/Note`, 'POST', { body: { text: 'kept' }, headers: { 'X-Svc-Application-Id': appId, 'X-Svc-REST-API-Key': restKey } });
      assert.equal(created.status, 201);
      assert.equal(await stop(first), 0);

      const second = await start({ BASALT_DATA_DIR: dataDir });
      assert.doesNotMatch(second.stdout(), /application id|master key/);
      const read = await http(`${second.url}/1/classes/Note/${created.body.objectId}`, 'GET', { headers: { 'X-Svc-Application-Id': appId, 'X-Svc-Master-Key': masterKey } });
      assert.equal(read.status, 200);
      assert.equal(read.body.text, 'kept');
      assert.equal(await stop(second), 0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('creates the app with keys given in the environment and updates them on a later start', async () => {
    const dataDir = tempDir();
    try {
      const env = { BASALT_DATA_DIR: dataDir, BASALT_APP_ID: 'fixed-app', BASALT_MASTER_KEY: 'm1', BASALT_REST_KEY: 'r1' };
      const first = await start(env);
      assert.match(first.stdout(), /application id:\s+fixed-app/);
      const ok = await http(`${first.url}/1/classes/Note`, 'GET', { headers: { 'X-Svc-Application-Id': 'fixed-app', 'X-Svc-REST-API-Key': 'r1' } });
      assert.equal(ok.status, 200);
      await stop(first);

      const second = await start({ ...env, BASALT_MASTER_KEY: 'm2' });
      const oldKey = await http(`${second.url}/1/schemas`, 'GET', { headers: { 'X-Svc-Application-Id': 'fixed-app', 'X-Svc-Master-Key': 'm1' } });
      assert.equal(oldKey.status, 401);
      assert.equal(oldKey.body.code, 903);
      const newKey = await http(`${second.url}/1/schemas`, 'GET', { headers: { 'X-Svc-Application-Id': 'fixed-app', 'X-Svc-Master-Key': 'm2' } });
      assert.equal(newKey.status, 200);
      assert.deepEqual(newKey.body, { results: [] });
      await stop(second);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('finishes an in-flight request on SIGTERM, then exits 0 and accepts no new connection', async () => {
    const dataDir = tempDir();
    try {
      const server = await start({ BASALT_DATA_DIR: dataDir, BASALT_APP_ID: 'a', BASALT_REST_KEY: 'r' });
      const port = new URL(server.url).port;
      const { request } = await import('node:http');
      // A request whose body is still arriving when the signal comes.
      const body = JSON.stringify({ text: 'x'.repeat(1000) });
      const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/1/classes/Note', headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'X-Svc-Application-Id': 'a', 'X-Svc-REST-API-Key': 'r' } }, (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        req.on('error', reject);
        req.write(body.slice(0, 10));
        setTimeout(() => {
          server.child.kill('SIGTERM');
          setTimeout(() => req.end(body.slice(10)), 300);
        }, 200);
      });
      const answered = await response;
      assert.equal(answered.status, 201);
      assert.match(JSON.parse(answered.body).objectId, /^[A-Za-z0-9]{15}$/);
      assert.equal(await server.exited(), 0);
      await assert.rejects(fetch(`${server.url}/health`));

      // What was acknowledged is on disk.
      const again = await start({ BASALT_DATA_DIR: dataDir, BASALT_APP_ID: 'a', BASALT_REST_KEY: 'r' });
      const list = await http(`${again.url}/1/classes/Note`, 'GET', { headers: { 'X-Svc-Application-Id': 'a', 'X-Svc-REST-API-Key': 'r' } });
      assert.equal(list.body.results.length, 1);
      await stop(again);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('npm start', () => {
  it('builds dist/ and serves from the compiled JavaScript', async () => {
    const { execFileSync, spawn } = await import('node:child_process');
    const { freePort } = await import('../helpers/process.ts');
    const root = new URL('../..', import.meta.url).pathname;
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'ignore' });
    const dataDir = tempDir();
    const port = await freePort();
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('BASALT_') && !key.startsWith('TEST_')));
    const child = spawn(process.execPath, ['dist/main.js'], { cwd: root, env: { ...env, BASALT_DATA_DIR: dataDir, BASALT_PORT: String(port), BASALT_HOST: '127.0.0.1', BASALT_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (chunk) => (out += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      let healthy = false;
      for (let attempt = 0; attempt < 200 && !healthy; attempt++) {
        healthy = await fetch(`http://127.0.0.1:${port}/health`).then((response) => response.ok, () => false);
        if (!healthy) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.ok(healthy, 'the compiled server answers /health');
      const appId = printed(out, 'application id');
      const restKey = printed(out, 'REST API key');
      const created = await http(`http://127.0.0.1:${port}/1/classes/Note`, 'POST', { body: { text: 'compiled' }, headers: { 'X-Svc-Application-Id': appId, 'X-Svc-REST-API-Key': restKey } });
      assert.equal(created.status, 201);
    } finally {
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
