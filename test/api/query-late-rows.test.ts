import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { unique, type AppClient } from '../helpers/client.ts';
import { postgresApp, rowsReadThroughIndexes, vacuumUntilAllVisible } from '../helpers/app-database.ts';
import { eachBackend } from '../helpers/each-backend.ts';
import { expectIndexScanned } from '../helpers/index-scans.ts';
import { as, newUserApp, signUp, type TestUser } from '../helpers/users.ts';

/**
 * A user's page of a range that a schema index serves, where the user may read few of the
 * objects (docs/architecture.md, "Rows read last"): on PostgreSQL the page's ids are picked from
 * the index's entries, which carry the read permissions, and only the page's rows are read. The
 * answers are the same on both backends, page by page, with counts and selected keys.
 */

const MASTER = { key: 'master' } as const;
const OBJECTS = 600;
/** One object in ten is the user's; no object is public. */
const isUsers = (i: number) => i % 10 === 0;
/** A permutation of 0 … OBJECTS-1. */
const scoreOf = (i: number) => (i * 257) % OBJECTS;

eachBackend('pages whose permissions the index tests', (target) => {
  let app: AppClient;
  let user: TestUser;
  const className = unique('LateRows');
  /** The user's objects' ids in the class seeded first, highest score first. */
  let usersInOrder: string[] = [];

  /** Makes the class and its objects; answers the user's objects' ids, highest score first. */
  async function seed(name: string): Promise<string[]> {
    const created = await app.post(`/1/schemas/${name}`, { fields: { score: { type: 'Number' }, name: { type: 'String' } }, indexes: { byScore: { score: -1 } } }, MASTER);
    assert.equal(created.status, 201, created.text);
    const ids: string[] = [];
    for (let start = 0; start < OBJECTS; start += 50) {
      const requests = Array.from({ length: 50 }, (_, k) => {
        const i = start + k;
        const reader = isUsers(i) ? user.objectId : 'someoneElse';
        return { method: 'POST', path: `/1/classes/${name}`, body: { score: scoreOf(i), name: `n${i}`, ACL: { [reader]: { read: true } } } };
      });
      const response = await app.post('/1/batch', { requests }, MASTER);
      assert.equal(response.status, 200, response.text);
      for (const answer of response.body) ids.push(answer.success.objectId);
    }
    return ids.map((id, i) => ({ id, i })).filter(({ i }) => isUsers(i)).sort((a, b) => scoreOf(b.i) - scoreOf(a.i)).map(({ id }) => id);
  }

  before(async () => {
    app = await newUserApp(target);
    user = await signUp(app);
    usersInOrder = await seed(className);
  });

  const page = (skip: number, extra: Record<string, unknown> = {}, name = className) =>
    app.get(`/1/classes/${name}`, { ...as(user.sessionToken), query: { where: { score: { $gte: 0 } }, order: '-score', limit: 20, skip, ...extra } });

  it('answers every page, its count and its selected keys as the objects are', async () => {
    const seen: string[] = [];
    for (const skip of [0, 20, 40, 60]) {
      const response = await page(skip, { count: 1 });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.count, OBJECTS / 10);
      seen.push(...response.body.results.map((object: { objectId: string }) => object.objectId));
      for (const object of response.body.results) assert.deepEqual(Object.keys(object.ACL), [user.objectId]);
    }
    assert.deepEqual(seen, usersInOrder);
    const keys = await page(5, { keys: 'score', limit: 3 });
    assert.equal(keys.status, 200, keys.text);
    assert.deepEqual(keys.body.results.map((object: Record<string, unknown>) => Object.keys(object).sort()), Array(3).fill(['ACL', 'createdAt', 'objectId', 'score', 'updatedAt']));
    assert.deepEqual(keys.body.results.map((object: { objectId: string }) => object.objectId), usersInOrder.slice(5, 8));
    const anonymous = await app.get(`/1/classes/${className}`, { query: { where: { score: { $gte: 0 } }, order: '-score', limit: 20 } });
    assert.deepEqual(anonymous.body, { results: [] });
  });

  if (target.backend === 'postgres') {
    it('reads only the rows of the page', async () => {
      // A class of its own: rows the other test read would show in the counts below.
      const className = unique('LateRowsRead');
      const inOrder = await seed(className);
      const { client, schema } = await postgresApp(className);
      try {
        await vacuumUntilAllVisible(client, schema, className);
        const rowsRead = () => rowsReadThroughIndexes(client, schema, className);
        const before = await rowsRead();
        await expectIndexScanned(app, className, '%byScore', async () => {
          const response = await page(20, {}, className);
          assert.deepEqual(response.body.results.map((object: { objectId: string }) => object.objectId), inOrder.slice(20, 40));
        });
        // Reading the page through the index row by row would have read the two hundred rows
        // its twenty are among; here each of the twenty is read once, by its id.
        assert.equal(await rowsRead(), before + 20);
      } finally {
        await client.end();
      }
    });
  }
});
