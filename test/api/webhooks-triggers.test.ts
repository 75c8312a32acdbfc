import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import { as, signUp } from '../helpers/users.ts';
import { WebhookReceiver, type ReceivedCall } from '../helpers/webhook-receiver.ts';

/** beforeSave and beforeDelete hooks through the write pipeline: REST create, update, delete and /1/batch. */

const MASTER = { key: 'master' } as const;

/** The receiver a beforeSave hook runs: doubles `score`, adds `checked`, refuses `name: "bad"`. */
function doubler(call: ReceivedCall) {
  const object = call.body.object;
  if (object.name === 'bad') return { body: { error: 'bad names are refused' } };
  return { body: { success: { ...object, score: (object.score ?? 0) * 2, checked: true } } };
}

eachBackend('webhooks: before-triggers', (target) => {
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

  it('beforeSave changes what a REST create and update write, and sees the caller and the original', async () => {
    const cls = unique('Doubled');
    await hook(cls, 'beforeSave', `/${cls}`, doubler);
    const user = await signUp(app);
    const created = await app.post(`/1/classes/${cls}`, { name: 'a', score: 2 }, as(user.sessionToken));
    assert.equal(created.status, 201, created.text);
    const stored = await app.get(`/1/classes/${cls}/${created.body.objectId}`);
    assert.equal(stored.body.score, 4);
    assert.equal(stored.body.checked, true);
    assert.equal(stored.body.name, 'a');

    const [onCreate] = receiver.callsTo(`/${cls}`);
    assert.equal(onCreate!.signed, true);
    assert.equal(onCreate!.body.triggerName, 'beforeSave');
    assert.equal(onCreate!.body.master, false);
    assert.equal(onCreate!.body.user.objectId, user.objectId);
    assert.equal(onCreate!.body.object.className, cls);
    assert.equal(onCreate!.body.object.score, 2);
    assert.equal(onCreate!.body.original, undefined);

    const updated = await app.put(`/1/classes/${cls}/${created.body.objectId}`, { score: 10 });
    assert.equal(updated.status, 200, updated.text);
    assert.equal((await app.get(`/1/classes/${cls}/${created.body.objectId}`)).body.score, 20);
    const onUpdate = receiver.callsTo(`/${cls}`)[1]!;
    assert.equal(onUpdate.body.object.score, 10);
    assert.equal(onUpdate.body.original.score, 4);
    assert.equal(onUpdate.body.original.className, cls);
    assert.equal(onUpdate.body.user, undefined);
  });

  it('beforeSave refuses a create and an update with 141 and the receiver\'s message; nothing is written', async () => {
    const cls = unique('Refused');
    await hook(cls, 'beforeSave', `/${cls}`, doubler);
    const refused = await app.post(`/1/classes/${cls}`, { name: 'bad', score: 1 });
    assert.equal(refused.status, 400, refused.text);
    assert.deepEqual(refused.body, { code: 141, error: 'bad names are refused' });
    const created = await app.post(`/1/classes/${cls}`, { name: 'good', score: 1 });
    assert.equal(created.status, 201, created.text);
    const refusedUpdate = await app.put(`/1/classes/${cls}/${created.body.objectId}`, { name: 'bad', score: 100 });
    assert.deepEqual(refusedUpdate.body, { code: 141, error: 'bad names are refused' });
    const all = await app.get(`/1/classes/${cls}`);
    assert.equal(all.body.results.length, 1);
    assert.equal(all.body.results[0].name, 'good');
    assert.equal(all.body.results[0].score, 2);
  });

  it('a reply that leaves a field out keeps its stored value; success: true saves unchanged', async () => {
    const cls = unique('Partial');
    await hook(cls, 'beforeSave', `/${cls}`, (call) => ({ body: { success: call.body.original ? { name: 'renamed' } : true } }));
    const created = await app.post(`/1/classes/${cls}`, { name: 'first', score: 1 });
    assert.equal(created.status, 201, created.text);
    assert.equal(((await app.get(`/1/classes/${cls}/${created.body.objectId}`)).body).score, 1);
    assert.equal((await app.put(`/1/classes/${cls}/${created.body.objectId}`, { score: 50 })).status, 200);
    const stored = (await app.get(`/1/classes/${cls}/${created.body.objectId}`)).body;
    assert.equal(stored.name, 'renamed');
    assert.equal(stored.score, 1);
  });

  it('runs in /1/batch: each command changed or refused in place', async () => {
    const cls = unique('Batched');
    await hook(cls, 'beforeSave', `/${cls}`, doubler);
    const response = await app.post('/1/batch', {
      requests: [
        { method: 'POST', path: `/1/classes/${cls}`, body: { name: 'one', score: 3 } },
        { method: 'POST', path: `/1/classes/${cls}`, body: { name: 'bad', score: 3 } },
      ],
    });
    assert.equal(response.status, 200, response.text);
    assert.ok(response.body[0].success?.objectId, JSON.stringify(response.body));
    assert.deepEqual(response.body[1], { error: { code: 141, error: 'bad names are refused' } });
    const all = await app.get(`/1/classes/${cls}`);
    assert.deepEqual(all.body.results.map((object: { name: string; score: number }) => [object.name, object.score]), [['one', 6]]);

    // With a session: the hook's user is read inside the batch's transaction.
    const user = await signUp(app);
    const transactional = await app.post(
      '/1/batch',
      {
        transaction: true,
        requests: [
          { method: 'PUT', path: `/1/classes/${cls}/${response.body[0].success.objectId}`, body: { score: 5 } },
          { method: 'POST', path: `/1/classes/${cls}`, body: { name: 'two', score: 1 } },
        ],
      },
      as(user.sessionToken),
    );
    assert.equal(transactional.status, 200, transactional.text);
    assert.equal(receiver.callsTo(`/${cls}`).at(-1)!.body.user.objectId, user.objectId);
    const after = await app.get(`/1/classes/${cls}`, { query: { order: 'name' } });
    assert.deepEqual(after.body.results.map((object: { name: string; score: number }) => [object.name, object.score]), [['one', 10], ['two', 2]]);
  });

  it('beforeDelete refuses a delete with 141; the object stays; a failed call refuses too', async () => {
    const cls = unique('Kept');
    await hook(cls, 'beforeDelete', `/${cls}`, (call) => (call.body.object.locked ? { body: { error: 'locked objects stay' } } : { body: { success: true } }));
    const locked = await app.post(`/1/classes/${cls}`, { locked: true });
    const free = await app.post(`/1/classes/${cls}`, { locked: false });
    const refused = await app.delete(`/1/classes/${cls}/${locked.body.objectId}`);
    assert.equal(refused.status, 400, refused.text);
    assert.deepEqual(refused.body, { code: 141, error: 'locked objects stay' });
    assert.equal((await app.get(`/1/classes/${cls}/${locked.body.objectId}`)).status, 200);
    assert.equal((await app.delete(`/1/classes/${cls}/${free.body.objectId}`)).status, 200);
    assert.equal((await app.get(`/1/classes/${cls}/${free.body.objectId}`)).status, 404);
    const [call] = receiver.callsTo(`/${cls}`);
    assert.equal(call!.signed, true);
    assert.equal(call!.body.triggerName, 'beforeDelete');
    assert.equal(call!.body.object.className, cls);
    assert.equal(call!.body.object.objectId, locked.body.objectId);

    const broken = unique('Broken');
    await hook(broken, 'beforeDelete', `/${broken}`, () => ({ status: 503, body: 'down' }));
    const object = await app.post(`/1/classes/${broken}`, { a: 1 });
    const failed = await app.delete(`/1/classes/${broken}/${object.body.objectId}`);
    assert.deepEqual(failed.body, { code: 141, error: `The beforeDelete hook of ${broken} failed: the hook answered HTTP 503.` });
    assert.equal((await app.get(`/1/classes/${broken}/${object.body.objectId}`)).status, 200);
  });

  it('stops calling a deleted trigger hook', async () => {
    const cls = unique('Unhooked');
    await hook(cls, 'beforeSave', `/${cls}`, doubler);
    assert.equal((await app.delete(`/1/hooks/triggers/${cls}/beforeSave`, MASTER)).status, 200);
    const created = await app.post(`/1/classes/${cls}`, { name: 'bad', score: 1 });
    assert.equal(created.status, 201, created.text);
    assert.equal((await app.get(`/1/classes/${cls}/${created.body.objectId}`)).body.score, 1);
    assert.equal(receiver.callsTo(`/${cls}`).length, 0);
  });
});
