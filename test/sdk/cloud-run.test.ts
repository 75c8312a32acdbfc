import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cloudServer } from '../helpers/cloud.ts';
import { Parse, pointSdkAt, rejectsWithCode } from '../helpers/sdk.ts';
import { unique } from '../helpers/client.ts';

/**
 * The official SDK's Parse.Cloud.run against cloud code (test/fixtures/cloud/parse-app): typed
 * parameters arrive typed in the function, typed results come back as SDK values, errors as
 * Parse.Error with their codes, and the current user's session reaches request.user.
 */

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`SDK Parse.Cloud.run [${backend}]`, () => {
    const cloud = cloudServer(backend);

    before(async () => {
      pointSdkAt(await cloud().appWithCode('parse-app'));
    });

    it('sends Date, GeoPoint and Pointer parameters and gets Date, GeoPoint and Object results', async () => {
      const who = Parse.Object.createWithoutData('p1') as Parse.Object;
      (who as unknown as { className: string }).className = 'Player';
      const result = (await Parse.Cloud.run('shift', { when: new Date('2026-05-01T10:00:00.000Z'), where: new Parse.GeoPoint(10, 20), who: who.toPointer() })) as Record<string, any>;
      assert.ok(result.later instanceof Date);
      assert.equal(result.later.toISOString(), '2026-05-02T10:00:00.000Z');
      assert.ok(result.north instanceof Parse.GeoPoint);
      assert.deepEqual([result.north.latitude, result.north.longitude], [11, 20]);
      assert.ok(result.who instanceof Parse.Object);
      assert.equal(result.who.className, 'Player');
      assert.equal(result.who.id, 'p1');
      assert.equal(result.whoClass, 'Player');
    });

    it('a Parse.Object result is an SDK object with its fields', async () => {
      const className = unique('SdkMade');
      const made = (await Parse.Cloud.run('makeThing', { className, name: 'gadget' })) as Parse.Object;
      assert.ok(made instanceof Parse.Object);
      assert.equal(made.className, className);
      assert.equal(made.get('name'), 'gadget');
      assert.ok(made.get('when') instanceof Date);
      const fetched = await new Parse.Query(className).get(made.id!);
      assert.equal(fetched.get('name'), 'gadget');
    });

    it('failures reject with Parse.Error and their codes', async () => {
      await rejectsWithCode(() => Parse.Cloud.run('notFound'), 101);
      await rejectsWithCode(() => Parse.Cloud.run('greet', {}), 142);
      const failed = await rejectsWithCode(() => Parse.Cloud.run('failsPlain'), 141);
      assert.equal(failed.message, 'plain failure');
      await rejectsWithCode(() => Parse.Cloud.run('nothingHere'), 141);
    });

    it('the current user\'s session reaches request.user', async () => {
      const user = await Parse.User.signUp(unique('sdk'), 'pw', {});
      const result = (await Parse.Cloud.run('whoami')) as Record<string, unknown>;
      assert.deepEqual(result, { id: user.id, token: user.getSessionToken() });
      await Parse.User.logOut();
      assert.equal(await Parse.Cloud.run('whoami'), null);
    });

    it('a save shows what beforeSave changed without a fetch: set, unset and, on an update, fields from the original', async () => {
      const review = new Parse.Object('Review');
      await review.save({ stars: 3, comment: 'a very long comment', scratch: 1 });
      assert.equal(review.get('comment'), 'a very ...');
      assert.equal(review.get('checked'), true);
      assert.equal(review.has('scratch'), false);
      await review.save({ stars: 5 });
      assert.equal(review.get('previousStars'), 3);
      const fetched = await new Parse.Query('Review').get(review.id!);
      assert.deepEqual([fetched.get('comment'), fetched.get('checked'), fetched.has('scratch'), fetched.get('previousStars')], ['a very ...', true, false, 3]);
    });
  });
}
