import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AppClient } from '../helpers/client.ts';
import { assertError } from '../helpers/users.ts';
import { finished, install, push, pushAndWait, pushServer, pushStatus } from '../helpers/push.ts';

/**
 * POST /1/push and DELETE /1/push/<id> (spec 2.12, 4.8; decisions.md "Push"): what is refused and
 * with which code, the answer, who may push, and a `_PushStatus` from start to end. Delivery is
 * to the recording networks of test/helpers/push-networks.ts (docs/push.md).
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`push endpoint [${backend}]`, () => {
    const { server } = pushServer(backend);
    let app: AppClient;

    before(async () => {
      app = await server().app();
    });

    const iso = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();
    const data = { alert: 'hi' };
    const refusals: [string, Record<string, unknown>, number][] = [
      ['no data', { channels: ['News'] }, 115],
      ['data that is not an object', { channels: ['News'], data: 'hi' }, 115],
      ['neither channels nor where', { data }, 115],
      ['a channel starting with a digit', { channels: ['1News'], data }, 112],
      ['a channel with a space', { channels: ['Big News'], data }, 112],
      ['a channel that is not a string', { channels: [7], data }, 112],
      ['channels that are not an array', { channels: 'News', data }, 112],
      ['an empty channel list', { channels: [], data }, 112],
      ['a where that is not an object', { where: ['deviceType'], data }, 102],
      ['a where with an unknown operator', { where: { deviceType: { $almost: 'ios' } }, data }, 102],
      ['a where with an inner query without a class', { where: { user: { $inQuery: { where: {} } } }, data }, 102],
      ['a push_time in the past', { channels: ['News'], data, push_time: iso(-60_000) }, 152],
      ['a push_time in epoch seconds in the past', { channels: ['News'], data, push_time: Math.floor((Date.now() - 60_000) / 1000) }, 152],
      ['a push_time more than two weeks ahead', { channels: ['News'], data, push_time: iso(15 * DAY) }, 152],
      ['a local push_time past in every zone', { channels: ['News'], data, push_time: iso(-13 * HOUR).slice(0, -1) }, 152],
      ['a push_time that is no date', { channels: ['News'], data, push_time: 'tomorrow' }, 152],
      ['expiration_time and expiration_interval together', { channels: ['News'], data, expiration_time: iso(HOUR), expiration_interval: 60 }, 115],
      ['an expiration_interval of 0', { channels: ['News'], data, expiration_interval: 0 }, 115],
      ['an expiration_interval that is text', { channels: ['News'], data, expiration_interval: '60' }, 115],
      ['an expiration_time that is no date', { channels: ['News'], data, expiration_time: 'soon' }, 115],
    ];
    for (const [what, body, code] of refusals) {
      it(`refuses ${what} with ${code}, and records nothing`, async () => {
        const { response } = await push(app, body);
        assertError(response, 400, code, what);
        assert.equal(response.headers.get('x-svc-push-status-id'), null);
      });
    }

    it('refuses a body that is not an object with 107, and takes where as JSON text', async () => {
      assertError(await app.post('/1/push', [data], { key: 'master' }), 400, 107);
      const { id } = await pushAndWait(app, { where: JSON.stringify({ deviceType: 'ios' }), data });
      assert.deepEqual(JSON.parse((await pushStatus(app, id)).query), { deviceType: 'ios' });
    });

    it('answers 200 {result: true} with the status id in X-Svc- and X-Parse-Push-Status-Id; the status is master-key only', async () => {
      const { response, id } = await push(app, { channels: ['Nobody'], data });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body, { result: true });
      assert.match(id, /^[A-Za-z0-9]{10,}$/);
      assert.equal(response.headers.get('x-parse-push-status-id'), id);
      const status = await finished(app, id);
      assert.equal(status.objectId, id);
      const listed = await app.get('/1/classes/_PushStatus', { key: 'master', query: { where: { objectId: id } } });
      assert.equal(listed.status, 200, listed.text);
      assert.equal(listed.body.results.length, 1);
      assertError(await app.get(`/1/classes/_PushStatus/${id}`), 403, 119);
      assertError(await app.get('/1/classes/_PushStatus', { key: 'client' }), 403, 119);
      assertError(await app.put(`/1/classes/_PushStatus/${id}`, { status: 'failed' }, { key: 'master' }), 403, 119);
    });

    it('a status is removed 30 days after it was created, by a job queued with it', async () => {
      const own = await server().app();
      const { id } = await pushAndWait(own, { channels: ['Nobody'], data });
      const status = await pushStatus(own, id);
      const jobs = (await own.get('/1/queue/jobs', { key: 'master' })).body.results as { objectId: string; type: string; payload: unknown; runAt: string }[];
      const removal = jobs.filter((job) => job.type === 'push-remove');
      assert.deepEqual(removal.map((job) => job.payload), [{ pushStatusId: id }]);
      assert.equal(Date.parse(removal[0]!.runAt), Date.parse(status.createdAt) + 30 * DAY);
      // Made due now (the queue's retry), it removes the status.
      assert.equal((await own.post(`/1/queue/jobs/${removal[0]!.objectId}/retry`, {}, { key: 'master' })).status, 200);
      for (const deadline = Date.now() + 60_000; ; ) {
        const read = await own.get(`/1/classes/_PushStatus/${id}`, { key: 'master' });
        if (read.status === 404) break;
        if (Date.now() > deadline) assert.fail('the status was not removed');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });

    it('the REST key pushes; a client key only in an app with clientPushEnabled (119 otherwise)', async () => {
      const { response: rest } = await push(app, { channels: ['Nobody'], data }, 'rest');
      assert.equal(rest.status, 200, rest.text);
      assertError((await push(app, { channels: ['Nobody'], data }, 'client')).response, 403, 119);
      assertError(await app.post('/1/push', { channels: ['Nobody'], data }, { key: 'javascript' }), 403, 119);
      const open = await server().app({ clientPushEnabled: true });
      const { response: client } = await push(open, { channels: ['Nobody'], data }, 'client');
      assert.equal(client.status, 200, client.text);
      assert.deepEqual(client.body, { result: true });
    });

    it('a push runs pending → succeeded with exact counts per device type and Parse\'s status fields', async () => {
      const own = await server().app();
      const types = ['ios', 'ios', 'android', 'android', 'android', 'web', 'winrt'];
      for (const deviceType of types) await install(own, { deviceType, channels: ['Scores'] });
      await install(own, { deviceType: 'ios', channels: ['Other'] });
      const body = { channels: ['Scores'], data: { alert: 'Goal!', title: 'Match', sound: 'bell' } };
      const { response, id } = await push(own, body);
      assert.equal(response.status, 200, response.text);
      const status = await finished(own, id);
      assert.equal(status.status, 'succeeded');
      assert.equal(status.numSent, 7);
      assert.equal(status.numFailed, 0);
      assert.deepEqual(status.sentPerType, { ios: 2, android: 3, web: 1, winrt: 1 });
      assert.deepEqual(status.failedPerType, {});
      assert.equal(status.source, 'rest');
      assert.equal(status.title, 'Match');
      assert.deepEqual(JSON.parse(status.payload), body.data);
      assert.deepEqual(JSON.parse(status.query), { channels: { $in: ['Scores'] } });
      assert.match(status.pushTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(status.errorMessage, undefined);
      assert.deepEqual(server().deliveries(id).map((delivery) => delivery.network).sort(), ['apns', 'fcm', 'webpush', 'wns']);
    });

    it('a push_time ahead is scheduled; DELETE /1/push/<id> (master key) cancels it and nothing is sent', async () => {
      const own = await server().app();
      await install(own, { deviceType: 'android', channels: ['Later'] });
      const { response, id } = await push(own, { channels: ['Later'], data, push_time: iso(2000) });
      assert.equal(response.status, 200, response.text);
      assertError(await own.delete(`/1/push/${id}`), 403, 119);
      const canceled = await own.delete(`/1/push/${id}`, { key: 'master' });
      assert.equal(canceled.status, 200, canceled.text);
      assert.deepEqual(canceled.body, {});
      assertError(await own.delete(`/1/push/${id}`, { key: 'master' }), 400, 142);
      assertError(await own.delete('/1/push/NoSuchPush', { key: 'master' }), 404, 101);
      // The page job still runs at push_time: it finds the push canceled and sends nothing.
      for (const deadline = Date.now() + 60_000; ; ) {
        const jobs = await own.get('/1/queue/jobs', { key: 'master' });
        const pending = (jobs.body.results as { type: string }[]).filter((job) => job.type === 'push-page');
        if (pending.length === 0) break;
        if (Date.now() > deadline) assert.fail('the page job never ran');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal((await pushStatus(own, id)).status, 'canceled');
      assert.deepEqual(server().deliveries(id), []);
    });

    it('a push whose page keeps failing ends failed with the reason once its job\'s attempts are used up', async () => {
      const broken = await server().app({}, 'push-broken');
      await install(broken, { deviceType: 'android', channels: ['Down'] });
      const { status } = await pushAndWait(broken, { channels: ['Down'], data });
      assert.equal(status.status, 'failed');
      assert.equal(status.numSent, 0);
      assert.match(status.errorMessage, /^Delivery stopped after its last attempt: the networks are down$/);
      // The status is written before the queue buries the job: wait for the burial.
      let dead: { type: string; attempts: number }[] = [];
      for (const deadline = Date.now() + 60_000; dead.length === 0 && Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
        dead = (await broken.get('/1/queue/jobs', { key: 'master', query: { status: 'dead' } })).body.results;
      }
      assert.deepEqual(dead.map((job) => [job.type, job.attempts]), [['push-page', 2]]);
    });

    it('a push that finished cannot be canceled', async () => {
      const { id } = await pushAndWait(app, { channels: ['Nobody'], data });
      assertError(await app.delete(`/1/push/${id}`, { key: 'master' }), 400, 142);
    });
  });
}
