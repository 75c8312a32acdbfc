import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import { cloudServer } from '../helpers/cloud.ts';
import { as, assertError, signUp } from '../helpers/users.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';

/**
 * Cloud code save and delete triggers (docs/cloud-code.md) on every entry of the write pipeline:
 * REST create and update, batch, sign-up (/1/users and the SDK's /1/classes/_User), and cloud
 * code's own writes. The triggers are those of test/fixtures/cloud/parse-app/main.js, Parse Server cloud code as it would be written there.
 */

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`cloud triggers [${backend}]`, () => {
    const cloud = cloudServer(backend);
    let app: AppClient;

    before(async () => {
      app = await cloud().appWithCode('parse-app');
    });

    const reviewLogOf = async (reviewId: string) => (await app.get('/1/classes/ReviewLog', { query: { where: { review: reviewId }, order: 'createdAt' } })).body.results;

    it('beforeSave changes a REST create; the after trigger sees the context the before trigger set', async () => {
      const created = await app.post('/1/classes/Review', { stars: 3, comment: 'a very long comment', scratch: 1 });
      assert.equal(created.status, 201, created.text);
      // The answer carries what the trigger changed, as Parse Server's does.
      assert.deepEqual(Object.keys(created.body).sort(), ['checked', 'comment', 'createdAt', 'objectId', 'scratch']);
      assert.deepEqual([created.body.comment, created.body.checked, created.body.scratch], ['a very ...', true, { __op: 'Delete' }]);
      const stored = await app.get(`/1/classes/Review/${created.body.objectId}`);
      assert.equal(stored.body.comment, 'a very ...');
      assert.equal(stored.body.checked, true);
      assert.equal('scratch' in stored.body, false);
      assert.equal('previousStars' in stored.body, false);
      const log = await reviewLogOf(created.body.objectId);
      assert.deepEqual(log.map((entry: any) => ({ context: entry.context, stars: entry.stars })), [{ context: 'create', stars: 3 }]);
    });

    it('beforeSave sees the original on an update, and may refuse it (141, nothing written)', async () => {
      const { objectId } = (await app.post('/1/classes/Review', { stars: 3 })).body;
      const updated = await app.put(`/1/classes/Review/${objectId}`, { stars: 5 });
      assert.equal(updated.status, 200, updated.text);
      let stored = await app.get(`/1/classes/Review/${objectId}`);
      assert.equal(stored.body.stars, 5);
      assert.equal(stored.body.previousStars, 3);
      assert.deepEqual((await reviewLogOf(objectId)).map((entry: any) => entry.context), ['create', 'update']);

      const refused = await app.put(`/1/classes/Review/${objectId}`, { stars: 0 });
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body, { code: 141, error: 'you cannot give less than one star' });
      stored = await app.get(`/1/classes/Review/${objectId}`);
      assert.equal(stored.body.stars, 5);
    });

    it('a refused create writes nothing', async () => {
      const marker = unique('m');
      const refused = await app.post('/1/classes/Review', { stars: 0, marker });
      assert.deepEqual(refused.body, { code: 141, error: 'you cannot give less than one star' });
      const found = await app.get('/1/classes/Review', { query: { where: { marker } } });
      assert.deepEqual(found.body.results, []);
    });

    it('a thrown Parse.Error keeps its code; a failed validator answers 142', async () => {
      assert.deepEqual((await app.post('/1/classes/Guarded', { a: 1 })).body, { code: 105, error: 'guarded by cloud code' });
      const titled = await app.post('/1/classes/Titled', { body: 'no title' });
      assert.deepEqual(titled.body, { code: 142, error: 'Validation failed. Please specify data for title.' });
      assert.equal((await app.post('/1/classes/Titled', { title: 'present' })).status, 201);
    });

    it('batch: each create runs beforeSave; a refusal fails only its own command', async () => {
      const marker = unique('b');
      const response = await app.post('/1/batch', {
        requests: [
          { method: 'POST', path: '/1/classes/Review', body: { stars: 2, marker, comment: 'another long one' } },
          { method: 'POST', path: '/1/classes/Review', body: { stars: 0, marker } },
        ],
      });
      assert.equal(response.status, 200, response.text);
      assert.ok(response.body[0].success?.objectId, response.text);
      assert.deepEqual(response.body[1], { error: { code: 141, error: 'you cannot give less than one star' } });
      const found = (await app.get('/1/classes/Review', { query: { where: { marker } } })).body.results;
      assert.equal(found.length, 1);
      assert.equal(found[0].comment, 'another...');
      assert.equal(found[0].checked, true);
    });

    it('sign-up runs the _User beforeSave (Parse.User given as a class): it may refuse or add fields', async () => {
      const refused = await app.post('/1/users', { username: unique('banned'), password: 'pw' });
      assert.deepEqual(refused.body, { code: 141, error: 'this username is not allowed' });
      for (const path of ['/1/users', '/1/classes/_User']) {
        const created = await app.post(path, { username: unique('fine'), password: 'pw' });
        assert.equal(created.status, 201, `${path}: ${created.text}`);
        const stored = await app.get(`/1/users/${created.body.objectId}`, { key: 'master' });
        assert.equal(stored.body.signupSource, 'cloud', path);
        // An update of the user is not a sign-up: the trigger leaves the field alone.
        const updated = await app.put(`/1/users/${created.body.objectId}`, { signupSource: 'changed' }, as(created.body.sessionToken));
        assert.equal(updated.status, 200, updated.text);
        assert.equal((await app.get(`/1/users/${created.body.objectId}`, { key: 'master' })).body.signupSource, 'changed');
      }
    });

    it('cloud code\'s own writes run the triggers too', async () => {
      const made = await app.post('/1/functions/makeThing', { className: 'Review', name: 'from cloud code' });
      assert.equal(made.status, 200, made.text);
      const stored = await app.get(`/1/classes/Review/${made.body.result.objectId}`);
      assert.equal(stored.body.checked, true);
      assert.deepEqual((await reviewLogOf(made.body.result.objectId)).map((entry: any) => entry.context), ['create']);
    });

    it('an afterSave error is logged, never answered', async () => {
      const created = await app.post('/1/classes/Noisy', { a: 1 });
      assert.equal(created.status, 201, created.text);
      assert.equal((await app.get(`/1/classes/Noisy/${created.body.objectId}`)).status, 200);
      const log = await app.get('/1/scriptlog', { key: 'master', query: { level: 'error', size: 100 } });
      assert.ok(log.body.some((line: any) => line.message === 'Failed running afterSave trigger of Noisy: an afterSave that fails'), log.text);
    });

    it('beforeDelete and afterDelete run on a delete, sharing the context', async () => {
      const { objectId } = (await app.post('/1/classes/Review', { stars: 4 })).body;
      assert.equal((await app.delete(`/1/classes/Review/${objectId}`)).status, 200);
      assert.equal((await app.get(`/1/classes/Review/${objectId}`)).status, 404);
      assert.deepEqual((await reviewLogOf(objectId)).map((entry: any) => entry.context), ['create', 'delete of 4 stars']);
    });

    it('another app\'s writes of a class of the same name run no trigger', async () => {
      const other = await newApp(cloud().target);
      const created = await other.post('/1/classes/Review', { stars: 0, scratch: 1 });
      assert.equal(created.status, 201, created.text);
      const stored = await other.get(`/1/classes/Review/${created.body.objectId}`);
      assert.deepEqual({ stars: stored.body.stars, scratch: stored.body.scratch, checked: stored.body.checked }, { stars: 0, scratch: 1, checked: undefined });
    });

    it('beforeDelete may refuse a delete', async () => {
      const { objectId } = (await app.post('/1/classes/Keeper', { a: 1 })).body;
      const refused = await app.delete(`/1/classes/Keeper/${objectId}`);
      assertError(refused, 400, 141);
      assert.equal(refused.body.error, 'kept by cloud code');
      assert.equal((await app.get(`/1/classes/Keeper/${objectId}`)).status, 200);
    });

    it('a trigger hook of the same class and name runs in place of the code\'s trigger, until it is deleted', async () => {
      const receiver = await WebhookReceiver.start(app.app.webhookKey);
      try {
        const url = receiver.on('/guarded', () => ({ body: { success: { hooked: true } } }));
        const created = await app.post('/1/hooks/triggers', { className: 'Guarded', triggerName: 'beforeSave', url }, { key: 'master' });
        assert.equal(created.status, 201, created.text);
        const saved = await app.post('/1/classes/Guarded', { a: 1 });
        assert.equal(saved.status, 201, saved.text);
        assert.equal((await app.get(`/1/classes/Guarded/${saved.body.objectId}`)).body.hooked, true);
        assert.equal(receiver.callsTo('/guarded').length, 1);
        const deleted = await app.delete('/1/hooks/triggers/Guarded/beforeSave', { key: 'master' });
        assert.equal(deleted.status, 200, deleted.text);
        assert.deepEqual((await app.post('/1/classes/Guarded', { a: 2 })).body, { code: 105, error: 'guarded by cloud code' });
      } finally {
        await receiver.close();
      }
    });

    it('a trigger\'s request carries the caller\'s user with its session token, the address and the headers', async () => {
      const user = await signUp(app);
      const saved = await app.post('/1/classes/Traced', { n: 1 }, { headers: { 'X-Svc-Session-Token': user.sessionToken, 'X-Test-Agent': 'probe/1' } });
      assert.equal(saved.status, 201, saved.text);
      const stored = (await app.get(`/1/classes/Traced/${saved.body.objectId}`, { key: 'master' })).body;
      assert.deepEqual([stored.userToken, stored.ip, stored.agent], [user.sessionToken, '127.0.0.1', 'probe/1']);
      const anonymous = await app.post('/1/classes/Traced', { n: 2 });
      const plain = (await app.get(`/1/classes/Traced/${anonymous.body.objectId}`, { key: 'master' })).body;
      assert.deepEqual([plain.userToken, plain.agent], [null, null]);
    });
  });
}
