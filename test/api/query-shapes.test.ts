import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import { as, assertError, newUserApp, signUp } from '../helpers/users.ts';

/**
 * Query texts that differ only in their numbers reuse the parse of their shape
 * (rest/query-shapes.ts). Every text of a shape must answer as its own parse would: the same
 * objects, the same count, the same refusals.
 */

const MASTER = { key: 'master' } as const;
const N = 40;

interface Item {
  readonly objectId: string;
  readonly score: number;
  readonly rank: number;
  readonly tags: number[];
  readonly place: { latitude: number; longitude: number };
}

eachBackend('query shapes', (target) => {
  let client: AppClient;
  const className = unique('Shaped');
  const items: Item[] = [];

  before(async () => {
    client = await newApp(target, { rateLimits: { countQueriesPerMinute: 10_000 } });
    const requests = Array.from({ length: N }, (_, i) => ({
      method: 'POST',
      path: `/1/classes/${className}`,
      body: { score: i % 2 === 0 ? i : -i / 4, rank: i % 5, tags: [i % 3, 10 + (i % 4)], place: { __type: 'GeoPoint', latitude: i, longitude: -i } },
    }));
    const answer = await client.post('/1/batch', { requests }, MASTER);
    assert.equal(answer.status, 200, answer.text);
    answer.body.forEach((result: { success: { objectId: string } }, i: number) => {
      const body = requests[i]!.body;
      items.push({ objectId: result.success.objectId, score: body.score, rank: body.rank, tags: body.tags, place: { latitude: i, longitude: -i } });
    });
  });

  async function ids(where: string, extra: Record<string, string | number> = {}): Promise<{ ids: string[]; count: number }> {
    // The where goes as the very text given: the shape is the text's.
    const query = new URLSearchParams({ where, order: 'score,objectId', limit: '1000', count: '1', ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, String(v)])) });
    const answer = await client.get(`/1/classes/${className}?${query}`, MASTER);
    assert.equal(answer.status, 200, `${where}: ${answer.text}`);
    return { ids: answer.body.results.map((object: { objectId: string }) => object.objectId), count: answer.body.count };
  }

  function expected(passes: (item: Item) => boolean): { ids: string[]; count: number } {
    const found = items.filter(passes).sort((a, b) => a.score - b.score || (a.objectId < b.objectId ? -1 : 1));
    return { ids: found.map((item) => item.objectId), count: found.length };
  }

  it('answers every text of a shape as its own parse would', async () => {
    const shapes: [(a: number, b: number) => string, (a: number, b: number) => (item: Item) => boolean][] = [
      [(a) => `{"score":{"$gte":${a}}}`, (a) => (item) => item.score >= a],
      [(a, b) => `{"score":{"$gt":${a},"$lte":${b}}}`, (a, b) => (item) => item.score > a && item.score <= b],
      [(a) => `{"score":${a}}`, (a) => (item) => item.score === a],
      [(a) => `{"score":{"$ne":${a}}}`, (a) => (item) => item.score !== a],
      [(a, b) => `{"$or":[{"score":{"$lt":${a}}},{"rank":${b}}]}`, (a, b) => (item) => item.score < a || item.rank === b],
      [(a, b) => `{"score":{"$in":[${a},${b}]},"rank":{"$lt":${b}}}`, (a, b) => (item) => (item.score === a || item.score === b) && item.rank < b],
      [(a, b) => `{"$nor":[{"score":{"$gte":${a}}}],"rank":{"$ne":${b}}}`, (a, b) => (item) => !(item.score >= a) && item.rank !== b],
      // Not put together (an array element, a distance): parsed each time, and still right.
      [(a) => `{"tags":${a}}`, (a) => (item) => item.tags.includes(a)],
      [(a, b) => `{"place":{"$geoWithin":{"$centerSphere":[[${a},${-a}],${b / 100}]}}}`, (a, b) => (item) => distanceRadians(item.place, -a, a) <= b / 100],
    ];
    const values: [number, number][] = [
      [0, 3],
      [10, 2],
      [-2.5, 1],
      [-0, 4],
      [38, 0],
      [1e-9, 2],
      [-1.75, 3],
      [26, 1],
      [2, 12],
    ];
    for (const [text, passes] of shapes) {
      for (const [a, b] of values) {
        assert.deepEqual(await ids(text(a, b)), expected(passes(a, b)), text(a, b));
      }
    }
  });

  it('refuses a number past the doubles in a shape it knows, as its parse does', async () => {
    await ids('{"score":{"$gte":5}}');
    const answer = await client.get(`/1/classes/${className}?${new URLSearchParams({ where: '{"score":{"$gte":1e400}}' })}`, MASTER);
    assertError(answer, 400, 102);
  });

  it('answers a shape seen again with a page and the caller it is asked with', async () => {
    const page = await ids('{"score":{"$gte":4}}', { limit: 3, skip: 2 });
    const all = expected((item) => item.score >= 4);
    assert.deepEqual(page, { ids: all.ids.slice(2, 5), count: all.count });
    const anyone = await client.get(`/1/classes/${className}?${new URLSearchParams({ where: '{"score":{"$gte":6}}', count: '1', limit: '0' })}`, { key: 'rest' });
    assert.equal(anyone.status, 200, anyone.text);
    assert.equal(anyone.body.count, expected((item) => item.score >= 6).count);
  });
});

