import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AppClient, unique } from '../helpers/client.ts';
import { cloudServer } from '../helpers/cloud.ts';
import { assertError, newUserApp, signUp, as } from '../helpers/users.ts';

/**
 * Cloud code jobs (decisions.md, docs/cloud-code.md "Jobs"): POST /1/jobs/<name> runs one through
 * the queue and its `_JobStatus` tells how it went; Parse Dashboard's job lists; `_JobSchedule`
 * schedules that run. The code is test/fixtures/cloud/jobs-app.
 */

const MASTER = { key: 'master' } as const;

/** Polls until `read` gives a value `done` accepts; fails after 30 s (a generous cap, not a timing). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) assert.fail(`the condition was not met within 30 s: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`cloud jobs [${backend}]`, () => {
    // The default sweep (10 s): a quicker one would open a new app before its code is linked.
    const cloud = cloudServer(backend);
    let app: AppClient;

    before(async () => {
      app = await cloud().appWithCode('jobs-app');
    });

    const status = async (id: string) => (await app.get(`/1/classes/_JobStatus/${id}`, MASTER)).body as Record<string, unknown>;
    const finished = (id: string) => eventually(() => status(id), (body) => body.status !== 'running');
    const runs = async (tag: string) => (await app.get('/1/classes/JobRun', { ...MASTER, query: { where: { tag } } })).body.results as Record<string, unknown>[];

    it('runs a job through the queue: 200 {jobStatusId}, then running → succeeded with its message', async () => {
      const tag = unique('tag');
      const response = await app.post('/1/jobs/report', { n: 3, tag }, MASTER);
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(Object.keys(response.body), ['jobStatusId']);
      const id = response.body.jobStatusId as string;
      assert.equal(response.headers.get('x-svc-job-status-id'), id);
      assert.equal(response.headers.get('x-parse-job-status-id'), id);
      const done = await finished(id);
      assert.equal(done.status, 'succeeded', JSON.stringify(done));
      assert.equal(done.jobName, 'report');
      assert.equal(done.source, 'api');
      assert.equal(done.message, 'counted 3');
      assert.deepEqual(done.params, { n: 3, tag });
      assert.equal((done.startedAt as { __type: string }).__type, 'Date');
      assert.equal((done.finishedAt as { __type: string }).__type, 'Date');
      const made = await runs(tag);
      assert.equal(made.length, 1);
      assert.deepEqual(made[0]!.params, { n: 3, tag });
      assert.equal(made[0]!.jobName, 'report');
    });

    it('runs a job as Parse Dashboard\'s "Run now" asks: POST /1/jobs with the name in the body', async () => {
      const tag = unique('tag');
      const body = { description: 'Executing from job schedule web console.', input: { n: 5 }, jobName: 'report', when: 0, tag };
      const response = await app.post('/1/jobs', body, MASTER);
      assert.equal(response.status, 200, response.text);
      const done = await finished(response.body.jobStatusId as string);
      assert.equal(done.status, 'succeeded', JSON.stringify(done));
      assert.deepEqual(done.params, body);
      assertError(await app.post('/1/jobs', { jobName: 'nothing' }, MASTER), 400, 141);
    });

    it('records a failing job as failed with its error', async () => {
      const response = await app.post('/1/jobs/explode', {}, MASTER);
      assert.equal(response.status, 200, response.text);
      const done = await finished(response.body.jobStatusId as string);
      assert.equal(done.status, 'failed');
      assert.equal(done.message, 'the job broke');
    });

    it('runs a job past the time limit of functions (jobs have none)', async () => {
      const tag = unique('tag');
      const response = await app.post('/1/jobs/slow', { ms: 4000, tag }, MASTER);
      assert.equal(response.status, 200, response.text);
      const done = await finished(response.body.jobStatusId as string);
      assert.equal(done.status, 'succeeded', JSON.stringify(done));
      assert.equal(done.message, 'sleeping');
      assert.deepEqual((await runs(tag)).map((run) => run.jobName).sort(), ['slow', 'slow-finished']);
    });

    it('answers 141 "Invalid job." for a job the code does not define, and writes no status', async () => {
      const response = await app.post('/1/jobs/nothing', {}, MASTER);
      assertError(response, 400, 141);
      assert.equal(response.body.error, 'Invalid job.');
      const plain = await newUserApp(cloud().target);
      assertError(await plain.post('/1/jobs/report', {}, MASTER), 400, 141);
    });

    it('needs the master key to run a job, list jobs and read their statuses (403/119)', async () => {
      const user = await signUp(app);
      for (const options of [{}, { key: 'client' }, as(user.sessionToken)] as const) {
        assertError(await app.post('/1/jobs/report', {}, options), 403, 119);
        assertError(await app.get('/1/cloud_code/jobs/data', options), 403, 119);
        assertError(await app.get('/1/cloud_code/jobs', options), 403, 119);
        assertError(await app.post('/1/cloud_code/jobs', { job_schedule: { jobName: 'report' } }, options), 403, 119);
        assertError(await app.get('/1/classes/_JobStatus', options), 403, 119);
      }
    });

    it('lists the jobs the code defines and those a schedule uses, in Parse Dashboard shapes', async () => {
      const fresh = await cloud().appWithCode('jobs-app');
      const data = await fresh.get('/1/cloud_code/jobs/data', MASTER);
      assert.equal(data.status, 200, data.text);
      assert.deepEqual(data.body, { in_use: [], jobs: ['report', 'explode', 'slow'] });
      assert.deepEqual((await fresh.get('/1/cloud_code/jobs', MASTER)).body, []);
      const startAfter = new Date(Date.now() + 24 * 3600_000).toISOString();
      const created = await fresh.post('/1/cloud_code/jobs', { job_schedule: { jobName: 'slow', description: 'nightly', params: '{"ms":1}', startAfter, timeOfDay: '02:30:00.000Z', repeatMinutes: 1440, daysOfWeek: [1, 1, 1, 1, 1, 1, 1] } }, MASTER);
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(Object.keys(created.body).sort(), ['createdAt', 'objectId']);
      assert.deepEqual((await fresh.get('/1/cloud_code/jobs/data', MASTER)).body, { in_use: ['slow'], jobs: ['report', 'explode', 'slow'] });
      const list = await fresh.get('/1/cloud_code/jobs', MASTER);
      assert.equal(list.body.length, 1);
      const schedule = list.body[0] as Record<string, unknown>;
      assert.equal(schedule.objectId, created.body.objectId);
      assert.equal(schedule.jobName, 'slow');
      assert.equal(schedule.description, 'nightly');
      assert.equal(schedule.params, '{"ms":1}');
      assert.equal(schedule.startAfter, startAfter);
      const day = startAfter.slice(0, 10);
      const expected = Date.parse(`${day}T02:30:00.000Z`) >= Date.parse(startAfter) ? `${day}T02:30:00.000Z` : new Date(Date.parse(`${day}T02:30:00.000Z`) + 24 * 3600_000).toISOString();
      assert.deepEqual(schedule.nextRunAt, { __type: 'Date', iso: expected });
      // Edited and deleted as Parse Dashboard does.
      const edited = await fresh.put(`/1/cloud_code/jobs/${schedule.objectId}`, { job_schedule: { description: 'renamed' } }, MASTER);
      assert.equal(edited.status, 200, edited.text);
      assert.deepEqual(Object.keys(edited.body), ['updatedAt']);
      assert.equal(((await fresh.get('/1/cloud_code/jobs', MASTER)).body[0] as Record<string, unknown>).description, 'renamed');
      assertError(await fresh.post('/1/cloud_code/jobs', { job_schedule: { jobName: 'nothing' } }, MASTER), 400, 141);
      assertError(await fresh.put(`/1/cloud_code/jobs/${schedule.objectId}`, { job_schedule: { timeOfDay: 'noon' } }, MASTER), 400, 107);
      const deleted = await fresh.delete(`/1/cloud_code/jobs/${schedule.objectId}`, MASTER);
      assert.equal(deleted.status, 200, deleted.text);
      assert.deepEqual(deleted.body, {});
      assert.deepEqual((await fresh.get('/1/cloud_code/jobs', MASTER)).body, []);
      assertError(await fresh.delete(`/1/cloud_code/jobs/${schedule.objectId}`, MASTER), 404, 101);
    });

    it('runs a schedule on time: startAfter a few seconds ahead, then every repeatMinutes', async () => {
      const tag = unique('tag');
      const startAfter = new Date(Date.now() + 3000).toISOString();
      const created = await app.post('/1/cloud_code/jobs', { job_schedule: { jobName: 'report', params: JSON.stringify({ n: 7, tag }), startAfter, repeatMinutes: 1 } }, MASTER);
      assert.equal(created.status, 201, created.text);
      const made = await eventually(() => runs(tag), (found) => found.length >= 1);
      assert.equal(made.length, 1);
      assert.deepEqual(made[0]!.params, { n: 7, tag });
      const statuses = await app.get('/1/classes/_JobStatus', { ...MASTER, query: { where: { source: 'schedule', jobName: 'report' } } });
      const ours = (statuses.body.results as Record<string, unknown>[]).filter((one) => (one.params as { tag?: string }).tag === tag);
      assert.equal(ours.length, 1);
      const schedule = ((await app.get('/1/cloud_code/jobs', MASTER)).body as Record<string, unknown>[]).find((one) => one.objectId === created.body.objectId)!;
      // The next run is a minute after the first.
      assert.deepEqual(schedule.nextRunAt, { __type: 'Date', iso: new Date(Date.parse(startAfter) + 60_000).toISOString() });
      assert.equal(schedule.lastRun, Date.parse(startAfter));
      await app.delete(`/1/cloud_code/jobs/${created.body.objectId}`, MASTER);
    });
  });
}
