import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { unique } from '../helpers/client.ts';
import { Parse, eachBackendWithSdk, rejectsWithCode, sdkRequests } from '../helpers/sdk.ts';

/**
 * query.distinct(key) and query.aggregate(pipeline): the SDK sends both to /1/aggregate/<class>
 * with the master key; answers are the raw `results`.
 */

eachBackendWithSdk('SDK distinct and aggregate', () => {
  const Score = unique('Score');
  const Team = unique('Team');
  let red: Parse.Object;
  let blue: Parse.Object;

  before(async () => {
    red = new Parse.Object(Team);
    blue = new Parse.Object(Team);
    await Parse.Object.saveAll([red, blue]);
    const rows = [
      { player: 'ann', score: 10, team: red, tags: ['x', 'y'], cheat: false },
      { player: 'bob', score: 20, team: blue, tags: ['y'], cheat: false },
      { player: 'ann', score: 30, team: red, tags: [], cheat: true },
      { player: 'cid', score: 40, team: blue, tags: ['z'], cheat: false },
      { player: 'bob', score: 50, tags: ['x'], cheat: false },
    ];
    await Parse.Object.saveAll(rows.map((row) => new Parse.Object<Record<string, any>>(Score, row)));
  });

  it('distinct answers the distinct values in ascending order, with the master key', async () => {
    sdkRequests.length = 0;
    assert.deepEqual(await new Parse.Query(Score).distinct('player'), ['ann', 'bob', 'cid']);
    assert.equal(sdkRequests.at(-1)!.path, `aggregate/${Score}`);
    assert.deepEqual(await new Parse.Query(Score).distinct('score'), [10, 20, 30, 40, 50]);
    assert.deepEqual(await new Parse.Query(Score).distinct('cheat'), [false, true]);
  });

  it('distinct applies the query’s constraints', async () => {
    assert.deepEqual(await new Parse.Query(Score).greaterThan('score', 15).distinct('player'), ['ann', 'bob', 'cid']);
    assert.deepEqual(await new Parse.Query(Score).equalTo('cheat', false).lessThan('score', 25).distinct('player'), ['ann', 'bob']);
    assert.deepEqual(await new Parse.Query(Score).equalTo('player', 'nobody').distinct('player'), []);
  });

  it('distinct of an array field answers its elements; of a pointer, pointers', async () => {
    assert.deepEqual(await new Parse.Query(Score).distinct('tags'), ['x', 'y', 'z']);
    const teams = await new Parse.Query(Score).distinct('team');
    assert.deepEqual(
      (teams as { objectId: string }[]).map((team) => team.objectId).sort(),
      [red.id, blue.id].sort(),
    );
    for (const team of teams as Record<string, unknown>[]) assert.equal(team.className, Team);
  });

  it('aggregate with $group sums per key, answered with the key as objectId', async () => {
    const results = await new Parse.Query(Score).aggregate([{ $group: { _id: '$player', total: { $sum: '$score' }, n: { $sum: 1 } } }, { $sort: { total: -1 } }]);
    assert.deepEqual(results, [
      { objectId: 'bob', total: 70, n: 2 },
      { objectId: 'ann', total: 40, n: 2 },
      { objectId: 'cid', total: 40, n: 1 },
    ]);
  });

  it('aggregate starts with the query’s where as a $match', async () => {
    sdkRequests.length = 0;
    const results = await new Parse.Query(Score).equalTo('cheat', false).aggregate([{ $group: { _id: null, total: { $sum: '$score' }, best: { $max: '$score' }, mean: { $avg: '$score' } } }]);
    assert.deepEqual(results, [{ objectId: null, total: 120, best: 50, mean: 30 }]);
    assert.deepEqual(sdkRequests.at(-1)!.data.pipeline[0], { $match: { cheat: false } });
  });

  it('aggregate with $match, $sort, $skip, $limit and $project answers objects', async () => {
    const results = (await new Parse.Query(Score).aggregate([
      { $match: { score: { $gte: 20 } } },
      { $sort: { score: 1 } },
      { $skip: 1 },
      { $limit: 2 },
      { $project: { player: 1, score: 1 } },
    ])) as Record<string, unknown>[];
    assert.deepEqual(
      results.map(({ player, score }) => ({ player, score })),
      [
        { player: 'ann', score: 30 },
        { player: 'cid', score: 40 },
      ],
    );
    for (const result of results) assert.deepEqual(Object.keys(result).sort(), ['objectId', 'player', 'score']);
  });

  it('aggregate with $count, and a pipeline given as an object of stages', async () => {
    assert.deepEqual(await new Parse.Query(Score).aggregate([{ $match: { cheat: false } }, { $count: 'total' }]), [{ total: 4 }]);
    assert.deepEqual(await new Parse.Query(Score).aggregate({ $group: { _id: '$cheat', n: { $sum: 1 } } }), [
      { objectId: false, n: 4 },
      { objectId: true, n: 1 },
    ]);
  });

  it('an unsupported stage is 102; without the master key 119', async () => {
    await rejectsWithCode(() => new Parse.Query(Score).aggregate([{ $lookup: { from: Team } }]), Parse.Error.INVALID_QUERY);
    await rejectsWithCode(() => new Parse.Query(Score).aggregate([{ $count: 'n' }], { useMasterKey: false }), Parse.Error.OPERATION_FORBIDDEN);
  });
});
