import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { AppClient, http, newApp, unique } from '../helpers/client.ts';
import { ADMIN } from '../helpers/targets.ts';
import { freePort, start, stop, tempDatabase, tempDir, type Started } from '../helpers/process.ts';
import { linkIn, TestSmtp } from '../helpers/smtp.ts';

/**
 * The job queue across process deaths and between processes. Each test starts its own servers
 * (a kill -9 cannot be done to the shared ones). Runs are read from the servers' debug log
 * ("job started" / "job done", with the job id, the attempt, the process's lease owner and
 * wall-clock times). The work is `noop` jobs (enqueued by the master key, they only wait) and
 * real verification mail to a local SMTP server.
 *
 * Backends: the crash tests run on both. Two processes draining one queue run on PostgreSQL
 * only: a SQLite data directory belongs to one process.
 */

const SLOW = { timeout: 180_000 };
const APP = { applicationId: 'queue', masterKey: 'queue-master', restKey: 'queue-rest', clientKey: '', javascriptKey: '', windowsKey: '', webhookKey: '' };
const MASTER = { key: 'master' } as const;

type Backend = 'sqlite' | 'postgres';

interface LogLine {
  readonly msg: string;
  readonly queue?: string;
  readonly jobId?: string;
  readonly attempt?: number;
  readonly startedAt?: number;
  readonly endedAt?: number;
  readonly released?: number;
}

function logLines(server: Started): LogLine[] {
  return server
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

function done(server: Started): LogLine[] {
  return logLines(server).filter((line) => line.msg === 'job done');
}

/** A database for one test and the environment of its servers; `drop` removes both. */
async function storage(backend: Backend): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  const dataDir = tempDir();
  const db = backend === 'postgres' ? await tempDatabase() : null;
  return {
    env: {
      BASALT_DATA_DIR: dataDir,
      ...(db ? { BASALT_DATABASE_URL: db.url } : {}),
      BASALT_APP_ID: APP.applicationId,
      BASALT_MASTER_KEY: APP.masterKey,
      BASALT_REST_KEY: APP.restKey,
      BASALT_ADMIN_EMAIL: ADMIN.email,
      BASALT_ADMIN_PASSWORD: ADMIN.password,
      BASALT_LOG_LEVEL: 'debug',
      BASALT_QUEUE_LEASE_TIME: '2000',
      BASALT_QUEUE_SWEEP_INTERVAL: '300',
    },
    drop: async () => {
      await db?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function client(backend: Backend, server: Started): AppClient {
  return new AppClient({ backend, url: server.url }, APP);
}

async function kill9(server: Started): Promise<void> {
  server.child.kill('SIGKILL');
  await server.exited();
}

async function enqueueNoop(app: AppClient, count: number, ms: number): Promise<string[]> {
  const response = await app.post('/1/queue/jobs', { type: 'noop', payload: { ms }, count }, MASTER);
  assert.equal(response.status, 201, response.text);
  return response.body.objectIds;
}

async function jobCount(app: AppClient, status?: string): Promise<number> {
  const response = await app.get('/1/queue/jobs', { ...MASTER, query: { count: 1, limit: 0, ...(status ? { status } : {}) } });
  assert.equal(response.status, 200, response.text);
  return response.body.count;
}

async function until(check: () => Promise<boolean>, pauseMs = 100): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, pauseMs));
}

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`job queue across a crash [${backend}]`, () => {
    let db: Awaited<ReturnType<typeof storage>>;
    const servers: Started[] = [];
    before(async () => {
      db = await storage(backend);
    });
    after(async () => {
      for (const server of servers) await stop(server);
      await db.drop();
    });

    it('kill -9 of a server holding queued and leased jobs: every job runs after the restart', SLOW, async () => {
      const env = { ...db.env, BASALT_QUEUE_CONCURRENCY: '4' };
      const first = await start(env);
      servers.push(first);
      const ids = await enqueueNoop(client(backend, first), 20, 1500);
      await until(async () => (await jobCount(client(backend, first), 'running')) === 4);
      const leased = (await client(backend, first).get('/1/queue/jobs', { ...MASTER, query: { status: 'running' } })).body.results.map((job: { objectId: string }) => job.objectId);
      await kill9(first);
      const doneBefore = new Set(done(first).map((line) => line.jobId));

      const second = await start(env);
      servers.push(second);
      await until(async () => (await jobCount(client(backend, second))) === 0);
      await stop(second);
      const doneAfter = done(second);
      const ran = new Set([...doneBefore, ...doneAfter.map((line) => line.jobId)]);
      assert.deepEqual(ids.filter((id) => !ran.has(id)), [], 'every job ran');
      const interrupted = leased.filter((id: string) => !doneBefore.has(id));
      assert.ok(interrupted.length > 0, 'the killed server held leases');
      for (const id of interrupted) {
        const line = doneAfter.find((entry) => entry.jobId === id);
        assert.ok(line, `leased job ${id} ran after the restart`);
        assert.equal(line.attempt, 2, 'the attempt cut short counts');
      }
    });

    it('SIGTERM: a running job finishes; one that cannot in time is released and runs again at once, the attempt not counted', SLOW, async () => {
      // Half of the shutdown timeout is the jobs' (1 s here): the short job ends within it, the long one not.
      const env = { ...db.env, BASALT_QUEUE_CONCURRENCY: '2', BASALT_SHUTDOWN_TIMEOUT: '2000', BASALT_QUEUE_LEASE_TIME: '60000' };
      const first = await start(env);
      servers.push(first);
      const [short] = await enqueueNoop(client(backend, first), 1, 300);
      const [long] = await enqueueNoop(client(backend, first), 1, 4000);
      await until(async () => (await jobCount(client(backend, first), 'running')) === 2);
      assert.equal(await stop(first), 0);
      const stopped = logLines(first);
      assert.ok(stopped.some((line) => line.msg === 'job done' && line.jobId === short), 'the short job finished before the process ended');
      assert.ok(!stopped.some((line) => line.msg === 'job done' && line.jobId === long));
      assert.ok(stopped.some((line) => line.released === 1), 'the long job\'s lease was released');

      // With a 60 s lease, only the release lets the next process take the job at once.
      const second = await start(env);
      servers.push(second);
      await until(async () => (await jobCount(client(backend, second))) === 0);
      await stop(second);
      const line = done(second).find((entry) => entry.jobId === long);
      assert.ok(line, 'the released job ran in the next process');
      assert.equal(line.attempt, 1);
    });

    it('a verification mail accepted while the SMTP server is down survives kill -9 and is sent once after the restart', SLOW, async () => {
      const port = await freePort();
      const env = { ...db.env, BASALT_QUEUE_RETRY_DELAY: '200', BASALT_QUEUE_MAX_ATTEMPTS: '100' };
      const first = await start(env);
      servers.push(first);
      const target = { backend, url: first.url };
      const app = await newApp(target, { emailVerification: true, email: { host: '127.0.0.1', port, from: 'noreply@basalt.test' }, rateLimits: { authRequestsPerMinute: 0 } });
      const email = `${unique('crash')}@example.com`;
      const signUp = await app.post('/1/users', { username: unique('user'), password: unique('pw'), email });
      assert.equal(signUp.status, 201, signUp.text);
      // The mail was accepted and tried: the first attempt failed to connect.
      await until(async () => {
        const page = await app.get('/1/queue/jobs', MASTER);
        return page.body.results.some((job: { type: string; lastError: string | null }) => job.type === 'mail' && job.lastError !== null);
      });
      await kill9(first);

      const smtp = await TestSmtp.start({ port });
      try {
        const second = await start(env);
        servers.push(second);
        const restarted = new AppClient({ backend, url: second.url }, app.app);
        const mail = await smtp.mailTo(email);
        assert.equal(mail.subject, `Confirm your email address for ${app.app.appName}`);
        assert.ok(mail.text.includes(`Please confirm that ${email} is your email address`), mail.text);
        const link = linkIn(mail, 'verify_email');
        // The link names the first server's address; the second listens elsewhere.
        const page = await http(new URL(new URL(link).pathname + new URL(link).search, second.url).toString(), 'GET');
        assert.equal(page.status, 200, page.text);
        const user = await restarted.get(`/1/users/${signUp.body.objectId}`, MASTER);
        assert.equal(user.body.emailVerified, true, 'the link of the mail works');
        await until(async () => (await jobCount(restarted)) === 0);
        await stop(second);
        assert.equal(smtp.mailsTo(email).length, 1, 'sent exactly once');
      } finally {
        await smtp.close();
      }
    });
  });
}

