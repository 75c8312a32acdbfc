import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { eachBackend } from '../helpers/each-backend.ts';
import { http, newApp, unique, type AppClient, type Response } from '../helpers/client.ts';
import { linkIn, TestSmtp } from '../helpers/smtp.ts';
import { openMailTables, type MailTables } from '../helpers/outbox.ts';
import { freePort } from '../helpers/process.ts';

/**
 * Email verification (spec 3.1, every row of its table; spec 6; decisions.md "Email verification
 * and password reset"): mail goes over SMTP to a local server, and the test follows the link
 * over HTTP as a person would.
 */

// A guard against a mail that never comes: the test fails instead of hanging.
const WAIT = { timeout: 30_000 };
// These apps sign up many users from one address; the limit itself is tested elsewhere.
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

async function signUp(app: AppClient, fields: Record<string, unknown> = {}, key: 'rest' | 'master' = 'rest'): Promise<{ objectId: string; sessionToken?: string; username: string; password: string; body: any }> {
  const username = unique('user');
  const password = unique('pw');
  const response = await app.post('/1/users', { username, password, ...fields }, { key });
  assert.equal(response.status, 201, response.text);
  return { objectId: response.body.objectId, sessionToken: response.body.sessionToken, username, password, body: response.body };
}

async function stored(app: AppClient, objectId: string): Promise<Record<string, any>> {
  const response = await app.get(`/1/users/${objectId}`, { key: 'master' });
  assert.equal(response.status, 200, response.text);
  return response.body;
}

