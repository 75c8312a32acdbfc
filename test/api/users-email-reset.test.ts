import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { eachBackend } from '../helpers/each-backend.ts';
import { http, newApp, unique, type AppClient, type Response } from '../helpers/client.ts';
import { linkIn, TestSmtp } from '../helpers/smtp.ts';
import { openMailTables } from '../helpers/outbox.ts';

/**
 * POST /1/requestPasswordReset (spec 4.3, 6) and the reset page it mails a link to
 * (decisions.md): the test reads the mail from a local SMTP server, opens the form, sends a new
 * password as a browser would, and checks which passwords work afterwards.
 */

const WAIT = { timeout: 30_000 };
const UNLIMITED = { rateLimits: { authRequestsPerMinute: 0 } };
const FROM = 'noreply@basalt.test';

function assertError(response: Response, status: number, code: number): void {
  assert.equal(response.status, status, `expected ${status}/${code}, got ${response.status} ${response.text}`);
  assert.deepEqual(Object.keys(response.body ?? {}).sort(), ['code', 'error'], response.text);
  assert.equal(response.body.code, code, response.text);
}

function address(): string {
  return `${unique('mail')}@example.com`;
}

interface User {
  readonly objectId: string;
  readonly username: string;
  readonly password: string;
  readonly sessionToken: string;
  readonly email: string;
}

async function signUp(app: AppClient, password = unique('pw')): Promise<User> {
  const username = unique('user');
  const email = address();
  const response = await app.post('/1/users', { username, password, email });
  assert.equal(response.status, 201, response.text);
  return { objectId: response.body.objectId, username, password, sessionToken: response.body.sessionToken, email };
}

function logIn(app: AppClient, username: string, password: string): Promise<Response> {
  return app.get('/1/login', { query: { username, password } });
}

/** The hidden token of the reset form, as a browser would send it back. */
function formToken(html: string): string {
  const match = /name="token" value="([^"]*)"/.exec(html);
  assert.ok(match, `a token field in ${html}`);
  return match[1]!;
}

