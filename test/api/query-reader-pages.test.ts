import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { unique, type AppClient, type RequestOptions } from '../helpers/client.ts';
import { eachBackend } from '../helpers/each-backend.ts';
import type { Target } from '../helpers/targets.ts';
import { as, newUserApp, signUp, type TestUser } from '../helpers/users.ts';

/**
 * Pages of an indexed range for callers with principals besides "*" (docs/architecture.md,
 * "Reader indexes"): on PostgreSQL each principal's own entries are read from the reader index
 * beside the schema index, and lists of several readers are tested one by one. Whatever reads
 * them, the pages are exactly the objects the caller may read, in order, on both backends.
 */

const MASTER = { key: 'master' } as const;
const OBJECTS = 280;
/** Scores repeat (three or so objects a score), so ties are broken by objectId. */
const scoreOf = (i: number) => (i * 37) % 100;
const tagOf = (i: number) => (i % 3 === 0 ? 'a' : 'b');

type Caller = 'first' | 'second' | 'anyone';
/** What object `i` lets read: the seven kinds of read list, in turn. */
const KINDS = ['public', 'first', 'second', 'both users', 'the role', 'public and first', 'nobody'] as const;
const kindOf = (i: number) => KINDS[i % KINDS.length]!;
/** `first` is in the role; `second` is not. */
const READABLE: Record<(typeof KINDS)[number], readonly Caller[]> = {
  public: ['first', 'second', 'anyone'],
  first: ['first'],
  second: ['second'],
  'both users': ['first', 'second'],
  'the role': ['first'],
  'public and first': ['first', 'second', 'anyone'],
  nobody: [],
};

/** A new app with two users, the first of them in a new role named `role`. */
async function twoUsersAndRole(target: Target, role: string): Promise<{ app: AppClient; first: TestUser; second: TestUser }> {
  const app = await newUserApp(target);
  const first = await signUp(app);
  const second = await signUp(app);
  const made = await app.post('/1/roles', { name: role, ACL: {}, users: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: '_User', objectId: first.objectId }] } }, MASTER);
  assert.equal(made.status, 201, made.text);
  return { app, first, second };
}

interface Seeded {
  readonly id: string;
  readonly i: number;
}

