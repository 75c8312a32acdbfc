import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient, type Response } from '../helpers/client.ts';
import { assertError, signUp } from '../helpers/users.ts';

/**
 * GET /1/aggregate/<className>: Parse's `query.distinct(key)` and `query.aggregate(pipeline)`,
 * master key only. The subset of MongoDB's pipeline compiled to SQL ($match, $group with $sum,
 * $avg, $min, $max and $count, $sort, $skip, $limit, $project, $count), every answer exact, and
 * every refusal.
 */

const MASTER = { key: 'master' } as const;
const date = (iso: string) => ({ __type: 'Date', iso });

eachBackend('aggregate', (target) => {
  let app: AppClient;
  let cls: string;
  let person: string;
  let p1: string;
  let p2: string;
  /** objectId and createdAt of each object, by name. */
  const made: Record<string, { objectId: string; createdAt: string }> = {};
  const pointer = (objectId: string) => ({ __type: 'Pointer', className: person, objectId });

  before(async () => {
    app = await newApp(target);
    cls = unique('Score');
    person = unique('Person');
    p1 = (await app.post(`/1/classes/${person}`, { name: 'p1' })).body.objectId;
    p2 = (await app.post(`/1/classes/${person}`, { name: 'p2' })).body.objectId;
    const objects: Record<string, unknown>[] = [
      { name: 'a', team: 'red', score: 10, active: true, when: date('2024-01-01T00:00:00.000Z'), tags: ['x', 'y'], owner: pointer(p1) },
      { name: 'b', team: 'red', score: 20, active: false, when: date('2024-02-01T00:00:00.000Z'), tags: ['y'], owner: pointer(p2) },
      { name: 'c', team: 'blue', score: 5, active: true, when: date('2024-03-01T00:00:00.000Z'), tags: [], owner: pointer(p1) },
      { name: 'd', team: 'blue', score: 7.5, when: date('2024-01-15T00:00:00.000Z'), tags: ['z', 1] },
      { name: 'e', team: 'green', score: 100, active: true, owner: pointer(p2) },
      { name: 'f', score: 1 },
    ];
    // One after another: createdAt follows the names.
    for (const object of objects) {
      const response = await app.post(`/1/classes/${cls}`, object);
      assert.equal(response.status, 201, response.text);
      made[object.name as string] = response.body;
    }
  });

  const run = (pipeline: unknown, extra: Record<string, unknown> = {}) => app.get(`/1/aggregate/${cls}`, { ...MASTER, query: { pipeline: pipeline as object, ...extra } });
  async function results(pipeline: unknown, extra?: Record<string, unknown>): Promise<unknown[]> {
    const response = await run(pipeline, extra);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(Object.keys(response.body), ['results']);
    return response.body.results;
  }
  const distinct = async (key: string, where?: unknown) => {
    const response = await app.get(`/1/aggregate/${cls}`, { ...MASTER, query: where ? { distinct: key, where: where as object } : { distinct: key } });
    assert.equal(response.status, 200, response.text);
    return response.body.results as unknown[];
  };

  describe('$group', () => {
    it('counts per value of a field, the key answered as objectId, in key order (missing first)', async () => {
      assert.deepEqual(await results([{ $group: { _id: '$team', count: { $sum: 1 } } }]), [
        { objectId: null, count: 1 },
        { objectId: 'blue', count: 2 },
        { objectId: 'green', count: 1 },
        { objectId: 'red', count: 2 },
      ]);
    });

    it('sums, averages, minimums and maximums of a Number field', async () => {
      assert.deepEqual(await results([{ $group: { _id: '$team', total: { $sum: '$score' }, mean: { $avg: '$score' }, low: { $min: '$score' }, high: { $max: '$score' } } }]), [
        { objectId: null, total: 1, mean: 1, low: 1, high: 1 },
        { objectId: 'blue', total: 12.5, mean: 6.25, low: 5, high: 7.5 },
        { objectId: 'green', total: 100, mean: 100, low: 100, high: 100 },
        { objectId: 'red', total: 30, mean: 15, low: 10, high: 20 },
      ]);
    });

    it('_id null: one group of every object; $count, $sum of a constant, and the old objectId key', async () => {
      assert.deepEqual(await results([{ $group: { _id: null, n: { $count: {} }, twice: { $sum: 2 }, total: { $sum: '$score' } } }]), [{ objectId: null, n: 6, twice: 12, total: 143.5 }]);
      assert.deepEqual(await results([{ group: { objectId: null, n: { $sum: 1 } } }]), [{ objectId: null, n: 6 }]);
    });

    it('minimum and maximum of a Date field and of createdAt answer Dates', async () => {
      const created = Object.values(made).map((object) => object.createdAt).sort();
      assert.deepEqual(await results([{ $group: { _id: null, first: { $min: '$when' }, last: { $max: '$when' }, made: { $min: '$createdAt' }, changed: { $max: '$updatedAt' } } }]), [
        { objectId: null, first: date('2024-01-01T00:00:00.000Z'), last: date('2024-03-01T00:00:00.000Z'), made: date(created[0]!), changed: date(created.at(-1)!) },
      ]);
    });

    it('groups by a Date, a Boolean, a Pointer (its objectId) and objectId', async () => {
      assert.deepEqual(await results([{ $match: { team: 'red' } }, { $group: { _id: '$when', n: { $sum: 1 } } }]), [
        { objectId: date('2024-01-01T00:00:00.000Z'), n: 1 },
        { objectId: date('2024-02-01T00:00:00.000Z'), n: 1 },
      ]);
      assert.deepEqual(await results([{ $group: { _id: '$active', n: { $sum: 1 } } }]), [
        { objectId: null, n: 2 },
        { objectId: false, n: 1 },
        { objectId: true, n: 3 },
      ]);
      const owners = await results([{ $group: { _id: '$owner', n: { $sum: 1 } } }]);
      assert.deepEqual(owners, [{ objectId: null, n: 2 }, ...[{ objectId: p1, n: 2 }, { objectId: p2, n: 2 }].sort((x, y) => (x.objectId < y.objectId ? -1 : 1))]);
      assert.deepEqual(await results([{ $match: { name: 'a' } }, { $group: { _id: '$_id', n: { $sum: 1 } } }]), [{ objectId: made.a!.objectId, n: 1 }]);
    });

    it('a field the class does not have: one group, key null; its sum 0 and its average null', async () => {
      assert.deepEqual(await results([{ $group: { _id: '$nothing', total: { $sum: '$nothing' }, mean: { $avg: '$nothing' }, n: { $sum: 1 } } }]), [{ objectId: null, total: 0, mean: null, n: 6 }]);
    });

    it('no objects: no group at all, also for _id null', async () => {
      assert.deepEqual(await results([{ $match: { score: { $gt: 1000 } } }, { $group: { _id: null, n: { $sum: 1 } } }]), []);
      assert.deepEqual(await results([{ $match: { score: { $gt: 1000 } } }, { $group: { _id: '$team', n: { $sum: 1 } } }]), []);
    });
  });

  describe('stages around $group', () => {
    it('$match before $group filters the objects', async () => {
      assert.deepEqual(await results([{ $match: { score: { $gt: 5 } } }, { $group: { _id: '$team', n: { $sum: 1 } } }]), [
        { objectId: 'blue', n: 1 },
        { objectId: 'green', n: 1 },
        { objectId: 'red', n: 2 },
      ]);
    });

    it('$match after $group filters the groups, by their fields and by objectId or _id', async () => {
      const grouped = { $group: { _id: '$team', total: { $sum: '$score' } } };
      assert.deepEqual(await results([grouped, { $match: { total: { $gte: 20 } } }]), [
        { objectId: 'green', total: 100 },
        { objectId: 'red', total: 30 },
      ]);
      assert.deepEqual(await results([grouped, { $match: { objectId: 'red' } }]), [{ objectId: 'red', total: 30 }]);
      assert.deepEqual(await results([grouped, { $match: { $or: [{ _id: 'blue' }, { total: 100 }] } }]), [
        { objectId: 'blue', total: 12.5 },
        { objectId: 'green', total: 100 },
      ]);
    });

    it('$match after $group reads Boolean and Date keys and Date accumulators as typed values', async () => {
      assert.deepEqual(await results([{ $group: { _id: '$active', n: { $sum: 1 } } }, { $match: { objectId: true } }]), [{ objectId: true, n: 3 }]);
      const byDay = { $group: { _id: '$when', n: { $sum: 1 } } };
      assert.deepEqual(await results([byDay, { $match: { objectId: { $gte: date('2024-02-01T00:00:00.000Z') } } }]), [
        { objectId: date('2024-02-01T00:00:00.000Z'), n: 1 },
        { objectId: date('2024-03-01T00:00:00.000Z'), n: 1 },
      ]);
      const latest = { $group: { _id: '$team', last: { $max: '$when' } } };
      assert.deepEqual(await results([latest, { $match: { last: { $lt: date('2024-02-15T00:00:00.000Z') } } }, { $project: { _id: 1 } }]), [{ objectId: 'red' }]);
    });

    it('$sort, $skip and $limit on groups', async () => {
      const pipeline = [{ $group: { _id: '$team', n: { $sum: 1 } } }, { $sort: { n: -1, objectId: 1 } }];
      assert.deepEqual(await results(pipeline), [
        { objectId: 'blue', n: 2 },
        { objectId: 'red', n: 2 },
        { objectId: null, n: 1 },
        { objectId: 'green', n: 1 },
      ]);
      assert.deepEqual(await results([...pipeline, { $skip: 1 }, { $limit: 2 }]), [
        { objectId: 'red', n: 2 },
        { objectId: null, n: 1 },
      ]);
    });

    it('$project on groups: include, exclude, objectId left out', async () => {
      const group = { $group: { _id: '$team', n: { $sum: 1 }, total: { $sum: '$score' } } };
      assert.deepEqual(await results([group, { $match: { objectId: 'red' } }, { $project: { total: 1 } }]), [{ objectId: 'red', total: 30 }]);
      assert.deepEqual(await results([group, { $match: { objectId: 'red' } }, { $project: { _id: 0, n: 1 } }]), [{ n: 2 }]);
      assert.deepEqual(await results([group, { $project: { total: 0 } }, { $match: { n: 2 } }]), [
        { objectId: 'blue', n: 2 },
        { objectId: 'red', n: 2 },
      ]);
    });

    it('$count: the number of objects, or no result for none', async () => {
      assert.deepEqual(await results([{ $match: { score: { $gte: 10 } } }, { $count: 'total' }]), [{ total: 3 }]);
      assert.deepEqual(await results([{ $group: { _id: '$team' } }, { $count: 'teams' }]), [{ teams: 4 }]);
      assert.deepEqual(await results([{ $match: { score: { $gt: 1000 } } }, { $count: 'total' }]), []);
    });

    it('$limit before $group groups only the objects it keeps', async () => {
      assert.deepEqual(await results([{ $sort: { score: -1 } }, { $limit: 2 }, { $group: { _id: null, total: { $sum: '$score' } } }]), [{ objectId: null, total: 120 }]);
    });
  });

  describe('objects', () => {
    it('$match, $sort and $project answer objects as Parse renders them', async () => {
      assert.deepEqual(await results([{ $match: { team: 'red' } }, { $sort: { score: -1 } }, { $project: { score: 1 } }]), [
        { score: 20, objectId: made.b!.objectId },
        { score: 10, objectId: made.a!.objectId },
      ]);
      const [object] = (await results([{ $match: { name: 'e' } }, { $project: { tags: 0, owner: 0, _id: 0, updatedAt: 0 } }])) as Record<string, unknown>[];
      assert.deepEqual(object, { name: 'e', team: 'green', score: 100, active: true, createdAt: made.e!.createdAt });
    });

    it('$skip and $limit page through a sort', async () => {
      const names = (await results([{ $sort: { score: 1 } }, { $skip: 1 }, { $limit: 2 }, { $project: { name: 1, _id: 0 } }])) as unknown[];
      assert.deepEqual(names, [{ name: 'c' }, { name: 'd' }]);
    });

    it('an empty pipeline answers every object, in objectId order', async () => {
      const all = (await results([])) as { objectId: string; name: string }[];
      assert.deepEqual(all.map((object) => object.name), ['a', 'b', 'c', 'd', 'e', 'f']);
      assert.deepEqual(all[0], { name: 'a', team: 'red', score: 10, active: true, when: date('2024-01-01T00:00:00.000Z'), tags: ['x', 'y'], owner: pointer(p1), ...made.a, updatedAt: made.a!.createdAt });
    });
  });

  describe('distinct', () => {
    it('of a String, a Number, a Boolean and a Date field, in order', async () => {
      assert.deepEqual(await distinct('team'), ['blue', 'green', 'red']);
      assert.deepEqual(await distinct('score'), [1, 5, 7.5, 10, 20, 100]);
      assert.deepEqual(await distinct('active'), [false, true]);
      assert.deepEqual(await distinct('when'), ['2024-01-01', '2024-01-15', '2024-02-01', '2024-03-01'].map((day) => date(`${day}T00:00:00.000Z`)));
    });

    it('with a where', async () => {
      assert.deepEqual(await distinct('team', { score: { $gte: 10 } }), ['green', 'red']);
      assert.deepEqual(await distinct('team', { score: { $gt: 1000 } }), []);
    });

    it('of a Pointer field: Pointers, as Parse answers them', async () => {
      assert.deepEqual(await distinct('owner'), [p1, p2].sort().map(pointer));
    });

    it('of an Array field: its elements', async () => {
      assert.deepEqual(await distinct('tags'), ['x', 'y', 'z', 1]);
    });

    it('of a field the class does not have, and of a class that does not exist', async () => {
      assert.deepEqual(await distinct('nothing'), []);
      const response = await app.get(`/1/aggregate/${unique('None')}`, { ...MASTER, query: { distinct: 'team' } });
      assert.equal(response.status, 200);
      assert.deepEqual(response.body, { results: [] });
    });
  });

  describe('wire forms', () => {
    it('the stages as parameters of their own, in order', async () => {
      const response = await app.get(`/1/aggregate/${cls}`, { ...MASTER, query: { $match: { team: 'red' }, $group: { _id: null, n: { $sum: 1 } } } });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body, { results: [{ objectId: null, n: 2 }] });
    });

    it('the JS SDK form: a POST whose body holds _method GET, keys and the pipeline', async () => {
      const response = await app.post(`/1/aggregate/${cls}`, {
        _method: 'GET',
        _ApplicationId: app.app.applicationId,
        _MasterKey: app.app.masterKey,
        pipeline: [{ $group: { _id: null, n: { $sum: 1 } } }],
      }, { key: 'none' });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body, { results: [{ objectId: null, n: 6 }] });
      const distinctResponse = await app.post(`/1/aggregate/${cls}`, { _method: 'GET', distinct: 'team', where: { team: 'red' } }, MASTER);
      assert.deepEqual(distinctResponse.body, { results: ['red'] });
    });

    it('a where beside a pipeline filters first', async () => {
      assert.deepEqual(await results([{ $count: 'n' }], { where: { team: 'blue' } }), [{ n: 2 }]);
    });
  });

  describe('built-in classes', () => {
    it('_User with the master key: groups, and objects without server-only fields', async () => {
      const user = await signUp(app, { team: 'ops' });
      const response = await app.get('/1/aggregate/_User', { ...MASTER, query: { pipeline: [{ $group: { _id: '$team', n: { $sum: 1 } } }] } });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body, { results: [{ objectId: 'ops', n: 1 }] });
      const objects = await app.get('/1/aggregate/_User', { ...MASTER, query: { pipeline: [] } });
      assert.equal(objects.body.results.length, 1);
      assert.equal(objects.body.results[0].objectId, user.objectId);
      assert.ok(!Object.keys(objects.body.results[0]).some((key) => key.startsWith('_') || key === 'password'));
      const sessions = await app.get('/1/aggregate/_Session', { ...MASTER, query: { pipeline: [{ $count: 'n' }] } });
      assert.deepEqual(sessions.body, { results: [{ n: 1 }] });
    });
  });

  describe('refusals', () => {
    const refused = async (response: Response, status: number, code: number, message?: RegExp) => {
      assertError(response, status, code);
      if (message) assert.match(response.body.error, message);
    };

    it('without the master key: 403/119', async () => {
      for (const key of ['rest', 'client', 'javascript'] as const) {
        await refused(await app.get(`/1/aggregate/${cls}`, { key, query: { distinct: 'team' } }), 403, 119, /master key is required/);
      }
      await refused(await app.get('/1/aggregate/_User', { query: { pipeline: [] } }), 403, 119);
    });

    it('bad pipeline shapes: 102, or 107 for JSON that does not parse', async () => {
      await refused(await run(5), 400, 102, /array/);
      await refused(await app.get(`/1/aggregate/${cls}`, { ...MASTER, query: { pipeline: '[{' } }), 400, 107);
      await refused(await run([5]), 400, 102, /object/);
      await refused(await run([{ $match: {}, $limit: 1 }]), 400, 102, /only have one key/);
      await refused(await run([{}]), 400, 102, /only have one key/);
      await refused(await run([{ $limit: -1 }]), 400, 102, /\$limit/);
      await refused(await run([{ $limit: 0 }]), 400, 102, /\$limit/);
      await refused(await run([{ $skip: 1.5 }]), 400, 102, /\$skip/);
      await refused(await run([{ $sort: { score: 2 } }]), 400, 102, /direction/);
      await refused(await run([{ $match: { score: { $bogus: 1 } } }]), 400, 102);
      await refused(await run([{ $project: { score: 1, team: 0 } }]), 400, 102, /both include and exclude/);
      await refused(await run([{ $project: { total: { $add: ['$score', 1] } } }]), 400, 102, /computed/);
    });

    it('stages, accumulators and expressions outside the subset, named', async () => {
      await refused(await run([{ $lookup: { from: 'x' } }]), 400, 102, /^Unsupported aggregate stage \$lookup\.$/);
      await refused(await run([{ $unwind: '$tags' }]), 400, 102, /\$unwind/);
      await refused(await run([{ $group: { _id: '$team', all: { $push: '$name' } } }]), 400, 102, /Unsupported accumulator "\$push"/);
      await refused(await run([{ $group: { _id: { a: '$team', b: '$active' } } }]), 400, 102, /compound/);
      await refused(await run([{ $group: { n: { $sum: 1 } } }]), 400, 102, /Missing key _id/);
      await refused(await run([{ $group: { _id: null, n: { $sum: 1, $avg: '$score' } } }]), 400, 102, /one accumulator/);
      await refused(await run([{ $group: { _id: null, total: { $sum: '$team' } } }]), 400, 102, /Number/);
      await refused(await run([{ $group: { _id: '$tags' } }]), 400, 102, /Array/);
      await refused(await run([{ $group: { _id: '$$ROOT' } }]), 400, 102, /expressions/);
      await refused(await run([{ $group: { _id: '$team', n: { $sum: 1 } } }, { $match: { createdAt: { $exists: true } } }]), 400, 102, /not a field of the \$group/);
      await refused(await run([{ $project: { team: 1 } }, { $group: { _id: '$score' } }]), 400, 102, /removed/);
      await refused(await app.get(`/1/aggregate/${cls}`, { ...MASTER, query: { distinct: 'team', pipeline: [] } }), 400, 102, /distinct/);
      await refused(await run([], { explain: true }), 400, 102, /explain/);
      await refused(await run([], { where: [1] }), 400, 102, /where must be a JSON object/);
    });

    it('odd shapes anywhere: a 400 with {code, error}, never a fault', async () => {
      const odd: unknown[] = [
        [null], [[]], [{ $match: [] }], [{ $match: null }], [{ $group: null }], [{ $group: [] }], [{ $group: { _id: 5 } }], [{ $group: { _id: '' } }],
        [{ $group: { _id: '$' } }], [{ $group: { _id: '$team', objectId: '$team' } }], [{ $group: { _id: null, n: 1 } }], [{ $group: { _id: null, n: { $sum: '$score.x' } } }],
        [{ $group: { _id: null, n: { $sum: null } } }], [{ $group: { _id: null, n: { $count: 1 } } }], [{ $group: { _id: null, __proto__x: { $sum: 1 } } }],
        [{ $sort: {} }], [{ $sort: { '': 1 } }], [{ $sort: [] }], [{ $project: {} }], [{ $project: { '': 1 } }], [{ $project: { 'a.b': 1 } }], [{ $count: '' }], [{ $count: 5 }],
        [{ $limit: '5' }], [{ $limit: 1e300 }], [{ $skip: -1 }], [{ $group: { _id: '$team' } }, { $sort: { updatedAt: 1 } }], [{ $count: 'n' }, { $match: { objectId: 'x' } }],
        [{ $group: { _id: '$team' } }, { $match: { $relatedTo: { object: { __type: 'Pointer', className: cls, objectId: 'x' }, key: 'r' } } }],
        [{ $group: { _id: '$when', n: { $sum: 1 } } }, { $match: { 'objectId.iso': 'x' } }],
        [{ $group: { _id: '$team' } }, { $match: { key: 'red' } }],
        Array.from({ length: 51 }, () => ({ $match: {} })),
        [{ $group: Object.fromEntries([['_id', null], ...Array.from({ length: 41 }, (_, i) => [`f${i}`, { $sum: 1 }])]) }],
      ];
      for (const pipeline of odd) {
        const response = await run(pipeline);
        assert.equal(response.status, 400, `${JSON.stringify(pipeline).slice(0, 200)} → ${response.status} ${response.text}`);
        assert.deepEqual(Object.keys(response.body).sort(), ['code', 'error']);
        assert.ok([102, 105].includes(response.body.code), `${JSON.stringify(pipeline).slice(0, 200)} → ${response.text}`);
      }
    });

    it('a sum or an average past the largest number: 102 on both backends', async () => {
      const huge = unique('Huge');
      for (let i = 0; i < 2; i++) assert.equal((await app.post(`/1/classes/${huge}`, { score: 1e308 })).status, 201);
      for (const accumulator of [{ $sum: '$score' }, { $avg: '$score' }, { $sum: 1e308 }]) {
        const response = await app.get(`/1/aggregate/${huge}`, { ...MASTER, query: { pipeline: [{ $group: { _id: null, v: accumulator } }] } });
        await refused(response, 400, 102, /largest number/);
      }
      const fine = await app.get(`/1/aggregate/${huge}`, { ...MASTER, query: { pipeline: [{ $group: { _id: null, v: { $max: '$score' } } }] } });
      assert.deepEqual(fine.body, { results: [{ objectId: null, v: 1e308 }] });
    });

    it('field names that fail validation, injection attempts included: 105', async () => {
      await refused(await run([{ $group: { _id: '$team"; DROP TABLE x; --' } }]), 400, 105);
      await refused(await run([{ $group: { _id: null, "n') FROM x; --": { $sum: 1 } } }]), 400, 105);
      await refused(await run([{ $group: { _id: null, objectId2: { $sum: 1 }, createdAt: { $sum: 1 } } }]), 400, 105);
      await refused(await run([{ $group: { _id: '$_hashed_password' } }]), 400, 105);
      await refused(await run([{ $sort: { 'score)--': 1 } }]), 400, 105);
      await refused(await run([{ $count: 'a b' }]), 400, 105);
      await refused(await app.get(`/1/aggregate/${cls}`, { ...MASTER, query: { distinct: "team'--" } }), 400, 105);
      // Nothing was changed: the class still answers as before.
      assert.deepEqual(await results([{ $count: 'n' }]), [{ n: 6 }]);
    });
  });
});
