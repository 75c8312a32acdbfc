import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { http, unique, type Response } from '../helpers/client.ts';
import { start, stop, tempDir, type Started } from '../helpers/process.ts';
import { linkIn } from '../helpers/smtp.ts';

/**
 * Server-wide defaults, on a Basalt of its own started with no limit overridden (the shared test
 * servers may be started otherwise): 30 login/sign-up/reset requests a minute per address
 * (decisions.md), --trust-proxy, links built on --public-url, and mail printed to the log when
 * the app has no SMTP server.
 */

const ADMIN = { email: 'admin@defaults.test', password: 'admin-password-1' };
const APP = { id: 'defaults-app', rest: 'defaults-rest-key', master: 'defaults-master-key' };
const PUBLIC_URL = 'https://basalt.example.com';

describe('account defaults of a fresh server', () => {
  let server: Started;
  let dataDir: string;

  before(async () => {
    dataDir = tempDir();
    server = await start({
      BASALT_DATA_DIR: dataDir,
      BASALT_LOG_LEVEL: 'info',
      BASALT_PUBLIC_URL: PUBLIC_URL,
      BASALT_TRUST_PROXY: 'true',
      BASALT_ADMIN_EMAIL: ADMIN.email,
      BASALT_ADMIN_PASSWORD: ADMIN.password,
      BASALT_APP_ID: APP.id,
      BASALT_REST_KEY: APP.rest,
      BASALT_MASTER_KEY: APP.master,
    });
  });

  after(async () => {
    if (server) await stop(server);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const account = { 'X-Svc-Email': ADMIN.email, 'X-Svc-Password': ADMIN.password };
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, app: { id: string; rest: string } = APP): Promise<Response> =>
    http(`${server.url}${path}`, method, { body, headers: { 'X-Svc-Application-Id': app.id, 'X-Svc-REST-API-Key': app.rest, ...headers } });

  it('without SMTP settings prints the mail, whose link is built on --public-url, to the log', async () => {
    const settings = await http(`${server.url}/1/apps/${APP.id}`, 'PUT', { body: { emailVerification: true }, headers: account });
    assert.equal(settings.status, 200, settings.text);
    const email = `${unique('mail')}@example.com`;
    const created = await call('POST', '/1/users', { username: unique('user'), password: 'pw', email });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.get('location'), `${PUBLIC_URL}/1/users/${created.body.objectId}`);

    let line: string | undefined;
    while (!line) {
      line = server.stdout().split('\n').find((text) => text.includes('mail kept in the outbox') && text.includes(email));
      if (!line) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const logged = JSON.parse(line) as { to: string; subject: string; text: string };
    assert.equal(logged.to, email);
    const link = linkIn(logged, 'verify_email');
    assert.ok(link.startsWith(`${PUBLIC_URL}/apps/${APP.id}/verify_email?token=`), link);
    // The public URL is where a proxy would forward from; here the server is reached directly.
    const opened = await http(link.replace(PUBLIC_URL, server.url), 'GET');
    assert.equal(opened.status, 200, opened.text);
    const user = await call('GET', `/1/users/${created.body.objectId}`, undefined, { 'X-Svc-Master-Key': APP.master });
    assert.equal(user.body.emailVerified, true);
  });

  it('allows 30 login, sign-up and reset requests a minute per address, and takes the address from X-Forwarded-For behind a proxy', async () => {
    const created = await http(`${server.url}/1/apps`, 'POST', { body: { appName: unique('app') }, headers: account });
    assert.equal(created.status, 201, created.text);
    const app = { id: String(created.body.applicationId), rest: String(created.body.restKey) };
    const reset = (headers: Record<string, string>) => call('POST', '/1/requestPasswordReset', { email: `${unique('m')}@example.com` }, headers, app);
    const client = { 'X-Forwarded-For': '203.0.113.7' };

    let answered = 0;
    for (;;) {
      const response = await reset(client);
      if (response.status === 429) {
        assert.equal(response.body.code, 155);
        break;
      }
      assert.equal(response.body.code, 205, response.text);
      answered += 1;
      assert.ok(answered <= 60, 'the limit was never reached');
    }
    // Within one clock minute exactly 30 pass; across a minute's end, up to twice as many.
    assert.ok(answered >= 30 && answered <= 60, `${answered} answered before the first 429`);
    // Another client behind the same proxy has a budget of its own.
    assert.equal((await reset({ 'X-Forwarded-For': '203.0.113.8' })).body.code, 205);
  });
});