describe('job queue: two processes on one PostgreSQL', () => {
  it('drain 10,000 jobs; every job runs, none in both processes at once', SLOW, async () => {
    const db = await storage('postgres');
    const servers: Started[] = [];
    try {
      const env = { ...db.env, BASALT_QUEUE_CONCURRENCY: '8', BASALT_QUEUE_LEASE_TIME: '30000' };
      servers.push(await start(env));
      servers.push(await start(env));
      const [a, b] = servers.map((server) => client('postgres', server));
      const ids: string[] = [];
      for (let round = 0; round < 10; round++) ids.push(...(await enqueueNoop(round % 2 === 0 ? a! : b!, 1000, 1)));
      assert.equal(new Set(ids).size, 10_000);
      await until(async () => (await jobCount(a!)) === 0, 250);
      for (const server of servers) await stop(server);

      const runs = new Map<string, { owner: string; start: number; end: number }[]>();
      const perProcess: number[] = [];
      for (const server of servers) {
        const starts = new Map<string, number>();
        let count = 0;
        for (const line of logLines(server)) {
          const key = `${line.queue}|${line.jobId}|${line.attempt}`;
          if (line.msg === 'job started') starts.set(key, line.startedAt!);
          else if (line.msg === 'job done') {
            const begun = starts.get(key);
            assert.ok(begun !== undefined, `a start for ${key}`);
            const list = runs.get(line.jobId!) ?? [];
            list.push({ owner: line.queue!, start: begun, end: line.endedAt! });
            runs.set(line.jobId!, list);
            count += 1;
          }
        }
        perProcess.push(count);
      }
      assert.deepEqual(ids.filter((id) => !runs.has(id)), [], 'every job ran');
      for (const [id, list] of runs) {
        const sorted = [...list].sort((x, y) => x.start - y.start);
        for (let i = 1; i < sorted.length; i++) assert.ok(sorted[i]!.start >= sorted[i - 1]!.end, `job ${id} ran twice at once: ${JSON.stringify(sorted)}`);
      }
      assert.ok(perProcess.every((count) => count > 0), `both processes ran jobs: ${perProcess.join(', ')}`);
    } finally {
      for (const server of servers) await stop(server);
      await db.drop();
    }
  });
});
