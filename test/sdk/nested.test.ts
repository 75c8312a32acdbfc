import { it } from 'node:test';
import assert from 'node:assert/strict';
import { unique } from '../helpers/client.ts';
import { Parse, eachBackendWithSdk, sdkRequests } from '../helpers/sdk.ts';

/**
 * Nested objects and the SDK's dot notation: `set("stats.level", 5)`, `increment("stats.level")`
 * and `unset("stats.level")` send `{"stats.level": …}` keys that change one key inside an Object
 * field and leave its other keys alone.
 */

const MASTER = { key: 'master' } as const;
type Obj = Parse.Object<Record<string, any>>;

eachBackendWithSdk('SDK nested objects and dot notation', (suite) => {
  async function stored(className: string, objectId: string): Promise<Record<string, any>> {
    const response = await suite.app.get(`/1/classes/${className}/${objectId}`, MASTER);
    assert.equal(response.status, 200, response.text);
    return response.body;
  }

  /** The body of the last object write the SDK sent, without the SDK's own `_` fields. */
  function lastWrite(): Record<string, unknown> {
    const write = [...sdkRequests].reverse().find((request) => request.method === 'PUT' || request.method === 'POST');
    assert.ok(write, 'the SDK sent a write');
    return Object.fromEntries(Object.entries(write.data as Record<string, unknown>).filter(([key]) => !key.startsWith('_')));
  }

  async function player(stats: Record<string, unknown>): Promise<{ className: string; object: Obj }> {
    const className = unique('Player');
    const object = await new Parse.Object<Record<string, any>>(className, { name: 'p1', stats }).save();
    return { className, object };
  }

  it('saves and replaces whole nested objects, and queries inside them', async () => {
    const { className, object } = await player({ level: 1, xp: 10, badges: { gold: 1 } });
    assert.deepEqual((await stored(className, object.id!)).stats, { level: 1, xp: 10, badges: { gold: 1 } });
    object.set('stats', { level: 2 });
    await object.save();
    assert.deepEqual(lastWrite(), { stats: { level: 2 } });
    assert.deepEqual((await stored(className, object.id!)).stats, { level: 2 });
    const found = await new Parse.Query(className).equalTo('stats.level', 2).find();
    assert.deepEqual(found.map((o) => o.id), [object.id]);
    assert.equal(await new Parse.Query(className).equalTo('stats.level', 1).count(), 0);
  });

  it('set("stats.level", 5) sends {"stats.level": 5} and changes only that key', async () => {
    const { className, object } = await player({ level: 1, xp: 10 });
    object.set('stats.level', 5);
    assert.deepEqual(object.get('stats'), { level: 5, xp: 10 });
    await object.save();
    assert.deepEqual(lastWrite(), { 'stats.level': 5 });
    assert.deepEqual((await stored(className, object.id!)).stats, { level: 5, xp: 10 });
    assert.deepEqual(object.get('stats'), { level: 5, xp: 10 });
    const back = await new Parse.Query(className).get(object.id!);
    assert.deepEqual(back.get('stats'), { level: 5, xp: 10 });
    assert.equal(back.get('name'), 'p1');
  });

  it('a dot-notation set adds a new key and can set nested objects and typed values', async () => {
    const { className, object } = await player({ level: 1 });
    const when = new Date('2025-01-02T03:04:05.678Z');
    object.set('stats.badge', 'gold');
    object.set('stats.detail', { wins: 3 });
    object.set('stats.since', when);
    await object.save();
    assert.deepEqual(lastWrite(), { 'stats.badge': 'gold', 'stats.detail': { wins: 3 }, 'stats.since': { __type: 'Date', iso: when.toISOString() } });
    assert.deepEqual((await stored(className, object.id!)).stats, {
      level: 1,
      badge: 'gold',
      detail: { wins: 3 },
      since: { __type: 'Date', iso: when.toISOString() },
    });
    object.set('stats.detail.wins', 4);
    await object.save();
    assert.deepEqual(lastWrite(), { 'stats.detail.wins': 4 });
    assert.deepEqual((await stored(className, object.id!)).stats.detail, { wins: 4 });
    const back = await new Parse.Query(className).get(object.id!);
    assert.equal(back.get('stats').since.toISOString(), when.toISOString());
  });

  it('increment("stats.level") sends an Increment on the key and is atomic across stale copies', async () => {
    const { className, object } = await player({ level: 1, xp: 10 });
    const copy = await new Parse.Query(className).get(object.id!);
    object.increment('stats.level');
    await object.save();
    assert.deepEqual(lastWrite(), { 'stats.level': { __op: 'Increment', amount: 1 } });
    copy.increment('stats.xp', 5);
    copy.increment('stats.level', 10);
    await copy.save();
    assert.deepEqual((await stored(className, object.id!)).stats, { level: 12, xp: 15 });
    await object.fetch();
    assert.deepEqual(object.get('stats'), { level: 12, xp: 15 });
  });

  it('an increment of a missing nested key starts from 0', async () => {
    const { className, object } = await player({ level: 1 });
    object.increment('stats.coins', 3);
    await object.save();
    assert.deepEqual((await stored(className, object.id!)).stats, { level: 1, coins: 3 });
  });

  it('unset("stats.level") sends a Delete on the key and removes only that key', async () => {
    const { className, object } = await player({ level: 1, xp: 10 });
    object.unset('stats.level');
    await object.save();
    assert.deepEqual(lastWrite(), { 'stats.level': { __op: 'Delete' } });
    assert.deepEqual((await stored(className, object.id!)).stats, { xp: 10 });
    const back = await new Parse.Query(className).get(object.id!);
    assert.deepEqual(back.get('stats'), { xp: 10 });
  });
});
