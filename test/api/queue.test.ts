import { it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { http, newApp, unique, type AppClient, type Response } from '../helpers/client.ts';
import { linkIn, TestSmtp } from '../helpers/smtp.ts';
import { openMailTables } from '../helpers/outbox.ts';
import { freePort } from '../helpers/process.ts';

/**
 * The durable job queue through its master-key API (docs/api.md "Job queue"): listing, paging,
 * retrying, refusals. The jobs that fail are real ones: verification mail to a port where no
 * SMTP server listens. The test servers run with --queue-retry-delay 50 (scripts/test.ts), so
 * eight attempts take seconds. Crashes and several processes: queue-processes.test.ts.
 */

const WAIT = { timeout: 60_000 };
const MASTER = { key: 'master' } as const;
const UNLIMITED = { rateLimits: { authRequestsPerMinute: 0 } };
const FROM = 'noreply@basalt.test';
const JOB_FIELDS = ['attempts', 'createdAt', 'lastError', 'lockedUntil', 'maxAttempts', 'objectId', 'payload', 'runAt', 'status', 'type', 'updatedAt'];

function assertError(response: Response, status: number, code: number): void {
  assert.equal(response.status, status, `expected ${status}/${code}, got ${response.status} ${response.text}`);
  assert.deepEqual(Object.keys(response.body ?? {}).sort(), ['code', 'error'], response.text);
  assert.equal(response.body.code, code, response.text);
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function jobs(app: AppClient, query: Record<string, string | number>): Promise<{ results: any[]; count?: number }> {
  const response = await app.get('/1/queue/jobs', { ...MASTER, query });
  assert.equal(response.status, 200, response.text);
  return response.body;
}

async function signUp(app: AppClient, email: string): Promise<string> {
  const response = await app.post('/1/users', { username: unique('user'), password: unique('pw'), email });
  assert.equal(response.status, 201, response.text);
  return response.body.objectId;
}

/** A class only this app has, so the outbox helper can find the app's database. */
async function marker(app: AppClient): Promise<string> {
  const name = unique('Marker');
  assert.equal((await app.post(`/1/schemas/${name}`, {}, MASTER)).status, 201);
  return name;
}

eachBackend('job queue: master-key API', (target) => {
  it('every endpoint refuses other keys with 403/119', async () => {
    const app = await newApp(target);
    for (const key of ['rest', 'javascript'] as const) {
      assertError(await app.get('/1/queue/jobs', { key }), 403, 119);
      assertError(await app.get('/1/queue/jobs/someid', { key }), 403, 119);
      assertError(await app.post('/1/queue/jobs', { type: 'noop' }, { key }), 403, 119);
      assertError(await app.post('/1/queue/jobs/someid/retry', {}, { key }), 403, 119);
    }
    assert.deepEqual(await jobs(app, { count: 1 }), { results: [], count: 0 }, 'nothing was enqueued');
  });

  it('refuses malformed requests with a clear 4xx and enqueues nothing', async () => {
    const app = await newApp(target);
    assertError(await app.get('/1/queue/jobs', { ...MASTER, query: { status: 'done' } }), 400, 102);
    assertError(await app.get('/1/queue/jobs', { ...MASTER, query: { limit: -1 } }), 400, 117);
    assertError(await app.get('/1/queue/jobs', { ...MASTER, query: { skip: 'x' } }), 400, 118);
    assertError(await app.post('/1/queue/jobs', [], MASTER), 400, 107);
    assertError(await app.post('/1/queue/jobs', { type: 'mail', payload: { to: 'a@example.com', subject: 's', text: 't' } }, MASTER), 400, 142);
    assertError(await app.post('/1/queue/jobs', { type: 'nothing' }, MASTER), 400, 142);
    assertError(await app.post('/1/queue/jobs', { type: 'noop', count: 0 }, MASTER), 400, 142);
    assertError(await app.post('/1/queue/jobs', { type: 'noop', count: 1001 }, MASTER), 400, 142);
    assertError(await app.post('/1/queue/jobs', { type: 'noop', maxAttempts: 0 }, MASTER), 400, 142);
    assertError(await app.post('/1/queue/jobs', { type: 'noop', payload: { ms: -1 } }, MASTER), 400, 142);
    assertError(await app.post('/1/queue/jobs', { type: 'noop', payload: { ms: 'soon' } }, MASTER), 400, 142);
    assertError(await app.get('/1/queue/jobs/nosuchjob', MASTER), 404, 101);
    assertError(await app.post('/1/queue/jobs/nosuchjob/retry', {}, MASTER), 404, 101);
    assert.deepEqual(await jobs(app, { count: 1 }), { results: [], count: 0 });
  });

  it('noop jobs enqueued by the master key run and are gone once done', WAIT, async () => {
    const app = await newApp(target);
    const created = await app.post('/1/queue/jobs', { type: 'noop', payload: { ms: 1 }, count: 5 }, MASTER);
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(Object.keys(created.body), ['objectIds']);
    assert.equal(created.body.objectIds.length, 5);
    assert.equal(new Set(created.body.objectIds).size, 5);
    await eventually(() => jobs(app, { count: 1, limit: 0 }), (page) => page.count === 0);
    for (const id of created.body.objectIds) assertError(await app.get(`/1/queue/jobs/${id}`, MASTER), 404, 101);
  });

  it('a mail that always fails backs off, ends dead with its error, is kept in the outbox as failed; retry makes it pending and it is sent', WAIT, async () => {
    const port = await freePort();
    const app = await newApp(target, { emailVerification: true, email: { host: '127.0.0.1', port, from: FROM }, ...UNLIMITED });
    const tables = await openMailTables(target, await marker(app));
    let smtp: TestSmtp | null = null;
    try {
      const emails = [`${unique('a')}@example.com`, `${unique('b')}@example.com`, `${unique('c')}@example.com`];
      const users: string[] = [];
      for (const email of emails) users.push(await signUp(app, email));

      // The list and its count are two statements: a job that turns dead between them is in one only.
      const dead = await eventually(() => jobs(app, { status: 'dead', count: 1 }), (page) => page.count === 3 && page.results.length === 3);
      assert.equal(dead.results.length, 3);
      for (const job of dead.results) {
        assert.deepEqual(Object.keys(job).sort(), JOB_FIELDS);
        assert.equal(job.type, 'mail');
        assert.equal(job.status, 'dead');
        assert.equal(job.maxAttempts, 8);
        assert.equal(job.attempts, 8, 'every attempt was made');
        assert.match(job.lastError, /ECONNREFUSED|connect/i);
        assert.equal(job.lockedUntil, null);
        assert.ok(Date.parse(job.updatedAt) >= Date.parse(job.createdAt));
      }
      assert.deepEqual(dead.results.map((job) => job.payload.to).sort(), [...emails].sort());
      assert.deepEqual(await jobs(app, { status: 'pending', count: 1 }), { results: [], count: 0 });
      assert.deepEqual(await jobs(app, { status: 'running', count: 1 }), { results: [], count: 0 });

      // Paging, oldest first.
      const first = await jobs(app, { status: 'dead', limit: 2 });
      const rest = await jobs(app, { status: 'dead', limit: 2, skip: 2, count: 1 });
      assert.equal(first.results.length, 2);
      assert.equal(rest.results.length, 1);
      assert.equal(rest.count, 3);
      assert.deepEqual([...first.results, ...rest.results].map((job) => job.objectId), dead.results.map((job) => job.objectId));

      // The outbox keeps each mail as failed, as without the queue.
      for (const email of emails) {
        const [kept, ...more] = await tables.outbox(email);
        assert.equal(more.length, 0);
        assert.equal(kept!.status, 'failed');
        assert.match(kept!.error ?? '', /ECONNREFUSED|connect/i);
        linkIn(kept!, 'verify_email');
      }

      // The mail server comes up; the operator retries one job.
      smtp = await TestSmtp.start({ port });
      const job = dead.results.find((entry) => entry.payload.to === emails[0])!;
      const retried = await app.post(`/1/queue/jobs/${job.objectId}/retry`, {}, MASTER);
      assert.equal(retried.status, 200, retried.text);
      assert.equal(retried.body.objectId, job.objectId);
      assert.equal(retried.body.status, 'pending');
      assert.equal(retried.body.attempts, 0);
      assert.equal(retried.body.maxAttempts, 8);
      assert.ok(Date.parse(retried.body.runAt) >= Date.parse(job.updatedAt));

      const mail = await smtp.mailTo(emails[0]!);
      assert.match(mail.headers.get('from') ?? '', /noreply@basalt\.test/);
      const verified = await http(linkIn(mail, 'verify_email'), 'GET');
      assert.equal(verified.status, 200, verified.text);
      const user = await app.get(`/1/users/${users[0]}`, MASTER);
      assert.equal(user.body.emailVerified, true);
      await eventually(() => app.get(`/1/queue/jobs/${job.objectId}`, MASTER), (response) => response.status === 404);
      // The other two stay dead; nothing else was sent.
      assert.equal((await jobs(app, { status: 'dead', count: 1 })).count, 2);
      assert.equal(smtp.mailsTo(emails[1]!).length + smtp.mailsTo(emails[2]!).length, 0);
    } finally {
      await tables.close();
      await smtp?.close();
    }
  });

  it('a mail server that refuses permanently (5xx) makes the mail dead at once, without retries', WAIT, async () => {
    const credentials = { user: 'mailer', pass: unique('secret') };
    const smtp = await TestSmtp.start({ auth: credentials });
    try {
      const app = await newApp(target, { emailVerification: true, email: smtp.settings(FROM, { user: 'mailer', pass: 'wrong' }), ...UNLIMITED });
      const email = `${unique('refused')}@example.com`;
      await signUp(app, email);
      const dead = await eventually(() => jobs(app, { status: 'dead' }), (page) => page.results.length === 1);
      assert.equal(dead.results[0].attempts, 1);
      assert.match(dead.results[0].lastError, /535|Invalid username or password/);
      assert.ok(smtp.refusedLogins > 0);
      assert.equal(smtp.mailsTo(email).length, 0);
    } finally {
      await smtp.close();
    }
  });

  it('a sign-up refused by the unique email index leaves no token, no outbox row and no job: they are written in its transaction', WAIT, async () => {
    const outboxApp = await newApp(target, { emailVerification: true, ...UNLIMITED });
    const port = await freePort();
    const queuedApp = await newApp(target, { emailVerification: true, email: { host: '127.0.0.1', port, from: FROM }, ...UNLIMITED });
    for (const app of [outboxApp, queuedApp]) {
      const tables = await openMailTables(target, await marker(app));
      try {
        const email = `${unique('twice')}@example.com`;
        await signUp(app, email);
        const tokens = await tables.tokenHashes();
        assert.equal(tokens.length, 1);
        assertError(await app.post('/1/users', { username: unique('user'), password: unique('pw'), email }), 400, 203);
        assert.deepEqual(await tables.tokenHashes(), tokens, 'no second token');
        if (app === outboxApp) {
          assert.equal((await tables.outbox(email)).length, 1, 'one mail kept');
          assert.deepEqual(await jobs(app, { count: 1 }), { results: [], count: 0 }, 'no job without SMTP settings');
        } else {
          const queued = await jobs(app, { count: 1 });
          assert.equal(queued.count, 1, 'one mail job');
          assert.equal(queued.results[0].payload.to, email);
        }
      } finally {
        await tables.close();
      }
    }
  });

  it('a running job cannot be retried (400/142)', WAIT, async () => {
    const app = await newApp(target);
    const created = await app.post('/1/queue/jobs', { type: 'noop', payload: { ms: 3000 } }, MASTER);
    assert.equal(created.status, 201, created.text);
    const [id] = created.body.objectIds;
    const running = await eventually(() => app.get(`/1/queue/jobs/${id}`, MASTER), (response) => response.body.status === 'running');
    assert.equal(running.body.attempts, 1);
    assert.ok(Date.parse(running.body.lockedUntil) > Date.parse(running.body.runAt));
    assertError(await app.post(`/1/queue/jobs/${id}/retry`, {}, MASTER), 400, 142);
    await eventually(() => app.get(`/1/queue/jobs/${id}`, MASTER), (response) => response.status === 404);
  });
});
