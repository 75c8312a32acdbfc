import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import { as, signUp } from '../helpers/users.ts';
import { WebhookReceiver, type Answer } from '../helpers/webhook-receiver.ts';

/**
 * afterSave and afterDelete hooks: queued in the write's transaction, delivered by the durable
 * queue (GET /1/queue/jobs), retried with back-off after a failure, dead after the last attempt.
 * The test servers retry after 50 ms (scripts/test.ts).
 */

const MASTER = { key: 'master' } as const;

/** A gate the test opens: the receiver's answer waits for it. */
function gate(): { readonly wait: Promise<Answer>; open: (answer: Answer) => void } {
  let open!: (answer: Answer) => void;
  const wait = new Promise<Answer>((resolve) => (open = resolve));
  return { wait, open };
}

eachBackend('webhooks: after-triggers through the queue', (target) => {
  let app: AppClient;
  let receiver: WebhookReceiver;

  before(async () => {
    app = await newApp(target);
    receiver = await WebhookReceiver.start(app.app.webhookKey);
  });

  after(() => receiver.close());

  async function hook(className: string, triggerName: string, path: string, answer: Parameters<WebhookReceiver['on']>[1]): Promise<void> {
    const response = await app.post('/1/hooks/triggers', { className, triggerName, url: receiver.on(path, answer) }, MASTER);
    assert.equal(response.status, 201, response.text);
  }

  async function webhookJobs(status?: string): Promise<any[]> {
    const response = await app.get('/1/queue/jobs', { ...MASTER, query: status ? { status } : {} });
    assert.equal(response.status, 200, response.text);
    return response.body.results.filter((job: { type: string }) => job.type === 'webhook');
  }

  /** Polls (bounded) until the queue holds no webhook job of this app: the last one succeeded. */
  async function queueDrained(limitMs = 20_000): Promise<any[]> {
    const deadline = Date.now() + limitMs;
    let jobs = await webhookJobs();
    while (jobs.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      jobs = await webhookJobs();
    }
    return jobs;
  }

  it('afterSave is a queued job: the write answers first; a 500 is retried until the receiver takes it', async () => {
    const cls = unique('AfterSaved');
    const first = gate();
    await hook(cls, 'afterSave', `/${cls}`, (_call, index) => (index === 0 ? first.wait : { body: { success: true } }));
    const user = await signUp(app);
    // The create is answered while the receiver still holds the first call.
    const created = await app.post(`/1/classes/${cls}`, { score: 7 }, as(user.sessionToken));
    assert.equal(created.status, 201, created.text);
    await receiver.waitForCalls(`/${cls}`, 1);
    const [running] = await webhookJobs('running');
    assert.ok(running, 'the delivery is a running job of the queue');
    assert.equal(running.attempts, 1);
    assert.equal(running.payload.url, receiver.url(`/${cls}`));
    assert.equal(running.payload.body.object.objectId, created.body.objectId);

    first.open({ status: 500, body: { oops: true } });
    const calls = await receiver.waitForCalls(`/${cls}`, 2);
    assert.equal(calls.length, 2);
    assert.deepEqual(await queueDrained(), [], 'the job is done once the receiver took it');
    for (const call of calls) {
      assert.equal(call.signed, true);
      assert.equal(call.body.triggerName, 'afterSave');
      assert.equal(call.body.master, false);
      assert.equal(call.body.user.objectId, user.objectId);
      assert.equal(call.body.object.className, cls);
      assert.equal(call.body.object.objectId, created.body.objectId);
      assert.equal(call.body.object.score, 7);
      assert.equal(call.body.original, undefined);
    }
    assert.equal(receiver.callsTo(`/${cls}`).length, 2);
  });

  it('afterSave on an update carries the object as written and the original', async () => {
    const cls = unique('AfterUpdated');
    const created = await app.post(`/1/classes/${cls}`, { score: 1 });
    await hook(cls, 'afterSave', `/${cls}`, () => ({ body: { success: true } }));
    assert.equal((await app.put(`/1/classes/${cls}/${created.body.objectId}`, { score: { __op: 'Increment', amount: 4 } })).status, 200);
    const [call] = await receiver.waitForCalls(`/${cls}`, 1);
    assert.equal(call!.body.object.score, 5);
    assert.equal(call!.body.original.score, 1);
    assert.equal(call!.body.original.className, cls);
  });

  it('afterDelete delivers the deleted object; a write refused or rolled back queues nothing', async () => {
    const cls = unique('AfterDeleted');
    await hook(cls, 'afterDelete', `/${cls}`, () => ({ body: { success: true } }));
    const created = await app.post(`/1/classes/${cls}`, { name: 'going' });
    assert.equal((await app.delete(`/1/classes/${cls}/${created.body.objectId}`)).status, 200);
    const [call] = await receiver.waitForCalls(`/${cls}`, 1);
    assert.equal(call!.signed, true);
    assert.equal(call!.body.triggerName, 'afterDelete');
    assert.deepEqual([call!.body.object.objectId, call!.body.object.name, call!.body.object.className], [created.body.objectId, 'going', cls]);

    const saved = unique('NotSaved');
    await hook(saved, 'afterSave', `/${saved}`, () => ({ body: { success: true } }));
    const kept = await app.post(`/1/classes/${saved}`, { n: 1 });
    await receiver.waitForCalls(`/${saved}`, 1);
    // A transactional batch whose second command fails: the first command's write and its job roll back.
    const batch = await app.post('/1/batch', {
      transaction: true,
      requests: [
        { method: 'PUT', path: `/1/classes/${saved}/${kept.body.objectId}`, body: { n: 2 } },
        { method: 'PUT', path: `/1/classes/${saved}/${kept.body.objectId}`, body: { n: 'not a number' } },
      ],
    });
    assert.equal(batch.status, 400, batch.text);
    assert.equal((await app.get(`/1/classes/${saved}/${kept.body.objectId}`)).body.n, 1);
    // A later write's delivery comes after any the rolled-back one could have queued.
    assert.equal((await app.put(`/1/classes/${saved}/${kept.body.objectId}`, { n: 3 })).status, 200);
    const calls = await receiver.waitForCalls(`/${saved}`, 2);
    assert.deepEqual(await queueDrained(), []);
    assert.deepEqual(receiver.callsTo(`/${saved}`).map((one) => one.body.object.n), [1, 3]);
    assert.equal(calls.length, 2);
  });

  it('a delivery that keeps failing is dead after its last attempt, visible at /1/queue/jobs', async () => {
    const cls = unique('AfterFailing');
    await hook(cls, 'afterSave', `/${cls}`, () => ({ status: 500, body: { oops: true } }));
    const created = await app.post(`/1/classes/${cls}`, { a: 1 });
    // The shared test server's queue slots serve every test file at once: the wait ends when
    // the attempts stop coming for 30 s, not at a fixed time after the write.
    let deadline = Date.now() + 30_000;
    let attempts = 0;
    let dead = await webhookJobs('dead');
    while (dead.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      dead = await webhookJobs('dead');
      const seen = receiver.callsTo(`/${cls}`).length;
      if (seen > attempts) [attempts, deadline] = [seen, Date.now() + 30_000];
    }
    assert.equal(dead.length, 1);
    assert.equal(dead[0].attempts, dead[0].maxAttempts);
    assert.equal(dead[0].lastError, `afterSave hook of ${cls}: the hook answered HTTP 500`);
    assert.equal(dead[0].payload.body.object.objectId, created.body.objectId);
    assert.equal(receiver.callsTo(`/${cls}`).length, dead[0].maxAttempts);
  });
});