eachBackend('pages read through the reader index', (target) => {
  let app: AppClient;
  let first: TestUser;
  let second: TestUser;
  const className = unique('Readers');
  const role = unique('Staff');
  let objects: Seeded[] = [];

  const aclOf = (i: number): Record<string, { read: true }> => {
    const read = { read: true } as const;
    switch (kindOf(i)) {
      case 'public':
        return { '*': read };
      case 'first':
        return { [first.objectId]: read };
      case 'second':
        return { [second.objectId]: read };
      case 'both users':
        return { [first.objectId]: read, [second.objectId]: read };
      case 'the role':
        return { [`role:${role}`]: read };
      case 'public and first':
        return { '*': read, [first.objectId]: read };
      case 'nobody':
        return {};
    }
  };

  before(async () => {
    ({ app, first, second } = await twoUsersAndRole(target, role));
    const created = await app.post(`/1/schemas/${className}`, { fields: { score: { type: 'Number' }, tag: { type: 'String' } }, indexes: { byScore: { score: -1 } } }, MASTER);
    assert.equal(created.status, 201, created.text);
    for (let start = 0; start < OBJECTS; start += 50) {
      const requests = Array.from({ length: Math.min(50, OBJECTS - start) }, (_, k) => {
        const i = start + k;
        return { method: 'POST', path: `/1/classes/${className}`, body: { score: scoreOf(i), tag: tagOf(i), ACL: aclOf(i) } };
      });
      const response = await app.post('/1/batch', { requests }, MASTER);
      assert.equal(response.status, 200, response.text);
      response.body.forEach((answer: { success: { objectId: string } }, k: number) => objects.push({ id: answer.success.objectId, i: start + k }));
    }
  });

  const optionsOf = (caller: Caller): RequestOptions => (caller === 'first' ? as(first.sessionToken) : caller === 'second' ? as(second.sessionToken) : {});
  const byId = (a: Seeded, b: Seeded) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  /** The ids the caller may read among objects passing `test`, in `order`, then by objectId. */
  const expected = (caller: Caller, test: (i: number) => boolean, descending: boolean): string[] =>
    objects
      .filter(({ i }) => READABLE[kindOf(i)].includes(caller) && test(i))
      .sort((a, b) => (descending ? scoreOf(b.i) - scoreOf(a.i) : scoreOf(a.i) - scoreOf(b.i)) || byId(a, b))
      .map(({ id }) => id);
  const ids = async (caller: Caller, query: Record<string, string | number | object>): Promise<string[]> => {
    const response = await app.get(`/1/classes/${className}`, { ...optionsOf(caller), query });
    assert.equal(response.status, 200, response.text);
    return response.body.results.map((object: { objectId: string }) => object.objectId);
  };

  it('answers every caller the objects it may read, page after page, in either order', async () => {
    for (const caller of ['first', 'second', 'anyone'] as const) {
      for (const descending of [true, false]) {
        const all = expected(caller, (i) => scoreOf(i) >= 30, descending);
        assert.ok(all.length > 40, `${caller} reads ${all.length}`);
        const order = descending ? '-score' : 'score';
        const paged: string[] = [];
        for (let skip = 0; skip < all.length + 20; skip += 20) paged.push(...(await ids(caller, { where: { score: { $gte: 30 } }, order, limit: 20, skip })));
        assert.deepEqual(paged, all, `${caller}, ${order}, page by page`);
        assert.deepEqual(await ids(caller, { where: { score: { $gte: 30 } }, order, limit: 1000 }), all, `${caller}, ${order}, one page`);
      }
    }
  });

  it('keeps the rest of the where, a list of values, a second order key and selected keys', async () => {
    for (const caller of ['first', 'second'] as const) {
      const tagged = expected(caller, (i) => scoreOf(i) >= 20 && scoreOf(i) < 80 && tagOf(i) === 'a', true);
      assert.deepEqual(await ids(caller, { where: { score: { $gte: 20, $lt: 80 }, tag: 'a' }, order: '-score', limit: 15, skip: 5 }), tagged.slice(5, 20), `${caller}: range and tag`);
      const listed = expected(caller, (i) => [3, 40, 77, 90].includes(scoreOf(i)), true);
      assert.deepEqual(await ids(caller, { where: { score: { $in: [3, 40, 77, 90] } }, order: '-score', limit: 50 }), listed, `${caller}: $in`);
      // A second key (createdAt; objects were made in i order, one batch after another) still breaks ties.
      const byCreation = objects
        .filter(({ i }) => READABLE[kindOf(i)].includes(caller) && scoreOf(i) >= 50)
        .sort((a, b) => scoreOf(b.i) - scoreOf(a.i) || b.i - a.i)
        .map(({ id }) => id);
      const response = await app.get(`/1/classes/${className}`, { ...optionsOf(caller), query: { where: { score: { $gte: 50 } }, order: '-score,-createdAt', limit: 1000, keys: 'score' } });
      assert.equal(response.status, 200, response.text);
      const results = response.body.results as { objectId: string; score: number; createdAt: string }[];
      assert.deepEqual(results.map((object) => object.score), byCreation.map((id) => scoreOf(objects.find((object) => object.id === id)!.i)), `${caller}: scores in order`);
      for (let k = 1; k < results.length; k++) {
        const [a, b] = [results[k - 1]!, results[k]!];
        assert.ok(a.score > b.score || (a.score === b.score && a.createdAt >= b.createdAt), `${caller}: ${a.objectId} before ${b.objectId}`);
      }
      assert.deepEqual(new Set(results.map((object) => object.objectId)), new Set(byCreation), `${caller}: the readable objects`);
      assert.deepEqual(Object.keys(results[0]!).sort(), ['ACL', 'createdAt', 'objectId', 'score', 'updatedAt']);
    }
  });

  it('counts beside a page as the page reads, and a write moves an object between readers at once', async () => {
    const all = expected('first', (i) => scoreOf(i) >= 30, true);
    const counted = await app.get(`/1/classes/${className}`, { ...as(first.sessionToken), query: { where: { score: { $gte: 30 } }, order: '-score', limit: 10, count: 1 } });
    assert.equal(counted.status, 200, counted.text);
    assert.deepEqual([counted.body.count, counted.body.results.map((object: { objectId: string }) => object.objectId)], [all.length, all.slice(0, 10)]);
    // The second user's best object becomes the first user's alone: it leaves one page and joins the other.
    const moved = objects.find(({ id }) => id === expected('second', (i) => kindOf(i) === 'second' && scoreOf(i) >= 30, true)[0])!;
    const updated = await app.put(`/1/classes/${className}/${moved.id}`, { ACL: { [first.objectId]: { read: true } }, score: 99.5 }, MASTER);
    assert.equal(updated.status, 200, updated.text);
    assert.equal((await ids('first', { where: { score: { $gte: 30 } }, order: '-score', limit: 1 }))[0], moved.id);
    assert.ok(!(await ids('second', { where: { score: { $gte: 30 } }, order: '-score', limit: 1000 })).includes(moved.id));
  });
});

