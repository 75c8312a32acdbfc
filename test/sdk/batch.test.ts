import { it } from 'node:test';
import assert from 'node:assert/strict';
import { unique } from '../helpers/client.ts';
import { Parse, eachBackendWithSdk, rejectsWithCode, sdkError, sdkRequests } from '../helpers/sdk.ts';

/**
 * Parse.Object.saveAll, destroyAll and fetchAll: the SDK sends them through /1/batch, in chunks of
 * 20 commands (its REQUEST_BATCH_SIZE) unless told otherwise, without `transaction` by default.
 */

const MASTER = { key: 'master' } as const;
type Obj = Parse.Object<Record<string, any>>;

eachBackendWithSdk('SDK saveAll and destroyAll', (suite) => {
  const objects = (className: string, n: number, fields: (i: number) => Record<string, unknown> = (i) => ({ i })) =>
    Array.from({ length: n }, (_, i) => new Parse.Object<Record<string, any>>(className, fields(i)));

  async function storedValues(className: string, key = 'i'): Promise<unknown[]> {
    const response = await suite.app.get(`/1/classes/${className}`, { ...MASTER, query: { limit: 1000, order: key } });
    assert.equal(response.status, 200, response.text);
    return response.body.results.map((row: Record<string, unknown>) => row[key]);
  }

  const batches = () => sdkRequests.filter((request) => request.path === 'batch');

  it('saveAll creates every object in one batch without `transaction`, and gives each its id', async () => {
    const className = unique('Many');
    const list = objects(className, 5);
    sdkRequests.length = 0;
    const saved = await Parse.Object.saveAll(list);
    assert.equal(saved, list);
    assert.equal(batches().length, 1);
    const body = batches()[0]!.data;
    assert.deepEqual(Object.keys(body), ['requests']);
    assert.deepEqual(body.requests[0], { method: 'POST', path: `/1/classes/${className}`, body: { i: 0 } });
    for (const object of list) {
      assert.ok(object.id);
      assert.ok(object.createdAt instanceof Date);
    }
    assert.equal(new Set(list.map((o) => o.id)).size, 5);
    assert.deepEqual(await storedValues(className), [0, 1, 2, 3, 4]);
  });

  it('saveAll of 55 objects goes in chunks of 20; batchSize changes the chunks', async () => {
    const className = unique('Chunked');
    sdkRequests.length = 0;
    await Parse.Object.saveAll(objects(className, 55));
    assert.deepEqual(batches().map((batch) => batch.data.requests.length), [20, 20, 15]);
    assert.deepEqual(await storedValues(className), Array.from({ length: 55 }, (_, i) => i));

    const other = unique('Chunked');
    sdkRequests.length = 0;
    await Parse.Object.saveAll(objects(other, 55), { batchSize: 50 });
    assert.deepEqual(batches().map((batch) => batch.data.requests.length), [50, 5]);
    assert.equal((await storedValues(other)).length, 55);
  });

  it('a batch above Basalt’s 50 commands is refused whole: nothing is stored', async () => {
    const className = unique('TooMany');
    // The SDK rejects with one error per object of the chunk, each a 111 with the server's message.
    const rejection = await Parse.Object.saveAll(objects(className, 51), { batchSize: 51 }).then(
      () => assert.fail('saveAll should fail'),
      (error: unknown) => error,
    );
    assert.ok(Array.isArray(rejection));
    assert.equal(rejection.length, 51);
    for (const error of rejection) {
      assert.ok(error instanceof Parse.Error);
      assert.equal(error.code, Parse.Error.INCORRECT_TYPE);
      assert.equal(error.message, 'A batch may hold at most 50 requests; this one has 51.');
    }
    assert.deepEqual(await storedValues(className), []);
  });

  it('saveAll mixes creates and updates, and saves unsaved children first', async () => {
    const className = unique('Mixed');
    const [a, b] = await Parse.Object.saveAll(objects(className, 2));
    a!.set('i', 10);
    const child = new Parse.Object<Record<string, any>>(className, { i: 30 });
    const fresh = new Parse.Object<Record<string, any>>(className, { i: 20, child });
    sdkRequests.length = 0;
    await Parse.Object.saveAll([a!, fresh]);
    assert.ok(child.id);
    assert.deepEqual(await storedValues(className), [1, 10, 20, 30]);
    const methods = batches().flatMap((batch) => batch.data.requests.map((request: { method: string }) => request.method));
    assert.deepEqual(methods.sort(), ['POST', 'POST', 'PUT']);
    const stored = await suite.app.get(`/1/classes/${className}/${fresh.id}`, MASTER);
    assert.deepEqual(stored.body.child, { __type: 'Pointer', className, objectId: child.id });
    assert.equal(b!.dirty(), false);
  });

  it('without a transaction, a failing command fails saveAll with its code and the others stay saved', async () => {
    const className = unique('Partial');
    await new Parse.Object<Record<string, any>>(className, { i: 0, n: 1 }).save();
    const list = [
      new Parse.Object<Record<string, any>>(className, { i: 1, n: 2 }),
      new Parse.Object<Record<string, any>>(className, { i: 2, n: 'not a number' }),
      new Parse.Object<Record<string, any>>(className, { i: 3, n: 4 }),
    ];
    await rejectsWithCode(() => Parse.Object.saveAll(list), Parse.Error.INCORRECT_TYPE);
    assert.ok(list[0]!.id);
    assert.equal(list[1]!.id, undefined);
    assert.ok(list[2]!.id);
    assert.deepEqual(await storedValues(className), [0, 1, 3]);
  });

  it('with transaction: true, a failing command fails saveAll and nothing of the batch is stored', async () => {
    const className = unique('AllOrNothing');
    await new Parse.Object<Record<string, any>>(className, { i: 0, n: 1 }).save();
    const list = [
      new Parse.Object<Record<string, any>>(className, { i: 1, n: 2 }),
      new Parse.Object<Record<string, any>>(className, { i: 2, n: 'not a number' }),
      new Parse.Object<Record<string, any>>(className, { i: 3, n: 4 }),
    ];
    sdkRequests.length = 0;
    // A refused batch rejects every object's save: the SDK gives one ParseError per object, each
    // with code 111 whatever the server's code (its batch error path), in an array.
    const errors = await Parse.Object.saveAll(list, { transaction: true }).then(
      () => assert.fail('saveAll resolved'),
      (error: unknown) => error,
    );
    assert.ok(Array.isArray(errors), String(errors));
    assert.deepEqual((errors as Parse.Error[]).map((error) => error.code), [111, 111, 111]);
    assert.match((errors as Parse.Error[])[0]!.message, /Field n is Number/);
    assert.equal(batches().length, 1);
    assert.equal(batches()[0]!.data.transaction, true);
    assert.deepEqual(await storedValues(className), [0]);
  });

  it('over 100 objects: find answers the default 100, findAll, each and count see all of them', async () => {
    const className = unique('Large');
    await Parse.Object.saveAll(objects(className, 120), { batchSize: 50 });
    assert.equal((await new Parse.Query(className).find()).length, 100);
    assert.equal(await new Parse.Query(className).count(), 120);
    const all = await new Parse.Query<Obj>(className).findAll();
    assert.deepEqual(all.map((o) => o.get('i')).sort((a, b) => a - b), Array.from({ length: 120 }, (_, i) => i));
    let seen = 0;
    await new Parse.Query(className).each(() => void (seen += 1));
    assert.equal(seen, 120);
    assert.equal((await new Parse.Query(className).limit(1000).find()).length, 120);
  });

  it('fetchAll reads every object in one query', async () => {
    const className = unique('Fetched');
    const list = await Parse.Object.saveAll(objects(className, 3));
    for (const object of list) await suite.app.put(`/1/classes/${className}/${object.id}`, { i: (object.get('i') as number) + 100 }, MASTER);
    const copies = list.map((object) => Parse.Object.fromJSON({ className, objectId: object.id }) as Obj);
    sdkRequests.length = 0;
    await Parse.Object.fetchAll(copies);
    assert.deepEqual(copies.map((o) => o.get('i')), [100, 101, 102]);
    assert.equal(sdkRequests.length, 1);
    assert.equal(sdkRequests[0]!.path, `classes/${className}`);
  });

  it('destroyAll deletes every object, in chunks of 20', async () => {
    const className = unique('Doomed');
    const list = await Parse.Object.saveAll(objects(className, 25));
    sdkRequests.length = 0;
    await Parse.Object.destroyAll(list);
    assert.deepEqual(batches().map((batch) => batch.data.requests.length), [20, 5]);
    assert.deepEqual(batches()[0]!.data.requests[0], { method: 'DELETE', path: `/1/classes/${className}/${list[0]!.id}`, body: {} });
    assert.deepEqual(await storedValues(className), []);
  });

  it('destroyAll with a missing object rejects with an AggregateError naming it; the others are deleted', async () => {
    const className = unique('Doomed');
    const list = await Parse.Object.saveAll(objects(className, 3));
    await suite.app.delete(`/1/classes/${className}/${list[1]!.id}`, MASTER);
    const error = await sdkError(() => Parse.Object.destroyAll(list));
    assert.equal(error.code, Parse.Error.AGGREGATE_ERROR);
    const errors = (error as unknown as { errors: (Parse.Error & { object: Obj })[] }).errors;
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.code, Parse.Error.OBJECT_NOT_FOUND);
    assert.equal(errors[0]!.object.id, list[1]!.id);
    assert.deepEqual(await storedValues(className), []);
  });
});