eachBackend('query shapes, pages alone as each caller', (target) => {
  let client: AppClient;
  const className = unique('ShapedAcl');
  const readers: { token: string | null; id: string | null }[] = [];
  const items: { objectId: string; score: number; reader: string }[] = [];

  before(async () => {
    client = await newUserApp(target);
    for (let i = 0; i < 2; i++) {
      const user = await signUp(client);
      readers.push({ token: user.sessionToken, id: user.objectId });
    }
    readers.push({ token: null, id: null });
    // Each object readable by one user, or by anyone; scores 0 … 29 with repeats.
    const requests = Array.from({ length: 48 }, (_, i) => {
      const reader = i % 3 === 2 ? '*' : readers[i % 3]!.id!;
      return { method: 'POST', path: `/1/classes/${className}`, body: { score: (i * 7) % 30, ACL: { [reader]: { read: true } } } };
    });
    const answer = await client.post('/1/batch', { requests }, MASTER);
    assert.equal(answer.status, 200, answer.text);
    answer.body.forEach((result: { success: { objectId: string } }, i: number) => {
      items.push({ objectId: result.success.objectId, score: requests[i]!.body.score, reader: Object.keys(requests[i]!.body.ACL)[0]! });
    });
  });

  it('reads every text of a shape as its caller may, caller after caller', async () => {
    const texts = [(a: number) => `{"score":{"$gte":${a}}}`, (a: number) => `{"score":{"$lt":${a}},"$or":[{"score":{"$gt":${a / 2}}},{"score":0}]}`];
    const passes = [(a: number, score: number) => score >= a, (a: number, score: number) => score < a && (score > a / 2 || score === 0)];
    for (const a of [3, 10, 25, 3.5, -1, 17, 10, 29]) {
      for (const [t, text] of texts.entries()) {
        for (const reader of [...readers, null]) {
          const query = new URLSearchParams({ where: text(a), order: '-score,objectId', limit: '7' });
          const answer = await client.get(`/1/classes/${className}?${query}`, reader === null ? MASTER : reader.token ? as(reader.token) : { key: 'rest' });
          assert.equal(answer.status, 200, answer.text);
          const seen = items
            .filter((item) => passes[t]!(a, item.score) && (reader === null || item.reader === '*' || item.reader === reader.id))
            .sort((x, y) => y.score - x.score || (x.objectId < y.objectId ? -1 : 1))
            .slice(0, 7)
            .map((item) => item.objectId);
          assert.deepEqual(
            answer.body.results.map((object: { objectId: string }) => object.objectId),
            seen,
            `${text(a)} as ${reader === null ? 'master' : (reader.id ?? 'anyone')}`,
          );
        }
      }
    }
  });
});

function distanceRadians(place: { latitude: number; longitude: number }, latitude: number, longitude: number): number {
  const rad = Math.PI / 180;
  const dLat = (latitude - place.latitude) * rad;
  const dLon = (longitude - place.longitude) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(place.latitude * rad) * Math.cos(latitude * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * Math.asin(Math.min(1, Math.sqrt(h)));
}
