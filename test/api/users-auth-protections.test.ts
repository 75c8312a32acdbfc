import { it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { http, newApp, unique, type AppClient, type Response } from '../helpers/client.ts';
import { ADMIN } from '../helpers/targets.ts';

/**
 * Protections of login, sign-up and password reset (decisions.md "Limits", "Errors", "Accounts
 * and apps"): the per-address request limit, account lockout, the password policy, and one
 * answer for a wrong username and a wrong password.
 */

const UNLIMITED = { rateLimits: { authRequestsPerMinute: 0 } };
const LOGIN_FAILED = { code: 101, error: 'Invalid username/password.' };

function assertError(response: Response, status: number, code: number): void {
  assert.equal(response.status, status, `expected ${status}/${code}, got ${response.status} ${response.text}`);
  assert.deepEqual(Object.keys(response.body ?? {}).sort(), ['code', 'error'], response.text);
  assert.equal(response.body.code, code, response.text);
}

async function signUp(app: AppClient, password = unique('pw')): Promise<{ objectId: string; username: string; password: string; sessionToken: string }> {
  const username = unique('user');
  const response = await app.post('/1/users', { username, password });
  assert.equal(response.status, 201, response.text);
  return { objectId: response.body.objectId, username, password, sessionToken: response.body.sessionToken };
}

const logIn = (app: AppClient, username: string, password: string) => app.get('/1/login', { query: { username, password } });

async function sleepUntil(moment: number): Promise<void> {
  while (Date.now() < moment) await new Promise((resolve) => setTimeout(resolve, 50));
}

/**
 * Sends requests until one is refused with 429 and returns how many were answered before it.
 * The limit counts per clock minute, so when a minute ends during the run up to twice the limit
 * may pass: with a limit of N the first refusal comes after N to 2N requests.
 */
async function answeredBeforeRefusal(limit: number, send: (i: number) => Promise<Response>): Promise<number> {
  for (let i = 0; i <= 2 * limit; i++) {
    const response = await send(i);
    if (response.status === 429) {
      assertError(response, 429, 155);
      return i;
    }
  }
  assert.fail(`no request of ${2 * limit + 1} was refused`);
}

eachBackend('login, sign-up and reset protections', (target) => {
  it('limits login, sign-up and password-reset requests per address and app (429/155), in one budget', async () => {
    const app = await newApp(target, { rateLimits: { authRequestsPerMinute: 3 } });
    const kinds = [
      () => app.post('/1/requestPasswordReset', { email: `${unique('m')}@example.com` }),
      () => app.get('/1/login', { query: { username: unique('nobody'), password: 'pw' } }),
      () => app.post('/1/users', { username: unique('user'), password: 'pw' }),
    ];
    const answered = await answeredBeforeRefusal(3, (i) => kinds[i % kinds.length]!());
    assert.ok(answered >= 3 && answered <= 6, `${answered} answered before the first 429`);

    // Other requests, the master key and other apps are not affected.
    assert.equal((await app.get('/1/users')).status, 200);
    assert.equal((await app.post('/1/users', { username: unique('user'), password: 'pw' }, { key: 'master' })).status, 201);
    const other = await newApp(target, { rateLimits: { authRequestsPerMinute: 3 } });
    assertError(await other.post('/1/requestPasswordReset', { email: `${unique('m')}@example.com` }), 400, 205);

    // A client cannot choose its address: X-Forwarded-For counts only behind a trusted proxy.
    const spoofed = [];
    for (let i = 0; i <= 3; i++) {
      spoofed.push((await app.post('/1/requestPasswordReset', { email: 'a@example.com' }, { headers: { 'X-Forwarded-For': `10.0.0.${i + 1}` } })).status);
    }
    assert.ok(spoofed.includes(429), `statuses ${spoofed}`);
  });

  it('does not limit an app that sets authRequestsPerMinute to 0', async () => {
    const app = await newApp(target, UNLIMITED);
    for (let i = 0; i < 35; i++) assertError(await app.post('/1/requestPasswordReset', { email: `${unique('m')}@example.com` }), 400, 205);
  });

  it('gives a wrong username and a wrong password the very same answer', async () => {
    const app = await newApp(target, UNLIMITED);
    const user = await signUp(app);
    const wrongPassword = await logIn(app, user.username, 'not-the-password');
    const wrongUsername = await logIn(app, unique('nobody'), user.password);
    assert.equal(wrongPassword.status, 404);
    assert.equal(wrongUsername.status, 404);
    assert.deepEqual(wrongPassword.body, LOGIN_FAILED);
    assert.deepEqual(wrongUsername.body, LOGIN_FAILED);
  });

  it('locks an account after threshold wrong passwords for duration minutes, even against the right one', async () => {
    // 0.02 minutes: 1.2 seconds.
    const app = await newApp(target, { accountLockout: { threshold: 3, duration: 0.02 }, ...UNLIMITED });
    const user = await signUp(app);
    assert.deepEqual((await logIn(app, user.username, 'wrong-1')).body, LOGIN_FAILED);
    assert.deepEqual((await logIn(app, user.username, 'wrong-2')).body, LOGIN_FAILED);
    const locked = await logIn(app, user.username, 'wrong-3');
    const lockedAt = Date.now();
    assertError(locked, 404, 101);
    assert.match(locked.body.error, /locked due to multiple failed login attempts/);
    const refused = await logIn(app, user.username, user.password);
    assertError(refused, 404, 101);
    assert.match(refused.body.error, /locked/);

    await sleepUntil(lockedAt + 1300);
    const accepted = await logIn(app, user.username, user.password);
    assert.equal(accepted.status, 200, accepted.text);
    // A successful login starts the count again: two more wrong passwords do not lock.
    assert.deepEqual((await logIn(app, user.username, 'wrong-4')).body, LOGIN_FAILED);
    assert.deepEqual((await logIn(app, user.username, 'wrong-5')).body, LOGIN_FAILED);
    assert.equal((await logIn(app, user.username, user.password)).status, 200);
  });

  it('counts concurrent wrong passwords all, and never says "locked" for an unknown username', async () => {
    const app = await newApp(target, { accountLockout: { threshold: 3, duration: 5 }, ...UNLIMITED });
    const user = await signUp(app);
    await Promise.all([1, 2, 3].map((n) => logIn(app, user.username, `wrong-${n}`)));
    assert.match((await logIn(app, user.username, user.password)).body.error, /locked/);
    const nobody = unique('nobody');
    for (let i = 0; i < 4; i++) assert.deepEqual((await logIn(app, nobody, 'pw')).body, LOGIN_FAILED);
  });

  it('applies the password policy at sign-up and password change (142)', async () => {
    const app = await newApp(target, { passwordPolicy: { minLength: 8, pattern: '[0-9]' }, ...UNLIMITED });
    assertError(await app.post('/1/users', { username: unique('user'), password: 'short1' }), 400, 142);
    assertError(await app.post('/1/users', { username: unique('user'), password: 'no-digits-here' }), 400, 142);
    // Length counts characters, not bytes or UTF-16 units.
    assertError(await app.post('/1/users', { username: unique('user'), password: '😀😀😀😀😀😀1' }), 400, 142);
    const user = await signUp(app, 'long-enough-1');
    assertError(await app.put(`/1/users/${user.objectId}`, { password: 'short1' }, { headers: { 'X-Svc-Session-Token': user.sessionToken } }), 400, 142);
    assert.equal((await logIn(app, user.username, 'long-enough-1')).status, 200);
    const changed = await app.put(`/1/users/${user.objectId}`, { password: 'also-long-2' }, { headers: { 'X-Svc-Session-Token': user.sessionToken } });
    assert.equal(changed.status, 200, changed.text);
    assert.equal((await logIn(app, user.username, 'also-long-2')).status, 200);
  });

  it('stops a pattern that backtracks without end: the password is refused (142), and the server keeps answering', async () => {
    const app = await newApp(target, { passwordPolicy: { pattern: '^(a+)+$' }, ...UNLIMITED });
    // Tested to the end, this password would take this pattern days.
    const refused = app.post('/1/users', { username: unique('user'), password: `${'a'.repeat(40)}!` });
    const health = await http(`${target.url}/health`, 'GET');
    assert.equal(health.status, 200);
    assertError(await refused, 400, 142);
    const user = await signUp(app, 'aaaaaaaa');
    assert.equal((await logIn(app, user.username, 'aaaaaaaa')).status, 200, 'a password the pattern settles at once is taken');
  });

  it('answers with the app\'s validationError when it has one', async () => {
    const app = await newApp(target, { passwordPolicy: { minLength: 10, validationError: 'Use ten characters or more.' }, ...UNLIMITED });
    const response = await app.post('/1/users', { username: unique('user'), password: 'short' });
    assertError(response, 400, 142);
    assert.equal(response.body.error, 'Use ten characters or more.');
  });

  it('refuses malformed policy, lockout, email and limit settings when the app is written (107)', async () => {
    const bad: Record<string, unknown>[] = [
      { passwordPolicy: { minLength: 0 } },
      { passwordPolicy: { pattern: '(' } },
      { passwordPolicy: { maxLength: 3 } },
      { accountLockout: { threshold: 3 } },
      { accountLockout: { threshold: 0, duration: 5 } },
      { accountLockout: { threshold: 3, duration: -1 } },
      { email: { host: 'smtp.example.com' } },
      { email: { host: 'smtp.example.com', from: 'a@example.com', port: 70000 } },
      { email: { host: 'smtp.example.com', from: 'a@example.com', auth: { user: 'u' } } },
      { emailVerifyTokenValidityDuration: 0 },
    ];
    for (const settings of bad) {
      const response = await http(`${target.url}/1/apps`, 'POST', { body: { appName: unique('app'), ...settings }, headers: { 'X-Svc-Email': ADMIN.email, 'X-Svc-Password': ADMIN.password } });
      assertError(response, 400, 107);
    }
    const good = await http(`${target.url}/1/apps`, 'POST', {
      body: { appName: unique('app'), passwordPolicy: null, accountLockout: { threshold: 5, duration: 1.5 }, email: { host: 'smtp.example.com', port: 587, from: 'a@example.com', auth: { user: 'u', pass: 'p' } } },
      headers: { 'X-Svc-Email': ADMIN.email, 'X-Svc-Password': ADMIN.password },
    });
    assert.equal(good.status, 201, good.text);
  });
});
