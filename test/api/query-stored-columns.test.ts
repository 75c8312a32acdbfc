import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import { postgresApp, rowsReadThroughIndexes, vacuumUntilAllVisible } from '../helpers/app-database.ts';
import { eachBackend } from '../helpers/each-backend.ts';
import { expectIndexScanned } from '../helpers/index-scans.ts';
import { targets } from '../helpers/targets.ts';
import { as, newUserApp, signUp, type TestUser } from '../helpers/users.ts';

/**
 * Schema indexes over columns that keep a field's reading (docs/architecture.md, "Indexed fields
 * in columns"): on PostgreSQL a count that such an index serves never reads the rows, and every
 * answer stays the one the document gives, on both backends.
 */

const MASTER = { key: 'master' } as const;
const ROWS = 3000;
/** Scores are a permutation of 0 … ROWS-1; the counted range is the top 1000. */
const scoreOf = (i: number) => (i * 7919) % ROWS;
const FROM_SCORE = ROWS - 1000;

const postgres = targets().find((candidate) => candidate.backend === 'postgres');

/** The class's columns and index definitions, read from PostgreSQL's catalog. */
async function catalog(client: pg.Client, schema: string, className: string): Promise<{ columns: Map<string, string>; indexes: Map<string, string> }> {
  const columns = await client.query(
    `SELECT column_name, coalesce(generation_expression, '') AS expr FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2`,
    [schema, className],
  );
  const indexes = await client.query('SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2', [schema, className]);
  return {
    columns: new Map(columns.rows.map((row) => [String(row.column_name), String(row.expr)])),
    indexes: new Map(indexes.rows.map((row) => [String(row.indexname), String(row.indexdef)])),
  };
}

