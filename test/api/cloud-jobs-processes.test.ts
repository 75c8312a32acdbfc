import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { AppClient, unique } from '../helpers/client.ts';
import { ADMIN } from '../helpers/targets.ts';
import { start, stop, tempDatabase, tempDir, type Started } from '../helpers/process.ts';

/**
 * Cloud code jobs across process deaths and between processes (docs/cloud-code.md "Jobs"): a job
 * whose process is killed is marked failed and not run again; two processes on one PostgreSQL run
 * a schedule's time once. Each test starts its own servers, with the default app's code from
 * --cloud (test/fixtures/cloud/jobs-app).
 */

const SLOW = { timeout: 180_000 };
const APP = { applicationId: 'jobs', masterKey: 'jobs-master', restKey: 'jobs-rest', clientKey: '', javascriptKey: '', windowsKey: '', webhookKey: '' };
const MASTER = { key: 'master' } as const;
const CODE = ['--cloud', 'test/fixtures/cloud/jobs-app/main.js'];

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) assert.fail(`the condition was not met within 60 s: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`cloud jobs across processes [${backend}]`, () => {
    const servers: Started[] = [];
    let env: Record<string, string>;
    let drop: () => Promise<void>;

    before(async () => {
      const dataDir = tempDir();
      const db = backend === 'postgres' ? await tempDatabase() : null;
      env = {
        BASALT_DATA_DIR: dataDir,
        ...(db ? { BASALT_DATABASE_URL: db.url } : {}),
        BASALT_APP_ID: APP.applicationId,
        BASALT_MASTER_KEY: APP.masterKey,
        BASALT_REST_KEY: APP.restKey,
        BASALT_ADMIN_EMAIL: ADMIN.email,
        BASALT_ADMIN_PASSWORD: ADMIN.password,
        BASALT_QUEUE_LEASE_TIME: '2000',
        BASALT_QUEUE_SWEEP_INTERVAL: '300',
      };
      drop = async () => {
        await db?.drop();
        rmSync(dataDir, { recursive: true, force: true });
      };
    });
    after(async () => {
      for (const server of servers) await stop(server);
      await drop();
    });

    const client = (server: Started) => new AppClient({ backend, url: server.url }, APP);
    const runs = async (app: AppClient, tag: string) => (await app.get('/1/classes/JobRun', { ...MASTER, query: { where: { tag } } })).body.results as Record<string, unknown>[];

    it('a job whose process is killed is marked failed after the restart, and not run again', SLOW, async () => {
      const first = await start(env, CODE);
      servers.push(first);
      const tag = unique('tag');
      const response = await client(first).post('/1/jobs/slow', { ms: 600_000, tag }, MASTER);
      assert.equal(response.status, 200, response.text);
      const id = response.body.jobStatusId as string;
      await eventually(() => runs(client(first), tag), (found) => found.length === 1);
      first.child.kill('SIGKILL');
      await first.exited();

      const second = await start(env, CODE);
      servers.push(second);
      const status = await eventually(async () => (await client(second).get(`/1/classes/_JobStatus/${id}`, MASTER)).body as Record<string, unknown>, (body) => body.status !== 'running');
      assert.equal(status.status, 'failed');
      assert.equal(status.message, 'The process running this job stopped before it finished; the job was not run again.');
      assert.equal((status.finishedAt as { __type: string }).__type, 'Date');
      assert.deepEqual((await runs(client(second), tag)).map((run) => run.jobName), ['slow']);
    });

    if (backend === 'postgres') {
      it('two processes on one PostgreSQL run a schedule\'s time once', SLOW, async () => {
        const one = await start(env, CODE);
        const two = await start(env, CODE);
        servers.push(one, two);
        const tag = unique('tag');
        const startAfter = new Date(Date.now() + 3000).toISOString();
        const created = await client(one).post('/1/cloud_code/jobs', { job_schedule: { jobName: 'report', params: JSON.stringify({ n: 1, tag }), startAfter, repeatMinutes: 1 } }, MASTER);
        assert.equal(created.status, 201, created.text);
        await eventually(() => runs(client(two), tag), (found) => found.length >= 1);
        // Wait until the first time's queue jobs are done: only the next time's run is left.
        await eventually(async () => (await client(one).get('/1/queue/jobs', { ...MASTER, query: { count: 1, limit: 0 } })).body.count as number, (count) => count === 1);
        assert.equal((await runs(client(one), tag)).length, 1);
        const statuses = await client(one).get('/1/classes/_JobStatus', { ...MASTER, query: { where: { source: 'schedule' } } });
        assert.equal((statuses.body.results as Record<string, unknown>[]).filter((one) => (one.params as { tag?: string }).tag === tag).length, 1);
      });
    }
  });
}