eachBackend("pages of a class whose read lists are each one principal's", (target) => {
  let app: AppClient;
  let first: TestUser;
  let second: TestUser;
  const role = unique('Crew');

  before(async () => {
    ({ app, first, second } = await twoUsersAndRole(target, role));
  });

  const optionsOf = (caller: Caller): RequestOptions => (caller === 'first' ? as(first.sessionToken) : caller === 'second' ? as(second.sessionToken) : {});

  /**
   * A class of 48 objects with an index on score, each readable by one principal, none of them
   * "*": the first user, the second, the role. Its objects (id, score, who may read) are kept
   * up to date by the test through `add`, `remove` and `reread`.
   */
  const ownedClass = async () => {
    const className = unique('Owned');
    const created = await app.post(`/1/schemas/${className}`, { fields: { score: { type: 'Number' } }, indexes: { byScore: { score: -1 } } }, MASTER);
    assert.equal(created.status, 201, created.text);
    const owners = [
      { acl: { [first.objectId]: { read: true } }, readers: ['first'] as const },
      { acl: { [second.objectId]: { read: true } }, readers: ['second'] as const },
      { acl: { [`role:${role}`]: { read: true } }, readers: ['first'] as const },
    ];
    const requests = Array.from({ length: 48 }, (_, i) => ({ method: 'POST', path: `/1/classes/${className}`, body: { score: (i * 7) % 40, ACL: owners[i % 3]!.acl } }));
    const response = await app.post('/1/batch', { requests }, MASTER);
    assert.equal(response.status, 200, response.text);
    let objects: { id: string; score: number; readers: readonly Caller[] }[] = response.body.map((answer: { success: { objectId: string } }, i: number) => ({
      id: answer.success.objectId,
      score: (i * 7) % 40,
      readers: owners[i % 3]!.readers,
    }));
    const expected = (caller: Caller): string[] =>
      objects
        .filter((object) => object.readers.includes(caller) && object.score >= 10)
        .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .map((object) => object.id);
    return {
      expected,
      /** Every caller's first two pages: exactly what the caller may read. */
      assertPages: async (when: string) => {
        for (const caller of ['first', 'second', 'anyone'] as const) {
          const all = expected(caller);
          for (const skip of [0, 6]) {
            const response = await app.get(`/1/classes/${className}`, { ...optionsOf(caller), query: { where: { score: { $gte: 10 } }, order: '-score', limit: 6, skip } });
            assert.equal(response.status, 200, response.text);
            assert.deepEqual(response.body.results.map((object: { objectId: string }) => object.objectId), all.slice(skip, skip + 6), `${when}: ${caller}, skip ${skip}`);
          }
        }
      },
      add: async (score: number, ACL: Record<string, { read: true }>, readers: readonly Caller[]) => {
        const response = await app.post(`/1/classes/${className}`, { score, ACL }, MASTER);
        assert.equal(response.status, 201, response.text);
        objects.push({ id: response.body.objectId, score, readers });
        return response.body.objectId as string;
      },
      remove: async (id: string) => {
        const response = await app.delete(`/1/classes/${className}/${id}`, MASTER);
        assert.equal(response.status, 200, response.text);
        objects = objects.filter((object) => object.id !== id);
      },
      reread: async (id: string, ACL: Record<string, { read: true }>, readers: readonly Caller[]) => {
        const response = await app.put(`/1/classes/${className}/${id}`, { ACL }, MASTER);
        assert.equal(response.status, 200, response.text);
        objects = objects.map((object) => (object.id === id ? { ...object, readers } : object));
      },
    };
  };

  it('answers each reader its own objects, and at once the lists of "*" and of several readers that come after', async () => {
    const owned = await ownedClass();
    await owned.assertPages('lists of one principal');
    await owned.assertPages('the same pages again');
    // Each kind of list the class did not hold, first at the top of the pages, then within them.
    const added = [
      await owned.add(50, { '*': { read: true } }, ['first', 'second', 'anyone']),
      await owned.add(51, { [first.objectId]: { read: true }, [second.objectId]: { read: true } }, ['first', 'second']),
      await owned.add(52, { '*': { read: true }, [second.objectId]: { read: true } }, ['first', 'second', 'anyone']),
      await owned.add(25.5, { [`role:${role}`]: { read: true }, [second.objectId]: { read: true } }, ['first', 'second']),
    ];
    await owned.assertPages('lists of "*" and of several readers added');
    for (const id of added) await owned.remove(id);
    await owned.assertPages('those lists removed');
  });

  it('finds at once a list of several readers that an update gives an object the class already holds', async () => {
    const owned = await ownedClass();
    await owned.assertPages('lists of one principal');
    await owned.reread(owned.expected('second').at(-1)!, { [first.objectId]: { read: true }, [second.objectId]: { read: true } }, ['first', 'second']);
    await owned.assertPages('an object shared by both users');
    await owned.reread(owned.expected('first').at(-1)!, { '*': { read: true } }, ['first', 'second', 'anyone']);
    await owned.assertPages('an object made public');
  });
});
