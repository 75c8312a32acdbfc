import { it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import { assertError } from '../helpers/users.ts';
import { apps, createApp, listed, readApp } from '../helpers/apps.ts';
import { TestSmtp } from '../helpers/smtp.ts';

/**
 * The secrets of the app settings other than `push` (docs/api.md "Apps"): the SMTP password and
 * the sign-in providers' secrets are written and never shown again. `/1/apps` shows "********",
 * and an update that sends it back keeps the stored secret.
 */

const MASK = '********';
const WAIT = { timeout: 30_000 };
const FROM = 'noreply@basalt.test';

function settings() {
  return {
    email: { host: 'smtp.example.com', port: 2525, from: FROM, auth: { user: 'mailer', pass: 'smtp-password-1' } },
    auth: {
      facebook: { enabled: true, appIds: ['123'], appSecret: 'facebook-secret-1' },
      twitter: { consumerKey: 'twitter-key', consumerSecret: 'twitter-secret-1' },
    },
  };
}

const masked = {
  email: { host: 'smtp.example.com', port: 2525, from: FROM, auth: { user: 'mailer', pass: MASK } },
  auth: {
    facebook: { enabled: true, appIds: ['123'], appSecret: MASK },
    twitter: { consumerKey: 'twitter-key', consumerSecret: MASK },
  },
};

function assertNoSecret(text: string, label: string): void {
  for (const secret of ['smtp-password-1', 'facebook-secret-1', 'twitter-secret-1']) assert.ok(!text.includes(secret), `${label} shows ${secret}`);
}

async function signUpWithEmail(app: AppClient): Promise<string> {
  const email = `${unique('mail')}@example.com`;
  const response = await app.post('/1/users', { username: unique('user'), password: unique('pw'), email });
  assert.equal(response.status, 201, response.text);
  return email;
}

async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 50));
}

eachBackend('apps: secret settings', (target) => {
  const base = target.url;

  it('shows every secret masked on create, read, list and update', async () => {
    const created = await apps(base, 'POST', '', { body: { appName: unique('secrets'), ...settings() } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual({ email: created.body.email, auth: created.body.auth }, masked);
    assertNoSecret(created.text, 'POST');
    const id = created.body.applicationId;
    const read = await apps(base, 'GET', `/${id}`);
    assert.deepEqual({ email: read.body.email, auth: read.body.auth }, masked);
    assertNoSecret(read.text, 'GET');
    const list = await apps(base, 'GET', '');
    const inList = list.body.results.find((app: { applicationId: string }) => app.applicationId === id);
    assert.deepEqual({ email: inList.email, auth: inList.auth }, masked);
    assertNoSecret(list.text, 'list');
    const updated = await apps(base, 'PUT', `/${id}`, { body: { sessionLength: 3600 } });
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual({ email: updated.body.email, auth: updated.body.auth }, masked);
    assertNoSecret(updated.text, 'PUT');
  });

  it('keeps the stored secrets when an update sends back the masks with other changes', async () => {
    const app = await createApp(base, settings());
    const edited = { email: { ...app.email, port: 2526 }, auth: { ...app.auth, twitter: { ...app.auth.twitter, consumerKey: 'twitter-key-2' } } };
    const response = await apps(base, 'PUT', `/${app.applicationId}`, { body: edited });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual({ email: response.body.email, auth: response.body.auth }, edited);
    assert.deepEqual((await readApp(base, app.applicationId)).email, edited.email);
  });

  it('refuses a mask with no secret stored behind it, with the code of the push setting', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['email.auth.pass', { email: { host: 'smtp.example.com', from: FROM, auth: { user: 'mailer', pass: MASK } } }],
      ['auth.facebook.appSecret', { auth: { facebook: { appSecret: MASK } } }],
      ['auth.twitter.consumerSecret', { auth: { twitter: { consumerKey: 'k', consumerSecret: MASK } } }],
    ];
    for (const [path, body] of cases) {
      const name = unique('masked');
      const created = await apps(base, 'POST', '', { body: { appName: name, ...body } });
      assertError(created, 400, 107, path);
      assert.equal(created.body.error, `App setting ${path} is the mask /1/apps shows, and no secret is stored there: give the secret itself.`);
      assert.equal((await listed(base)).filter((app) => app.appName === name).length, 0);
    }
    // An app without an SMTP password: the mask stands for nothing, and nothing changes.
    const app = await createApp(base, { email: { host: 'smtp.example.com', from: FROM } });
    const refused = await apps(base, 'PUT', `/${app.applicationId}`, { body: { sessionLength: 60, email: { host: 'smtp.example.com', from: FROM, auth: { user: 'mailer', pass: MASK } } } });
    assertError(refused, 400, 107);
    const after = await readApp(base, app.applicationId);
    assert.deepEqual(after.email, { host: 'smtp.example.com', from: FROM });
    assert.equal(after.sessionLength, undefined);
  });

  it('sends mail with the kept SMTP password after a masked update, and with a new one after it is replaced', WAIT, async () => {
    const credentials = { user: 'mailer', pass: unique('secret') };
    const smtp = await TestSmtp.start({ auth: credentials });
    try {
      const app = await newApp(target, { emailVerification: true, email: smtp.settings(FROM, credentials), rateLimits: { authRequestsPerMinute: 0 } });
      const id = app.app.applicationId as string;
      const shown = await readApp(base, id);
      assert.equal(shown.email.auth.pass, MASK);

      // The masked setting back, with a new sender: the mail comes from it, so the update took effect.
      const kept = await apps(base, 'PUT', `/${id}`, { body: { email: { ...shown.email, from: 'kept@basalt.test' } } });
      assert.equal(kept.status, 200, kept.text);
      const first = await smtp.mailTo(await signUpWithEmail(app));
      assert.match(first.headers.get('from') ?? '', /kept@basalt\.test/);
      assert.equal(smtp.refusedLogins, 0);

      // A new value replaces the secret: the server refuses it.
      const replaced = await apps(base, 'PUT', `/${id}`, { body: { email: { ...shown.email, auth: { user: 'mailer', pass: 'not-the-password' } } } });
      assert.equal(replaced.status, 200, replaced.text);
      assert.equal(replaced.body.email.auth.pass, MASK);
      const refusedAddress = await signUpWithEmail(app);
      await until(() => smtp.refusedLogins > 0);
      assert.equal(smtp.mailsTo(refusedAddress).length, 0);
    } finally {
      await smtp.close();
    }
  });
});