function page(url: string, method = 'GET', form?: Record<string, string>): Promise<Response> {
  if (!form) return http(url, method);
  return http(url, method, { raw: new URLSearchParams(form).toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
}

function assertPage(response: Response, status: number, app: AppClient, ...fragments: string[]): void {
  assert.equal(response.status, status, response.text);
  assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
  assert.equal(response.headers.get('cache-control'), 'no-store');
  assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
  assert.ok(response.text.includes(String(app.app.appName)), `the page names the app: ${response.text}`);
  for (const fragment of fragments) assert.ok(response.text.includes(fragment), `"${fragment}" in ${response.text}`);
}

/** A class only this app has, so the outbox helper can find the app's database. */
async function marker(app: AppClient): Promise<string> {
  const name = unique('Marker');
  assert.equal((await app.post(`/1/schemas/${name}`, {}, { key: 'master' })).status, 201);
  return name;
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

eachBackend('email verification', (target) => {
  let smtp: TestSmtp;
  let app: AppClient;

  before(async () => {
    smtp = await TestSmtp.start();
    app = await newApp(target, { emailVerification: true, email: smtp.settings(`Basalt <${FROM}>`), ...UNLIMITED });
  });

  after(async () => {
    await smtp?.close();
  });

  it('absent → false when a user is created with an address; the mailed link turns it true, once', WAIT, async () => {
    const email = address();
    const user = await signUp(app, { email: email.toUpperCase() });
    assert.match(user.sessionToken ?? '', /^r:/, 'without preventLoginWithUnverifiedEmail sign-up still logs in');
    assert.equal((await stored(app, user.objectId)).emailVerified, false);

    const mail = await smtp.mailTo(email);
    assert.equal(mail.from, FROM);
    assert.match(mail.headers.get('from') ?? '', new RegExp(FROM.replace(/\./g, '\\.')));
    assert.ok(mail.subject.includes(String(app.app.appName)), mail.subject);
    const link = linkIn(mail, 'verify_email');
    assert.ok(link.startsWith(`${target.url}/apps/${app.app.applicationId}/verify_email?token=`), link);

    assertPage(await page(link), 200, app, email);
    assert.equal((await stored(app, user.objectId)).emailVerified, true);
    // Single use: the second visit is refused and changes nothing.
    assertPage(await page(link), 400, app, 'not valid');
    assert.equal((await stored(app, user.objectId)).emailVerified, true);
  });

  it('a user without an address has no emailVerified; setting one makes it false and mails a link', WAIT, async () => {
    const user = await signUp(app);
    assert.equal('emailVerified' in (await stored(app, user.objectId)), false);
    const email = address();
    const put = await app.put(`/1/users/${user.objectId}`, { email }, { headers: { 'X-Svc-Session-Token': user.sessionToken! } });
    assert.equal(put.status, 200, put.text);
    assert.equal((await stored(app, user.objectId)).emailVerified, false);
    assertPage(await page(linkIn(await smtp.mailTo(email), 'verify_email')), 200, app);
    assert.equal((await stored(app, user.objectId)).emailVerified, true);
  });

  it('changing a verified address makes it false, mails the new one, and links to the old one stop working', WAIT, async () => {
    const first = address();
    const user = await signUp(app, { email: first });
    const firstLink = linkIn(await smtp.mailTo(first), 'verify_email');
    assert.deepEqual((await app.post('/1/verificationEmailRequest', { email: first })).body, {});
    const secondLink = linkIn(await smtp.mailTo(first, 1), 'verify_email');
    assert.notEqual(firstLink, secondLink);
    assertPage(await page(firstLink), 200, app);
    assert.equal((await stored(app, user.objectId)).emailVerified, true);

    const next = address();
    const put = await app.put(`/1/users/${user.objectId}`, { email: next }, { headers: { 'X-Svc-Session-Token': user.sessionToken! } });
    assert.equal(put.status, 200, put.text);
    assert.equal((await stored(app, user.objectId)).emailVerified, false);
    // A link sent to the old address does not verify the new one.
    assertPage(await page(secondLink), 400, app);
    assert.equal((await stored(app, user.objectId)).emailVerified, false);
    assertPage(await page(linkIn(await smtp.mailTo(next), 'verify_email')), 200, app, next);
    assert.equal((await stored(app, user.objectId)).emailVerified, true);
  });

  it('setting the same address again changes nothing and sends nothing', WAIT, async () => {
    const email = address();
    const user = await signUp(app, { email });
    assertPage(await page(linkIn(await smtp.mailTo(email), 'verify_email')), 200, app);
    const put = await app.put(`/1/users/${user.objectId}`, { email }, { headers: { 'X-Svc-Session-Token': user.sessionToken! } });
    assert.equal(put.status, 200, put.text);
    assert.equal((await stored(app, user.objectId)).emailVerified, true);
    // Another user's mail, sent after the PUT, arrives; none came for the unchanged address.
    const other = address();
    await signUp(app, { email: other });
    await smtp.mailTo(other);
    assert.equal(smtp.mailsTo(email).length, 1);
  });

  it('no user is verified at creation: not even the master key can create one so', WAIT, async () => {
    const email = address();
    const user = await signUp(app, { email, emailVerified: true }, 'master');
    assert.equal((await stored(app, user.objectId)).emailVerified, false);
    await smtp.mailTo(email);
    // And clients never set it themselves.
    const put = await app.put(`/1/users/${user.objectId}`, { emailVerified: true }, { headers: { 'X-Svc-Session-Token': user.sessionToken! } });
    assertError(put, 403, 119);
    assertError(await app.post('/1/users', { username: unique('u'), password: 'pw', email: address(), emailVerified: true }), 403, 119);
  });

  it('removing the address removes emailVerified', WAIT, async () => {
    const email = address();
    const user = await signUp(app, { email });
    await smtp.mailTo(email);
    const put = await app.put(`/1/users/${user.objectId}`, { email: null }, { headers: { 'X-Svc-Session-Token': user.sessionToken! } });
    assert.equal(put.status, 200, put.text);
    const after = await stored(app, user.objectId);
    assert.equal('email' in after, false);
    assert.equal('emailVerified' in after, false);
  });

  it('POST /1/verificationEmailRequest: {} and a new link; 205, 125 and 204 otherwise', WAIT, async () => {
    const email = address();
    await signUp(app, { email });
    await smtp.mailTo(email);
    const again = await app.post('/1/verificationEmailRequest', { email: email.toUpperCase() });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body, {});
    linkIn(await smtp.mailTo(email, 1), 'verify_email');
    assertError(await app.post('/1/verificationEmailRequest', { email: address() }), 400, 205);
    assertError(await app.post('/1/verificationEmailRequest', { email: 'not an address' }), 400, 125);
    assertError(await app.post('/1/verificationEmailRequest', {}), 400, 204);
  });

  it('the page of a bad link offers a new one, without telling whether an address is known', WAIT, async () => {
    const base = `${target.url}/apps/${app.app.applicationId}/verify_email`;
    for (const token of ['', 'x', 'A'.repeat(43)]) assertPage(await page(`${base}?token=${token}`), 400, app, 'name="email"');
    assertPage(await page(base), 400, app);

    const email = address();
    await signUp(app, { email });
    await smtp.mailTo(email);
    const known = await page(base, 'POST', { email });
    const unknown = await page(base, 'POST', { email: address() });
    assertPage(known, 200, app);
    assert.equal(unknown.status, 200);
    assert.equal(unknown.text, known.text);
    assertPage(await page(linkIn(await smtp.mailTo(email, 1), 'verify_email')), 200, app);
  });

  it('answers 404 for a page of an unknown app', async () => {
    const response = await page(`${target.url}/apps/${unique('noapp')}/verify_email?token=${'A'.repeat(43)}`);
    assert.equal(response.status, 404);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
  });
});

eachBackend('email verification: preventLoginWithUnverifiedEmail', (target) => {
  let smtp: TestSmtp;
  let app: AppClient;

  before(async () => {
    smtp = await TestSmtp.start();
    app = await newApp(target, { emailVerification: true, preventLoginWithUnverifiedEmail: true, email: smtp.settings(FROM), ...UNLIMITED });
  });

  after(async () => {
    await smtp?.close();
  });

  it('sign-up gives no session; login with the right password is 205 until the address is verified', WAIT, async () => {
    const email = address();
    const user = await signUp(app, { email });
    assert.deepEqual(Object.keys(user.body).sort(), ['createdAt', 'objectId']);
    const login = () => app.get('/1/login', { query: { username: user.username, password: user.password } });
    const refused = await login();
    assertError(refused, 400, 205);
    assert.equal(refused.body.error, 'User email is not verified.');
    // A wrong password still gets the one answer of a failed login: nothing about verification.
    const wrong = await app.get('/1/login', { query: { username: user.username, password: 'wrong' } });
    assertError(wrong, 404, 101);
    assert.equal(wrong.body.error, 'Invalid username/password.');

    assertPage(await page(linkIn(await smtp.mailTo(email), 'verify_email')), 200, app);
    const accepted = await login();
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.body.emailVerified, true);
    assert.match(accepted.body.sessionToken, /^r:/);
  });

  it('a user without an address cannot log in either: it could never be verified', async () => {
    const user = await signUp(app);
    assertError(await app.get('/1/login', { query: { username: user.username, password: user.password } }), 400, 205);
  });
});

eachBackend('email verification: outbox, expiry, and mail that cannot be sent', (target) => {
  it('without SMTP settings the mail waits in the outbox, whose link works; only a hash of the token is stored', async () => {
    const app = await newApp(target, { emailVerification: true, ...UNLIMITED });
    const tables = await openMailTables(target, await marker(app));
    try {
      const email = address();
      const user = await signUp(app, { email });
      const [kept, ...more] = await tables.outbox(email);
      assert.equal(more.length, 0);
      assert.equal(kept!.status, 'unsent');
      assert.ok(kept!.subject.includes(String(app.app.appName)));
      const link = linkIn(kept!, 'verify_email');
      const token = new URL(link).searchParams.get('token')!;
      const hashes = await tables.tokenHashes();
      assert.ok(hashes.includes(createHash('sha256').update(token).digest('hex')), 'the hash is stored');
      assert.ok(!hashes.includes(token), 'the token itself is not');
      assertPage(await page(link), 200, app);
      assert.equal((await stored(app, user.objectId)).emailVerified, true);
      assert.ok(!(await tables.tokenHashes()).includes(createHash('sha256').update(token).digest('hex')), 'a used token is gone');
    } finally {
      await tables.close();
    }
  });

  it('with emailVerification off there is no emailVerified and no mail', async () => {
    const app = await newApp(target, UNLIMITED);
    const tables = await openMailTables(target, await marker(app));
    try {
      const email = address();
      const user = await signUp(app, { email });
      assert.equal('emailVerified' in (await stored(app, user.objectId)), false);
      const changed = address();
      assert.equal((await app.put(`/1/users/${user.objectId}`, { email: changed }, { headers: { 'X-Svc-Session-Token': user.sessionToken! } })).status, 200);
      assert.equal('emailVerified' in (await stored(app, user.objectId)), false);
      assert.deepEqual(await tables.outbox(), []);
    } finally {
      await tables.close();
    }
  });

  it('a link past emailVerifyTokenValidityDuration is refused', async () => {
    const app = await newApp(target, { emailVerification: true, emailVerifyTokenValidityDuration: 1, ...UNLIMITED });
    const tables = await openMailTables(target, await marker(app));
    try {
      const email = address();
      const user = await signUp(app, { email });
      const issued = Date.now();
      const link = linkIn((await tables.outbox(email))[0]!, 'verify_email');
      while (Date.now() < issued + 1100) await new Promise((resolve) => setTimeout(resolve, 100));
      assertPage(await page(link), 400, app);
      assert.equal((await stored(app, user.objectId)).emailVerified, false);
    } finally {
      await tables.close();
    }
  });

  it('mail the SMTP server does not take is kept in the outbox as failed; sign-up still succeeds', WAIT, async () => {
    const closed = await freePort();
    const app = await newApp(target, { emailVerification: true, email: { host: '127.0.0.1', port: closed, from: FROM }, ...UNLIMITED });
    const tables = await openMailTables(target, await marker(app));
    try {
      const email = address();
      await signUp(app, { email });
      const [failed] = await eventually(() => tables.outbox(email), (rows) => rows.length > 0);
      assert.equal(failed!.status, 'failed');
      assert.ok(failed!.error && failed!.error.length > 0);
      linkIn(failed!, 'verify_email');
    } finally {
      await tables.close();
    }
  });

  it('logs in to an SMTP server that asks for it, with the app\'s credentials', WAIT, async () => {
    const credentials = { user: 'mailer', pass: unique('secret') };
    const smtp = await TestSmtp.start({ auth: credentials });
    try {
      const good = await newApp(target, { emailVerification: true, email: smtp.settings(FROM, credentials), ...UNLIMITED });
      const email = address();
      await signUp(good, { email });
      linkIn(await smtp.mailTo(email), 'verify_email');

      const bad = await newApp(target, { emailVerification: true, email: smtp.settings(FROM, { user: 'mailer', pass: 'wrong' }), ...UNLIMITED });
      const tables = await openMailTables(target, await marker(bad));
      try {
        const refused = address();
        await signUp(bad, { email: refused });
        const [failed] = await eventually(() => tables.outbox(refused), (rows) => rows.length > 0);
        assert.equal(failed!.status, 'failed');
        assert.ok(smtp.refusedLogins > 0);
        assert.equal(smtp.mailsTo(refused).length, 0);
      } finally {
        await tables.close();
      }
    } finally {
      await smtp.close();
    }
  });
});
