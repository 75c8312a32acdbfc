import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { before, it } from 'node:test';
import { eachBackend } from '../helpers/each-backend.ts';
import { http } from '../helpers/client.ts';
import { rawExchange } from '../helpers/keep-alive.ts';
import { start, stop, tempDatabase, tempDir, type Started } from '../helpers/process.ts';

/**
 * The built dashboard at /dashboard (docs/dashboard.md "Serving"): files with their types and
 * cache headers, the single-page app's paths answered with index.html, GET / sending browsers
 * there, nothing outside the build folder read. npm test builds the dashboard when it is missing.
 */
const BROWSER = { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

function statusOf(raw: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);
}

eachBackend('dashboard serving', (target) => {
  let index: string;
  let script: string;

  before(async () => {
    const answer = await http(`${target.url}/dashboard`, 'GET', { headers: BROWSER });
    index = answer.text;
    const found = /<script type="module" crossorigin src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(index)?.[1];
    assert.ok(found, `no module script in index.html: ${index.slice(0, 300)}`);
    script = found;
  });

  it('/dashboard answers index.html, revalidated on every load, with the page policy', async () => {
    const answer = await http(`${target.url}/dashboard`, 'GET', { headers: BROWSER });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(answer.headers.get('cache-control'), 'no-cache');
    assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(answer.headers.get('x-frame-options'), 'DENY');
    assert.match(answer.headers.get('content-security-policy') ?? '', /^default-src 'self'; script-src 'self';/);
    assert.match(answer.text, /^<!doctype html>/i);
    assert.match(answer.text, /<div id="root"><\/div>/);
  });

  it('hashed assets are JavaScript and CSS with a year of immutable cache', async () => {
    const js = await http(`${target.url}${script}`, 'GET');
    assert.equal(js.status, 200);
    assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(js.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.ok(js.text.length > 1000);
    const css = /<link rel="stylesheet" crossorigin href="(\/dashboard\/assets\/[^"]+\.css)"/.exec(index)?.[1];
    assert.ok(css, 'no stylesheet in index.html');
    const style = await http(`${target.url}${css}`, 'GET');
    assert.equal(style.status, 200);
    assert.equal(style.headers.get('content-type'), 'text/css; charset=utf-8');
    assert.equal(style.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  });

  it('the app\'s paths fall back to index.html; a missing asset is a 404, not HTML', async () => {
    for (const path of ['/dashboard/', '/dashboard/apps/some-app', '/dashboard/apps/some-app/browser/GameScore', '/dashboard/apps/some-app?x=1']) {
      const answer = await http(`${target.url}${path}`, 'GET', { headers: BROWSER });
      assert.equal(answer.status, 200, path);
      assert.equal(answer.headers.get('content-type'), 'text/html; charset=utf-8', path);
      assert.equal(answer.text, index, path);
    }
    const missing = await http(`${target.url}/dashboard/assets/index-gone.js`, 'GET');
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, { code: 108, error: 'No endpoint at GET /dashboard/assets/index-gone.js.' });
  });

  it('GET / sends a browser to /dashboard; JSON clients keep the 404/108', async () => {
    const browser = await fetch(`${target.url}/`, { headers: BROWSER, redirect: 'manual' });
    assert.equal(browser.status, 302);
    assert.equal(browser.headers.get('location'), '/dashboard');
    for (const headers of [{}, { Accept: 'application/json' }, { Accept: '*/*' }] as Record<string, string>[]) {
      const answer = await http(`${target.url}/`, 'GET', { headers });
      assert.equal(answer.status, 404);
      assert.deepEqual(answer.body, { code: 108, error: 'No endpoint at GET /.' });
    }
    const post = await http(`${target.url}/`, 'POST', { headers: BROWSER, body: {} });
    assert.equal(post.status, 404);
    assert.deepEqual(post.body, { code: 108, error: 'No endpoint at POST /.' });
  });

  it('paths that would leave the build folder are refused', async () => {
    const { host } = new URL(target.url);
    for (const path of ['/dashboard/../package.json', '/dashboard/assets/../../package.json', '/dashboard/%2e%2e/package.json', '/dashboard/..%2fpackage.json', '/dashboard/..%5cpackage.json', '/dashboard/%2e%2e%2f%2e%2e%2fpackage.json', '/dashboard/a%00.js']) {
      const raw = await rawExchange(target.url, `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      assert.equal(statusOf(raw), 404, `${path}: ${raw.slice(0, 200)}`);
      assert.doesNotMatch(raw, /"name": "basalt"/, path);
      assert.match(raw, /"code":108/, path);
    }
  });

  it('a server without a built dashboard says so at /dashboard, and its first-start banner names the URL', async () => {
    const dataDir = tempDir();
    const emptyBuild = tempDir();
    const database = target.backend === 'postgres' ? await tempDatabase() : null;
    let server: Started | undefined;
    try {
      server = await start({ BASALT_DATA_DIR: dataDir, BASALT_DASHBOARD_DIR: emptyBuild, ...(database ? { BASALT_DATABASE_URL: database.url } : {}) });
      const answer = await http(`${server.url}/dashboard/apps/x`, 'GET', { headers: BROWSER });
      assert.equal(answer.status, 503);
      assert.equal(answer.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.equal(answer.headers.get('cache-control'), 'no-store');
      assert.match(answer.text, /The dashboard is not built/);
      assert.match(answer.text, /npm run build/);
      assert.match(server.stdout(), new RegExp(`dashboard: +${server.url.replace(/[.]/g, '\\.')}/dashboard `));
    } finally {
      if (server) await stop(server);
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(emptyBuild, { recursive: true, force: true });
    }
  });
});