describe('stored columns on PostgreSQL', () => {
  let app: AppClient;
  let user: TestUser;

  before(async () => {
    assert.ok(postgres, 'a PostgreSQL server under test');
    app = await newUserApp(postgres);
    user = await signUp(app);
  });

  it('a count of a range is read from the index alone, and stays exact under ACLs and after updates', async () => {
    const className = unique('Counted');
    const created = await app.post(`/1/schemas/${className}`, { fields: { score: { type: 'Number' } }, indexes: { byScore: { score: -1 } } }, MASTER);
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.indexes, { byScore: { score: -1 } }, 'the schema shows nothing of the column');
    const { client, schema } = await postgresApp(className);
    try {
      const { columns, indexes } = await catalog(client, schema, className);
      assert.match(columns.get('f.score') ?? '', /data ->> 'score'.*double precision/);
      assert.equal(columns.get('_public'), "(_rperm && '{*}'::text[])");
      const [definition] = [...indexes.entries()].filter(([name]) => name.endsWith('byScore')).map(([, def]) => def);
      assert.match(definition ?? '', /\("f\.score" DESC NULLS LAST.*\) INCLUDE \(_rperm, _public\)$/);

      // A third public, a third the user's, a third someone else's.
      const rperm = (i: number) => (i % 3 === 0 ? '*' : i % 3 === 1 ? user.objectId : 'someoneElse');
      await client.query(
        `INSERT INTO "${schema}"."${className}" ("objectId", "createdAt", "updatedAt", "_rperm", "_wperm", "data")
         SELECT 'o' || lpad(i::text, 9, '0'), '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z',
                ARRAY[CASE i % 3 WHEN 0 THEN '*' WHEN 1 THEN $1 ELSE 'someoneElse' END], ARRAY['*'],
                jsonb_build_object('score', (i * 7919) % ${ROWS}, 'ACL', jsonb_build_object(CASE i % 3 WHEN 0 THEN '*' WHEN 1 THEN $1 ELSE 'someoneElse' END, jsonb_build_object('read', true)))
         FROM generate_series(0, ${ROWS - 1}) AS "g"("i")`,
        [user.objectId],
      );
      await vacuumUntilAllVisible(client, schema, className);
      const inRange = Array.from({ length: ROWS }, (_, i) => i).filter((i) => scoreOf(i) >= FROM_SCORE);
      const expected = (principals: string[]) => inRange.filter((i) => principals.includes(rperm(i))).length;

      const count = async (options: Parameters<AppClient['get']>[1] = {}) => {
        const response = await app.get(`/1/classes/${className}`, { ...options, query: { where: { score: { $gte: FROM_SCORE } }, count: 1, limit: 0 } });
        assert.equal(response.status, 200, response.text);
        return response.body.count as number;
      };
      const heapFetches = () => rowsReadThroughIndexes(client, schema, className);
      const fetchedBefore = await heapFetches();
      await expectIndexScanned(app, className, '%byScore', async () => {
        assert.equal(await count(), expected(['*']), 'anonymous');
        assert.equal(await count(as(user.sessionToken)), expected(['*', user.objectId]), 'the user');
        assert.equal(await count(MASTER), 1000, 'the master key');
      });
      // Any row read through an index (an index scan, a bitmap heap scan) counts here; an
      // index-only scan of all-visible pages reads none.
      assert.equal(await heapFetches(), fetchedBefore, 'no row was read to count');

      // Writes show at once: a public object moves into the range, another loses its score, and
      // one in the range is made private.
      const outside = Array.from({ length: ROWS }, (_, i) => i).find((i) => i % 3 === 0 && scoreOf(i) < FROM_SCORE)!;
      const [first, second] = inRange.filter((i) => i % 3 === 0);
      const id = (i: number) => `o${String(i).padStart(9, '0')}`;
      const put = async (i: number, body: Record<string, unknown>) => {
        const response = await app.put(`/1/classes/${className}/${id(i)}`, body, MASTER);
        assert.equal(response.status, 200, response.text);
      };
      await put(outside, { score: ROWS + 5 });
      assert.equal(await count(), expected(['*']) + 1, 'moved into the range');
      await put(first!, { score: { __op: 'Delete' } });
      assert.equal(await count(), expected(['*']), 'score removed');
      await put(second!, { ACL: { [user.objectId]: { read: true } } });
      assert.equal(await count(), expected(['*']) - 1, 'made private');
      assert.equal(await count(as(user.sessionToken)), expected(['*', user.objectId]), 'the user still reads it');
      const top = await app.get(`/1/classes/${className}`, { query: { where: { score: { $gte: FROM_SCORE } }, order: '-score', limit: 1, keys: 'score' } });
      assert.deepEqual(top.body.results.map((object: { score: number }) => object.score), [ROWS + 5]);
    } finally {
      await client.end();
    }
  });

  it('a column lives as long as an index over it: shared by two indexes, dropped with the last, or with its field', async () => {
    const className = unique('Dropped');
    const fields = { score: { type: 'Number' }, name: { type: 'String' } };
    const created = await app.post(`/1/schemas/${className}`, { fields, indexes: { byScore: { score: 1 }, byBoth: { score: -1, name: 1 } } }, MASTER);
    assert.equal(created.status, 201, created.text);
    for (const [name, score] of [['a', 1], ['b', 2], ['c', 3]] as const) assert.equal((await app.post(`/1/classes/${className}`, { name, score })).status, 201);
    const { client, schema } = await postgresApp(className);
    const stored = async () => {
      const { columns, indexes } = await catalog(client, schema, className);
      const schemaIndexes = [...indexes.keys()].filter((name) => name.includes('_idx:')).map((name) => name.split('_idx:')[1]).sort();
      return { columns: [...columns.keys()].filter((name) => name.startsWith('f.') || name === '_public').sort(), indexes: schemaIndexes };
    };
    const names = async (where: object) => {
      const response = await app.get(`/1/classes/${className}`, { query: { where, order: '-score' } });
      assert.equal(response.status, 200, response.text);
      return response.body.results.map((object: { name: string }) => object.name);
    };
    try {
      assert.deepEqual(await stored(), { columns: ['_public', 'f.name', 'f.score'], indexes: ['byBoth', 'byScore'] });
      assert.deepEqual(await names({ score: { $gte: 2 } }), ['c', 'b']);

      assert.equal((await app.put(`/1/schemas/${className}`, { indexes: { byScore: { __op: 'Delete' } } }, MASTER)).status, 200);
      assert.deepEqual(await stored(), { columns: ['_public', 'f.name', 'f.score'], indexes: ['byBoth'] }, 'byBoth still reads f.score');
      assert.deepEqual(await names({ score: { $gte: 2 } }), ['c', 'b']);

      assert.equal((await app.put(`/1/schemas/${className}`, { indexes: { byBoth: { __op: 'Delete' } } }, MASTER)).status, 200);
      assert.deepEqual(await stored(), { columns: [], indexes: [] }, 'the last index took its columns');
      assert.deepEqual(await names({ score: { $gte: 2 }, name: { $ne: 'x' } }), ['c', 'b'], 'read from the document again');

      // An index added again makes its column again; deleting its field drops both.
      assert.equal((await app.put(`/1/schemas/${className}`, { indexes: { byName: { name: 1 } } }, MASTER)).status, 200);
      assert.deepEqual(await stored(), { columns: ['_public', 'f.name'], indexes: ['byName'] });
      assert.deepEqual(await names({ name: { $in: ['a', 'c'] } }), ['c', 'a']);
      const fieldGone = await app.put(`/1/schemas/${className}`, { fields: { name: { __op: 'Delete' } } }, MASTER);
      assert.equal(fieldGone.status, 200, fieldGone.text);
      assert.deepEqual(fieldGone.body.indexes, {});
      assert.deepEqual(await stored(), { columns: [], indexes: [] });
      assert.deepEqual(await names({ score: { $gt: 0 } }), [undefined, undefined, undefined]);
    } finally {
      await client.end();
    }
  });

  it('indexes over columns made before the public-read column are made again with it when the next one comes', async () => {
    const className = unique('Unflagged');
    const fields = { score: { type: 'Number' }, name: { type: 'String' } };
    assert.equal((await app.post(`/1/schemas/${className}`, { fields, indexes: { byScore: { score: -1 } } }, MASTER)).status, 201);
    for (const [name, score, ACL] of [['a', 1, undefined], ['b', 2, {}], ['c', 3, undefined], ['d', 4, { [user.objectId]: { read: true } }]] as const) {
      assert.equal((await app.post(`/1/classes/${className}`, { name, score, ...(ACL ? { ACL } : {}) }, MASTER)).status, 201);
    }
    const { client, schema } = await postgresApp(className);
    const table = `"${schema}"."${className}"`;
    const schemaRow = async () => JSON.parse(String((await client.query(`SELECT "schema" FROM "${schema}"."_SCHEMA" WHERE "className" = $1`, [className])).rows[0].schema));
    const answers = async () => {
      const read = async (options: Parameters<AppClient['get']>[1] = {}) => {
        const response = await app.get(`/1/classes/${className}`, { ...options, query: { where: { score: { $gte: 2 } }, order: '-score', count: 1 } });
        assert.equal(response.status, 200, response.text);
        return [response.body.count, ...response.body.results.map((object: { name: string }) => object.name)];
      };
      return { anyone: await read(), user: await read(as(user.sessionToken)) };
    };
    const expected = { anyone: [1, 'c'], user: [2, 'd', 'c'] };
    try {
      assert.equal((await schemaRow()).publicColumn, true);
      // As the version before the column left the class: its index carries the list alone.
      await client.query(`DROP INDEX "${schema}"."${className}_idx:byScore"`);
      await client.query(`ALTER TABLE ${table} DROP COLUMN "_public"`);
      await client.query(`CREATE INDEX "${className}_idx:byScore" ON ${table} ("f.score" DESC NULLS LAST, "objectId") INCLUDE ("_rperm")`);
      const { publicColumn: _dropped, ...older } = await schemaRow();
      await client.query(`UPDATE "${schema}"."_SCHEMA" SET "schema" = $1 WHERE "className" = $2`, [JSON.stringify(older), className]);
      // Any schema change makes the server read the schemas again.
      assert.equal((await app.put(`/1/schemas/${className}`, { fields: { note: { type: 'String' } } }, MASTER)).status, 200);
      assert.deepEqual(await answers(), expected, 'without the column, the list is tested');

      assert.equal((await app.put(`/1/schemas/${className}`, { indexes: { byName: { name: 1 } } }, MASTER)).status, 200);
      const { columns, indexes } = await catalog(client, schema, className);
      assert.equal(columns.get('_public'), "(_rperm && '{*}'::text[])");
      assert.match(indexes.get(`${className}_idx:byScore`) ?? '', /\("f\.score" DESC NULLS LAST, "objectId"\) INCLUDE \(_rperm, _public\)$/);
      assert.match(indexes.get(`${className}_idx:byName`) ?? '', /\("f\.name" NULLS FIRST, "objectId"\) INCLUDE \(_rperm, _public\)$/);
      assert.equal((await schemaRow()).publicColumn, true);
      await expectIndexScanned(app, className, '%idx:byScore', async () => assert.deepEqual(await answers(), expected, 'with the column'));
    } finally {
      await client.end();
    }
  });

  it('an index made on the document expression (before columns) keeps serving its field until one over a column takes over', async () => {
    const className = unique('Older');
    assert.equal((await app.post(`/1/schemas/${className}`, { fields: { score: { type: 'Number' } } }, MASTER)).status, 201);
    for (const score of [1, 2, 3]) assert.equal((await app.post(`/1/classes/${className}`, { score })).status, 201);
    const { client, schema } = await postgresApp(className);
    try {
      // What earlier versions made for {"old": {"score": 1}}.
      await client.query(`CREATE INDEX "${className}_idx:old" ON "${schema}"."${className}" (((("data"->>'score')::float8)) ASC NULLS FIRST)`);
      const row = await client.query(`SELECT "schema" FROM "${schema}"."_SCHEMA" WHERE "className" = $1`, [className]);
      const old = { ...JSON.parse(String(row.rows[0].schema)), indexes: { old: { score: 1 } } };
      await client.query(`UPDATE "${schema}"."_SCHEMA" SET "schema" = $1 WHERE "className" = $2`, [JSON.stringify(old), className]);
      // Any schema change makes the server read the schemas again.
      assert.equal((await app.put(`/1/schemas/${className}`, { fields: { note: { type: 'String' } } }, MASTER)).status, 200);
      const scores = async () => {
        const response = await app.get(`/1/classes/${className}`, { query: { where: { score: { $gt: 1 } }, order: 'score', count: 1 } });
        assert.equal(response.status, 200, response.text);
        return [response.body.count, ...response.body.results.map((object: { score: number }) => object.score)];
      };
      await expectIndexScanned(app, className, '%idx:old', async () => assert.deepEqual(await scores(), [2, 2, 3]));

      assert.equal((await app.put(`/1/schemas/${className}`, { indexes: { byScore: { score: -1 } } }, MASTER)).status, 200);
      await expectIndexScanned(app, className, '%idx:byScore', async () => assert.deepEqual(await scores(), [2, 2, 3]));
      assert.equal((await app.put(`/1/schemas/${className}`, { indexes: { byScore: { __op: 'Delete' } } }, MASTER)).status, 200);
      await expectIndexScanned(app, className, '%idx:old', async () => assert.deepEqual(await scores(), [2, 2, 3]));
      assert.equal((await app.put(`/1/schemas/${className}`, { indexes: { old: { __op: 'Delete' } } }, MASTER)).status, 200);
      const { indexes } = await catalog(client, schema, className);
      assert.deepEqual([...indexes.keys()].filter((name) => name.includes('_idx:')), []);
      assert.deepEqual(await scores(), [2, 2, 3]);
    } finally {
      await client.end();
    }
  });
});

