import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import { assertError } from '../helpers/users.ts';
import { TestSmtp } from '../helpers/smtp.ts';

/** GET /1/outbox (docs/api.md "The outbox"): the mail an app without SMTP settings keeps. */
const UNLIMITED = { rateLimits: { authRequestsPerMinute: 0 } };

interface Mail {
  readonly objectId: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly status: string;
  readonly createdAt: string;
}

eachBackend('the outbox', (target) => {
  let app: AppClient;
  const addresses: string[] = [];

  before(async () => {
    app = await newApp(target, UNLIMITED);
  });

  function outbox(query: Record<string, string | number> = {}, key: 'master' | 'rest' | 'client' | 'javascript' | 'windows' | 'none' = 'master') {
    return app.get('/1/outbox', { key, query });
  }

  it('is empty for an app that sent no mail: {results: []}', async () => {
    const answer = await outbox();
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body, { results: [] });
  });

  it('lists the kept mail newest first, in keyset pages: limit, before, and next while older mail follows', async () => {
    for (let i = 0; i < 3; i++) {
      const email = `${unique('mail')}@example.com`;
      addresses.push(email);
      assert.equal((await app.post('/1/users', { username: unique('user'), password: 'secret-1', email })).status, 201);
      const reset = await app.post('/1/requestPasswordReset', { email });
      assert.equal(reset.status, 200, reset.text);
    }
    const whole = await outbox();
    assert.equal(whole.status, 200, whole.text);
    assert.deepEqual(Object.keys(whole.body), ['results']);
    const mails = whole.body.results as Mail[];
    assert.deepEqual(mails.map((mail) => mail.to).sort(), [...addresses].sort());
    for (const mail of mails) {
      assert.deepEqual(Object.keys(mail).sort(), ['createdAt', 'objectId', 'status', 'subject', 'text', 'to']);
      assert.equal(mail.status, 'unsent');
      assert.ok(mail.subject.includes(String(app.app.appName)), mail.subject);
      assert.match(mail.text, /request_password_reset|reset_password/);
      assert.match(mail.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    // Newest first; mails of the same millisecond by objectId, descending.
    const expected = [...mails].sort((a, b) => (a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : a.objectId < b.objectId ? 1 : -1));
    assert.deepEqual(mails, expected);
    // Each address got its mail in order: the last reset asked is the first listed, unless two shared a millisecond.
    if (new Set(mails.map((mail) => mail.createdAt)).size === 3) assert.deepEqual(mails.map((mail) => mail.to), [...addresses].reverse());

    const first = await outbox({ limit: 2 });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body, { results: mails.slice(0, 2), next: mails[1]!.objectId });
    const second = await outbox({ limit: 2, before: first.body.next });
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(second.body, { results: mails.slice(2) });
    assert.deepEqual((await outbox({ limit: 0 })).body, { results: [] });
  });

  it('is open to the master key only: other keys 403/119, no key 401/903', async () => {
    for (const key of ['rest', 'client', 'javascript', 'windows'] as const) assertError(await outbox({}, key), 403, 119, key);
    assertError(await outbox({}, 'none'), 401, 903);
  });

  it('shows a mail the SMTP server did not take as failed, with its error', { timeout: 120_000 }, async () => {
    // A refused login is a permanent failure (5xx): the job is dead at once and its copy kept.
    const smtp = await TestSmtp.start({ auth: { user: 'mailer', pass: 'right' } });
    try {
      const smtpApp = await newApp(target, { emailVerification: true, email: smtp.settings('Basalt <noreply@example.com>', { user: 'mailer', pass: 'wrong' }), ...UNLIMITED });
      const email = `${unique('mail')}@example.com`;
      assert.equal((await smtpApp.post('/1/users', { username: unique('user'), password: 'secret-1', email })).status, 201);
      let answer = await smtpApp.get('/1/outbox', { key: 'master' });
      while (answer.status === 200 && answer.body.results.length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        answer = await smtpApp.get('/1/outbox', { key: 'master' });
      }
      assert.equal(answer.status, 200, answer.text);
      const [failed, ...more] = answer.body.results;
      assert.deepEqual(more, []);
      assert.deepEqual(Object.keys(failed).sort(), ['createdAt', 'error', 'objectId', 'status', 'subject', 'text', 'to']);
      assert.equal(failed.status, 'failed');
      assert.equal(failed.to, email);
      assert.equal(typeof failed.error, 'string');
      assert.ok(failed.error.length > 0);
      assert.match(failed.text, /verify_email/);
    } finally {
      await smtp.close();
    }
  });

  it('refuses a limit that is not a whole number (400/117) and a before that names no mail (400/102)', async () => {
    for (const limit of ['abc', '-1', '2.5']) assertError(await outbox({ limit }), 400, 117, limit);
    assertError(await outbox({ before: 'noSuchMail' }), 400, 102);
    assertError(await app.get('/1/outbox?before=a&before=b', { key: 'master' }), 400, 102, 'two befores');
  });
});
