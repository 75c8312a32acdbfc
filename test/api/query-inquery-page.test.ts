import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectIndexScanned } from '../helpers/index-scans.ts';
import { eachBackend } from '../helpers/each-backend.ts';
import { unique, type AppClient, type RequestOptions } from '../helpers/client.ts';
import { as, newUserApp, signUp, type TestUser } from '../helpers/users.ts';

/**
 * `$inQuery` on a Pointer field that leads an index, with no `order`: the page is merged from one
 * ordered read of the index per inner value (src/sql/compiler.ts, `inQueryPage`), or, past 32
 * inner values, read in objectId order as before. Every answer is checked against the answer
 * worked out here, and the same data in a class without the index (the plain path) against its
 * own, for callers who see different owners and items.
 */

const MASTER = { key: 'master' } as const;
const OWNERS = 40;
const ITEMS = 240;
const TIERS = 4;

interface Item {
  readonly objectId: string;
  /** The objectId of the same object in the class without the index. */
  readonly plainId: string;
  readonly n: number;
  readonly owner: number;
  /** Readable by the user `reader` only. */
  readonly hidden: boolean;
}

eachBackend('$inQuery pages through the pointer index', (target) => {
  let app: AppClient;
  let reader: TestUser;
  const classes = { owner: unique('Owner'), indexed: unique('Indexed'), plain: unique('Plain') };
  const ownerIds: string[] = [];
  /** Owners readable by `reader` only. */
  const hiddenOwner = (j: number) => j % 9 === 0;
  const items: Item[] = [];

  async function createAll(className: string, bodies: Record<string, unknown>[]): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < bodies.length; i += 50) {
      const requests = bodies.slice(i, i + 50).map((body) => ({ method: 'POST', path: `/1/classes/${className}`, body }));
      const response = await app.post('/1/batch', { requests }, MASTER);
      assert.equal(response.status, 200, response.text);
      for (const entry of response.body) ids.push(entry.success.objectId);
    }
    return ids;
  }

  before(async () => {
    app = await newUserApp(target);
    reader = await signUp(app);
    const only = { [reader.objectId]: { read: true, write: true } };
    const pointer = { type: 'Pointer', targetClass: classes.owner };
    assert.equal((await app.post(`/1/schemas/${classes.owner}`, { fields: { tier: { type: 'Number' } }, indexes: { byTier: { tier: 1 } } }, MASTER)).status, 201);
    assert.equal((await app.post(`/1/schemas/${classes.indexed}`, { fields: { owner: pointer, n: { type: 'Number' } }, indexes: { byOwner: { owner: 1 } } }, MASTER)).status, 201);
    assert.equal((await app.post(`/1/schemas/${classes.plain}`, { fields: { owner: pointer, n: { type: 'Number' } } }, MASTER)).status, 201);
    const owners = Array.from({ length: OWNERS }, (_, j) => ({ tier: j % TIERS, ...(hiddenOwner(j) ? { ACL: only } : {}) }));
    ownerIds.push(...(await createAll(classes.owner, owners)));
    // Owners in a scattered order, so that one owner's items are spread over the objectId order.
    const ownerOf = (i: number) => (i * 7 + (i >> 3)) % OWNERS;
    const bodies = Array.from({ length: ITEMS }, (_, i) => ({
      n: i,
      owner: { __type: 'Pointer', className: classes.owner, objectId: ownerIds[ownerOf(i)] },
      ...(i % 5 === 0 ? { ACL: only } : {}),
    }));
    const ids = await createAll(classes.indexed, bodies);
    const plainIds = await createAll(classes.plain, bodies);
    ids.forEach((objectId, i) => items.push({ objectId, plainId: plainIds[i]!, n: i, owner: ownerOf(i), hidden: i % 5 === 0 }));
  });

  function callerOptions(caller: 'anonymous' | 'reader' | 'master'): RequestOptions {
    return caller === 'master' ? MASTER : caller === 'reader' ? as(reader.sessionToken) : {};
  }

  /** The `n` of each object of the page, worked out here: objectId order, skip, limit. */
  function expected(caller: 'anonymous' | 'reader' | 'master', ownerMatches: (j: number) => boolean, skip: number, limit: number, plain = false): number[] {
    const sees = (hidden: boolean) => caller !== 'anonymous' || !hidden;
    const id = (item: Item) => (plain ? item.plainId : item.objectId);
    return items
      .filter((item) => ownerMatches(item.owner) && sees(hiddenOwner(item.owner)) && sees(item.hidden))
      .sort((a, b) => (id(a) < id(b) ? -1 : 1))
      .slice(skip, skip + limit)
      .map((item) => item.n);
  }

  async function page(className: string, caller: 'anonymous' | 'reader' | 'master', innerWhere: unknown, query: Record<string, string | number>): Promise<number[]> {
    const where = { owner: { $inQuery: { className: classes.owner, where: innerWhere } } };
    const response = await app.get(`/1/classes/${className}`, { ...callerOptions(caller), query: { where, ...query } });
    assert.equal(response.status, 200, response.text);
    const ids = response.body.results.map((result: { objectId: string }) => result.objectId);
    assert.deepEqual(ids, [...ids].sort(), 'objectId order');
    return response.body.results.map((result: { n: number }) => result.n);
  }

  for (const caller of ['anonymous', 'reader', 'master'] as const) {
    it(`gives ${caller} the page the plain path gives, across skip and limit`, async () => {
      for (const [skip, limit] of [[0, 1], [0, 5], [0, 20], [3, 7], [25, 10], [55, 100], [200, 5]] as const) {
        const want = expected(caller, (j) => j % TIERS === 1, skip, limit);
        const got = await page(classes.indexed, caller, { tier: 1 }, { skip, limit });
        assert.deepEqual(got, want, `skip ${skip} limit ${limit}`);
        assert.deepEqual(await page(classes.plain, caller, { tier: 1 }, { skip, limit }), expected(caller, (j) => j % TIERS === 1, skip, limit, true), `plain, skip ${skip} limit ${limit}`);
      }
    });
  }

  it('leaves out items of owners the caller may not read, and items it may not read', async () => {
    // Tier 0 holds owners 0, 4, … of which 0 and 36 are hidden; one item in five is hidden.
    const anonymous = await page(classes.indexed, 'anonymous', { tier: 0 }, { limit: 1000 });
    const all = await page(classes.indexed, 'reader', { tier: 0 }, { limit: 1000 });
    assert.ok(anonymous.length > 0 && anonymous.length < all.length);
    for (const n of anonymous) {
      const item = items[n]!;
      assert.ok(!item.hidden && !hiddenOwner(item.owner), `item ${n} is readable through a readable owner`);
    }
    assert.deepEqual(all, expected('reader', (j) => j % TIERS === 0, 0, 1000));
  });

  it('with more inner values than the merge takes, reads the page the plain way, alike', async () => {
    // 40 owners (36 for the anonymous caller) pass `tier >= 0`: more than 32.
    for (const caller of ['anonymous', 'reader'] as const) {
      for (const [skip, limit] of [[0, 10], [17, 30], [150, 100]] as const) {
        const want = expected(caller, () => true, skip, limit);
        assert.deepEqual(await page(classes.indexed, caller, { tier: { $gte: 0 } }, { skip, limit }), want, `${caller} skip ${skip} limit ${limit}`);
      }
    }
  });

  it('counts every match beside the page, and an explicit objectId order gives the same page', async () => {
    const where = { owner: { $inQuery: { className: classes.owner, where: { tier: 2 } } } };
    const response = await app.get(`/1/classes/${classes.indexed}`, { query: { where, limit: 3, count: 1 } });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.count, expected('anonymous', (j) => j % TIERS === 2, 0, 1000).length);
    assert.deepEqual(response.body.results.map((result: { n: number }) => result.n), expected('anonymous', (j) => j % TIERS === 2, 0, 3));
    assert.deepEqual(await page(classes.indexed, 'anonymous', { tier: 2 }, { order: 'objectId', limit: 4, skip: 2 }), expected('anonymous', (j) => j % TIERS === 2, 2, 4));
  });

  it('leaves $notInQuery and a constraint beside $inQuery as they were', async () => {
    const notIn = await app.get(`/1/classes/${classes.indexed}`, { query: { where: { owner: { $notInQuery: { className: classes.owner, where: { tier: 1 } } } }, limit: 1000 } });
    assert.equal(notIn.status, 200, notIn.text);
    // The inner query cannot find hidden owners, so their items are not in it.
    const outside = items.filter((item) => !item.hidden && (item.owner % TIERS !== 1 || hiddenOwner(item.owner)));
    const want = outside.sort((a, b) => (a.objectId < b.objectId ? -1 : 1)).map((item) => item.n);
    assert.deepEqual(notIn.body.results.map((result: { n: number }) => result.n), want);
    const beside = await app.get(`/1/classes/${classes.indexed}`, { query: { where: { owner: { $inQuery: { className: classes.owner, where: { tier: 3 } } }, n: { $lt: 100 } }, limit: 5 } });
    assert.equal(beside.status, 200, beside.text);
    assert.deepEqual(beside.body.results.map((result: { n: number }) => result.n), expected('anonymous', (j) => j % TIERS === 3, 0, 1000).filter((n) => n < 100).slice(0, 5));
  });

  if (target.backend === 'postgres') {
    describe('on PostgreSQL', () => {
      it('reads the owner index', async () => {
        await expectIndexScanned(app, classes.indexed, '%byOwner%', async () => {
          assert.deepEqual(await page(classes.indexed, 'anonymous', { tier: 1 }, { limit: 5 }), expected('anonymous', (j) => j % TIERS === 1, 0, 5));
        });
      });

      it('gives the same pages once the statement runs on the plan made for no values in particular', async () => {
        // PostgreSQL switches a named statement to its generic plan after five runs; each caller
        // and page below runs ten times, alternating the merged and the walked half.
        for (let run = 0; run < 10; run++) {
          for (const caller of ['anonymous', 'reader'] as const) {
            assert.deepEqual(await page(classes.indexed, caller, { tier: 2 }, { skip: 1, limit: 6 }), expected(caller, (j) => j % TIERS === 2, 1, 6), `merged, ${caller} run ${run}`);
            assert.deepEqual(await page(classes.indexed, caller, { tier: { $gte: 0 } }, { skip: 9, limit: 12 }), expected(caller, () => true, 9, 12), `walked, ${caller} run ${run}`);
          }
        }
      });
    });
  }
});