function submit(link: string, fields: Record<string, string>): Promise<Response> {
  const url = new URL(link);
  return http(`${url.origin}${url.pathname}`, 'POST', { raw: new URLSearchParams(fields).toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
}

function assertPage(response: Response, status: number, app: AppClient, ...fragments: string[]): void {
  assert.equal(response.status, status, response.text);
  assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
  assert.ok(response.text.includes(String(app.app.appName)), `the page names the app: ${response.text}`);
  for (const fragment of fragments) assert.ok(response.text.includes(fragment), `"${fragment}" in ${response.text}`);
}

eachBackend('password reset', (target) => {
  let smtp: TestSmtp;
  let app: AppClient;

  before(async () => {
    smtp = await TestSmtp.start();
    app = await newApp(target, { email: smtp.settings(FROM), passwordPolicy: { minLength: 8 }, ...UNLIMITED });
  });

  after(async () => {
    await smtp?.close();
  });

  async function resetLink(user: User, skip = 0): Promise<string> {
    const response = await app.post('/1/requestPasswordReset', { email: user.email });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, {});
    const mail = await smtp.mailTo(user.email, skip);
    assert.ok(mail.subject.includes(String(app.app.appName)), mail.subject);
    return linkIn(mail, 'reset_password');
  }

  it('mails a link; the form sets the new password; the old one stops working; the link works once', WAIT, async () => {
    const user = await signUp(app);
    const link = await resetLink(user);
    assert.ok(link.startsWith(`${target.url}/apps/${app.app.applicationId}/reset_password?token=`), link);

    const form = await http(link, 'GET');
    assertPage(form, 200, app, 'name="new_password"');
    assert.equal(form.headers.get('x-frame-options'), 'DENY');
    assert.equal(form.headers.get('referrer-policy'), 'no-referrer');
    const token = formToken(form.text);

    const newPassword = unique('new-password');
    assertPage(await submit(link, { token, new_password: newPassword, confirm_password: newPassword }), 200, app);
    const fresh = await logIn(app, user.username, newPassword);
    assert.equal(fresh.status, 200, fresh.text);
    assert.equal(fresh.body.objectId, user.objectId);
    assertError(await logIn(app, user.username, user.password), 404, 101);

    // The link is used up: neither the page nor the form takes it again.
    assertPage(await http(link, 'GET'), 400, app, 'not valid');
    assertPage(await submit(link, { token, new_password: unique('third-password') }), 400, app, 'not valid');
    assert.equal((await logIn(app, user.username, newPassword)).status, 200);
  });

  it('ends the user\'s sessions (revokeSessionOnPasswordChange) and every other reset link', WAIT, async () => {
    const user = await signUp(app);
    const first = await resetLink(user);
    const second = await resetLink(user, 1);
    const newPassword = unique('new-password');
    assertPage(await submit(second, { token: new URL(second).searchParams.get('token')!, new_password: newPassword }), 200, app);
    assertError(await app.get('/1/users/me', { headers: { 'X-Svc-Session-Token': user.sessionToken } }), 400, 209);
    assertPage(await http(first, 'GET'), 400, app);
    assert.equal((await logIn(app, user.username, newPassword)).status, 200);
  });

  it('a password the policy refuses, or a mismatched repetition, does not use up the link', WAIT, async () => {
    const user = await signUp(app);
    const link = await resetLink(user);
    const token = new URL(link).searchParams.get('token')!;
    assertPage(await submit(link, { token, new_password: 'short', confirm_password: 'short' }), 400, app, 'at least 8 characters', 'name="new_password"');
    assertPage(await submit(link, { token, new_password: 'long-enough-1', confirm_password: 'long-enough-2' }), 400, app, 'not the same');
    assertError(await logIn(app, user.username, 'long-enough-1'), 404, 101);
    assertPage(await submit(link, { token, new_password: 'long-enough-1', confirm_password: 'long-enough-1' }), 200, app);
    assert.equal((await logIn(app, user.username, 'long-enough-1')).status, 200);
  });

  it('also takes the form as JSON', WAIT, async () => {
    const user = await signUp(app);
    const link = await resetLink(user);
    const url = new URL(link);
    const newPassword = unique('json-password');
    const response = await http(`${url.origin}${url.pathname}`, 'POST', { body: { token: url.searchParams.get('token'), new_password: newPassword } });
    assertPage(response, 200, app);
    assert.equal((await logIn(app, user.username, newPassword)).status, 200);
  });

  it('finds the user whatever the case of the address', WAIT, async () => {
    const user = await signUp(app);
    const response = await app.post('/1/requestPasswordReset', { email: user.email.toUpperCase() });
    assert.deepEqual(response.body, {});
    linkIn(await smtp.mailTo(user.email), 'reset_password');
  });

  it('answers 205 for an unknown address, 125 for a malformed one, 204 without one', async () => {
    assertError(await app.post('/1/requestPasswordReset', { email: address() }), 400, 205);
    for (const email of ['not-an-address', 'a@b', 42, { x: 1 }]) assertError(await app.post('/1/requestPasswordReset', { email }), 400, 125);
    assertError(await app.post('/1/requestPasswordReset', {}), 400, 204);
    // A user without an address cannot be found by one.
    const response = await app.post('/1/users', { username: unique('user'), password: unique('pw') });
    assert.equal(response.status, 201);
    assertError(await app.post('/1/requestPasswordReset', { email: '' }), 400, 204);
  });

  it('refuses made-up and malformed tokens', async () => {
    const base = `${target.url}/apps/${app.app.applicationId}/reset_password`;
    for (const token of ['', 'abc', 'A'.repeat(43), '../../etc']) {
      assertPage(await http(`${base}?token=${encodeURIComponent(token)}`, 'GET'), 400, app, 'not valid');
      assertPage(await submit(base, { token, new_password: 'long-enough-password' }), 400, app, 'not valid');
    }
  });

  it('builds links from the server\'s own address, not from the Host header of the request', WAIT, async () => {
    const user = await signUp(app);
    const url = new URL(target.url);
    const body = JSON.stringify({ email: user.email });
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: '/1/requestPasswordReset',
          method: 'POST',
          headers: {
            Host: 'attacker.example',
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(body),
            'X-Svc-Application-Id': app.app.applicationId,
            'X-Svc-REST-API-Key': app.app.restKey,
          },
        },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        },
      );
      request.on('error', reject);
      request.end(body);
    });
    assert.equal(status, 200);
    const link = linkIn(await smtp.mailTo(user.email), 'reset_password');
    assert.ok(link.startsWith(`${target.url}/apps/`), link);
    assert.ok(!link.includes('attacker.example'), link);
  });
});