eachBackend('indexed fields answer as the document does', (target) => {
  let app: AppClient;

  before(async () => {
    app = await newApp(target);
  });

  it('every constraint and sort on a String, Number, Boolean, Date or Pointer field gives the same answer with and without its index', async () => {
    const className = unique('Same');
    const fields = {
      title: { type: 'String' },
      score: { type: 'Number' },
      flag: { type: 'Boolean' },
      due: { type: 'Date' },
      owner: { type: 'Pointer', targetClass: '_User' },
      body: { type: 'String' },
    };
    assert.equal((await app.post(`/1/schemas/${className}`, { fields, indexes: { byBodyText: { body: 'text' } } }, MASTER)).status, 201);
    const date = (day: number) => ({ __type: 'Date', iso: `2024-01-0${day}T00:00:00.000Z` });
    const owner = (id: string) => ({ __type: 'Pointer', className: '_User', objectId: id });
    const objects: Record<string, unknown>[] = [
      { n: 1, title: 'abc', score: 1.5, flag: true, due: date(1), owner: owner('u1'), body: 'quick brown fox' },
      { n: 2, title: 'abd', score: -2, flag: false, due: date(2), owner: owner('u2'), body: 'lazy dog' },
      { n: 3, title: 'B', score: 0, flag: true, due: date(3), owner: owner('u1'), body: 'the quick dog' },
      { n: 4, title: '', score: 1e9, flag: false },
      { n: 5, title: null, score: null, flag: null, due: null, owner: null, body: null },
      { n: 6 },
      { n: 7, title: 'é', score: 1.5, ACL: {} },
    ];
    for (const object of objects) {
      const created = await app.post(`/1/classes/${className}`, object);
      assert.equal(created.status, 201, created.text);
    }
    const queries: Record<string, unknown>[] = [
      { where: { title: 'abc' } },
      { where: { title: { $gte: 'abc', $lt: 'b' } } },
      { where: { title: { $regex: '^ab' } } },
      { where: { title: { $ne: 'abc' } } },
      { where: { title: { $in: ['B', '', 'é'] } } },
      { where: { title: { $nin: ['B'] } } },
      { where: { title: { $exists: true } } },
      { where: { title: { $exists: false } } },
      { where: { title: null } },
      { where: { score: { $gt: 0 } } },
      { where: { score: { $lte: 1.5 } } },
      { where: { score: 1.5 } },
      { where: { score: { $ne: 0 } } },
      { where: { score: { $in: [0, -2] } } },
      { where: { flag: true } },
      { where: { flag: { $ne: true } } },
      { where: { due: { $gte: date(2) } } },
      { where: { due: { $exists: true } } },
      { where: { owner: owner('u1') } },
      { where: { owner: { $ne: owner('u1') } } },
      { where: { owner: { $in: [owner('u2')] } } },
      { where: { body: { $text: { $search: { $term: 'quick' } } } } },
      { where: { $or: [{ score: { $lt: 0 } }, { title: 'B' }] } },
      { where: { score: { $gt: 'x' } } },
      { order: 'title' },
      { order: '-title,n' },
      { order: 'score' },
      { order: '-score,n' },
      { order: 'flag,n' },
      { order: '-due,n' },
      { order: 'owner,n' },
      { where: { score: { $gte: -2 } }, order: '-score', limit: 2, skip: 1 },
    ];
    const answers = async (options: Parameters<AppClient['get']>[1] = {}) => {
      const all: unknown[] = [];
      for (const query of queries) {
        const response = await app.get(`/1/classes/${className}`, { ...options, query: { ...query, count: 1, keys: 'n' } });
        assert.equal(response.status, 200, `${JSON.stringify(query)}: ${response.text}`);
        const ns = response.body.results.map((object: { n: number }) => object.n);
        all.push({ query, count: response.body.count, n: query.order ? ns : ns.sort() });
      }
      return all;
    };
    const before_ = { anyone: await answers(), master: await answers(MASTER) };
    const indexes = { byTitle: { title: 1 }, byScore: { score: -1 }, byFlag: { flag: 1 }, byDue: { due: -1 }, byOwner: { owner: 1 }, byBody: { body: 1, score: 1 } };
    const indexed = await app.put(`/1/schemas/${className}`, { indexes }, MASTER);
    assert.equal(indexed.status, 200, indexed.text);
    assert.deepEqual(await answers(), before_.anyone, 'anyone, with the indexes');
    assert.deepEqual(await answers(MASTER), before_.master, 'the master key, with the indexes');
    // Writes through the columns: a changed, a removed and a new value.
    const first = await app.get(`/1/classes/${className}`, { query: { where: { n: 1 } } });
    const id = first.body.results[0].objectId as string;
    assert.equal((await app.put(`/1/classes/${className}/${id}`, { title: 'zz', score: { __op: 'Increment', amount: 10 } })).status, 200);
    const updated = await app.get(`/1/classes/${className}`, { query: { where: { title: 'zz', score: 11.5 }, keys: 'n', count: 1 } });
    assert.deepEqual([updated.body.count, updated.body.results.map((object: { n: number }) => object.n)], [1, [1]]);
    assert.equal((await app.put(`/1/classes/${className}/${id}`, { title: { __op: 'Delete' } })).status, 200);
    const missing = await app.get(`/1/classes/${className}`, { query: { where: { title: { $exists: false } }, keys: 'n' } });
    assert.deepEqual(missing.body.results.map((object: { n: number }) => object.n).sort(), [1, 5, 6]);
    if (target.backend === 'postgres') {
      // The text index is on the document's expression; the query still finds it. Objects without
      // the word make walking the table in objectId order the dearer plan: with seven rows either
      // plan is as good, and time-ordered ids make the walk look cheap.
      const fillers = Array.from({ length: 50 }, (_, i) => ({ method: 'POST', path: `/1/classes/${className}`, body: { n: 100 + i, body: `filler text ${i}` } }));
      for (let i = 0; i < 4; i++) assert.equal((await app.post('/1/batch', { requests: fillers })).status, 200);
      await expectIndexScanned(app, className, '%byBodyText', async () => {
        const found = await app.get(`/1/classes/${className}`, { query: { where: { body: { $text: { $search: { $term: 'dog' } } } }, keys: 'n' } });
        assert.deepEqual(found.body.results.map((object: { n: number }) => object.n).sort(), [2, 3]);
      });
    }
  });
});