eachBackend('password reset: outbox, expiry, verification, lockout', (target) => {
  async function markerOf(app: AppClient): Promise<string> {
    const name = unique('Marker');
    assert.equal((await app.post(`/1/schemas/${name}`, {}, { key: 'master' })).status, 201);
    return name;
  }

  it('without SMTP settings the link is in the outbox and works; following it verifies the address', async () => {
    const app = await newApp(target, { emailVerification: true, ...UNLIMITED });
    const tables = await openMailTables(target, await markerOf(app));
    try {
      const user = await signUp(app);
      assert.equal((await app.post('/1/requestPasswordReset', { email: user.email })).status, 200);
      const kept = (await tables.outbox(user.email)).find((row) => row.text.includes('reset_password'));
      assert.ok(kept, 'the reset mail is in the outbox');
      assert.equal(kept.status, 'unsent');
      const link = linkIn(kept, 'reset_password');
      const newPassword = unique('pw');
      assertPage(await submit(link, { token: new URL(link).searchParams.get('token')!, new_password: newPassword }), 200, app);
      const login = await logIn(app, user.username, newPassword);
      assert.equal(login.status, 200, login.text);
      // The reset mail reached the address, which is what verification asks to prove.
      assert.equal(login.body.emailVerified, true);
    } finally {
      await tables.close();
    }
  });

  it('a link past passwordPolicy.resetTokenValidityDuration is refused', async () => {
    const app = await newApp(target, { passwordPolicy: { resetTokenValidityDuration: 1 }, ...UNLIMITED });
    const tables = await openMailTables(target, await markerOf(app));
    try {
      const user = await signUp(app);
      assert.equal((await app.post('/1/requestPasswordReset', { email: user.email })).status, 200);
      const issued = Date.now();
      const link = linkIn((await tables.outbox(user.email))[0]!, 'reset_password');
      assertPage(await http(link, 'GET'), 200, app);
      while (Date.now() < issued + 1100) await new Promise((resolve) => setTimeout(resolve, 100));
      assertPage(await http(link, 'GET'), 400, app);
      assertPage(await submit(link, { token: new URL(link).searchParams.get('token')!, new_password: unique('pw') }), 400, app);
      assert.equal((await logIn(app, user.username, user.password)).status, 200);
    } finally {
      await tables.close();
    }
  });

  it('a reset ends an account lockout', async () => {
    const app = await newApp(target, { accountLockout: { threshold: 2, duration: 60 }, ...UNLIMITED });
    const tables = await openMailTables(target, await markerOf(app));
    try {
      const user = await signUp(app);
      assertError(await logIn(app, user.username, 'wrong-1'), 404, 101);
      const locked = await logIn(app, user.username, 'wrong-2');
      assertError(locked, 404, 101);
      assert.match(locked.body.error, /locked/);
      assert.match((await logIn(app, user.username, user.password)).body.error, /locked/);
      assert.equal((await app.post('/1/requestPasswordReset', { email: user.email })).status, 200);
      const link = linkIn((await tables.outbox(user.email))[0]!, 'reset_password');
      const newPassword = unique('pw');
      assertPage(await submit(link, { token: new URL(link).searchParams.get('token')!, new_password: newPassword }), 200, app);
      assert.equal((await logIn(app, user.username, newPassword)).status, 200);
    } finally {
      await tables.close();
    }
  });
});
