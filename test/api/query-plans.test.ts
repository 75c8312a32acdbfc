import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import pg from 'pg';
import { unique, type AppClient } from '../helpers/client.ts';
import { postgresApp, sqliteApp } from '../helpers/app-database.ts';
import { targets } from '../helpers/targets.ts';
import { as, newUserApp, signUp, type TestUser } from '../helpers/users.ts';

/**
 * How the databases run a query under the caller's read permission (docs/architecture.md, "Query
 * plans"). PostgreSQL counts every scan of an index and every entry read from it, so the
 * statements the server itself sends are checked, not plans for text written to match them.
 */

const MASTER = { key: 'master' } as const;
/** Objects in the class; scores are a permutation of 0 … ROWS-1 scattered over the table. */
const ROWS = 20_000;
const SCORE_STEP = 7919;
const scoreOf = (i: number) => (i * SCORE_STEP) % ROWS;
/** The range the queries ask for: the top thousand scores. */
const FROM_SCORE = ROWS - 1000;
const PAGE = 20;

interface IndexCounts {
  readonly scans: number;
  readonly entries: number;
}

/** A pg connection to the test database and the schema of the app holding the class. */
class PostgresClass {
  private constructor(readonly client: pg.Client, readonly schema: string, readonly className: string) {}

  static async open(className: string): Promise<PostgresClass> {
    const { client, schema } = await postgresApp(className);
    return new PostgresClass(client, schema, className);
  }

  /**
   * Writes ROWS objects straight into the class table (the API would take minutes), each with the
   * permission list `rpermSql` gives for row `i`, then (unless `analyze` is false) gathers
   * statistics as autovacuum would.
   */
  async fill(rpermSql: string, aclSql: string, analyze = true): Promise<void> {
    await this.client.query(
      `INSERT INTO "${this.schema}"."${this.className}" ("objectId", "createdAt", "updatedAt", "_rperm", "_wperm", "data")
       SELECT 'o' || lpad(i::text, 9, '0'), '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z', ${rpermSql}, ARRAY[]::text[],
              jsonb_build_object('score', (i * ${SCORE_STEP}) % ${ROWS}, 'ACL', ${aclSql})
       FROM generate_series(0, ${ROWS - 1}) AS "g"("i")`,
    );
    if (analyze) await this.client.query(`VACUUM (ANALYZE) "${this.schema}"."${this.className}"`);
  }

  /** Scans and entries read so far of the class's indexes whose name contains `fragment`. */
  async counts(fragment: string): Promise<IndexCounts> {
    await this.client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await this.client.query(
      `SELECT coalesce(sum(idx_scan), 0)::int AS scans, coalesce(sum(idx_tup_read), 0)::int AS entries FROM pg_stat_user_indexes WHERE schemaname = $1 AND relname = $2 AND indexrelname LIKE $3`,
      [this.schema, this.className, `%${fragment}%`],
    );
    return { scans: Number(rows[0].scans), entries: Number(rows[0].entries) };
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}

/**
 * A server connection reports its statistics when it next runs a statement, at most once a
 * second, and otherwise after 10 s idle; the queries ran on several pooled connections. Cheap
 * requests that touch none of the indexes are made until the indexes named by `fragment` show
 * `scans` more scans: the connections that ran them have then reported all they did, on the
 * `_rperm` index too.
 */
async function settledCounts(app: AppClient, table: PostgresClass, fragment: string, before: IndexCounts, scans: number): Promise<{ score: IndexCounts; rperm: IndexCounts }> {
  let score = await table.counts(fragment);
  for (let attempt = 0; attempt < 150 && score.scans - before.scans < scans; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    await app.get(`/1/classes/${table.className}/none`);
    score = await table.counts(fragment);
  }
  return { score, rperm: await table.counts('_rperm') };
}

/** Fills the class with one object in ten the user's alone, the rest someone else's alone. */
async function fillTenthsOf(table: PostgresClass, userId: string, analyze = true): Promise<void> {
  const userSql = `'${userId}'`;
  await table.fill(
    `CASE WHEN i % 10 = 0 THEN ARRAY[${userSql}] ELSE ARRAY['someoneElse'] END`,
    `jsonb_build_object(CASE WHEN i % 10 = 0 THEN ${userSql} ELSE 'someoneElse' END, jsonb_build_object('read', true))`,
    analyze,
  );
}

/**
 * A class with an index on score and its reader index: an object anyone may not read is there
 * when the index is made (docs/architecture.md, "Reader indexes"), and gone after.
 */
async function scoredClass(app: AppClient): Promise<string> {
  const className = unique('Scored');
  const created = await app.post(`/1/schemas/${className}`, { fields: { score: { type: 'Number' } } }, MASTER);
  assert.equal(created.status, 201, created.text);
  const held = await app.post(`/1/classes/${className}`, { score: 0, ACL: { someone: { read: true } } }, MASTER);
  assert.equal(held.status, 201, held.text);
  const indexed = await app.put(`/1/schemas/${className}`, { indexes: { byScore: { score: -1 } } }, MASTER);
  assert.equal(indexed.status, 200, indexed.text);
  assert.equal((await app.delete(`/1/classes/${className}/${held.body.objectId}`, MASTER)).status, 200);
  return className;
}

const postgres = targets().find((candidate) => candidate.backend === 'postgres');

describe('read permission in PostgreSQL plans', () => {
  let app: AppClient;
  let user: TestUser;

  before(async () => {
    assert.ok(postgres, 'a PostgreSQL server under test');
    app = await newUserApp(postgres);
    user = await signUp(app);
  });

  it("a user's range query in index order reads the user's own entries of the reader index, not every reader's, nor the `_rperm` index", async () => {
    // One object in ten is the user's; the rest belong to someone else, as in the benchmark's
    // users suite. Reading the user's whole entry of the GIN index (2,000 objects) and sorting
    // would cost more than walking the score index until twenty readable objects turn up (about
    // 200 entries); the reader index holds the user's entries together, in score order.
    const className = await scoredClass(app);
    const table = await PostgresClass.open(className);
    try {
      await fillTenthsOf(table, user.objectId);
      const expected = Array.from({ length: ROWS }, (_, i) => i)
        .filter((i) => i % 10 === 0 && scoreOf(i) >= FROM_SCORE)
        .sort((a, b) => scoreOf(b) - scoreOf(a))
        .slice(0, PAGE)
        .map((i) => scoreOf(i));
      const query = { where: { score: { $gte: FROM_SCORE } }, order: '-score', limit: PAGE, keys: 'score' };
      const before_ = { score: await table.counts('rdr:byScore'), rperm: await table.counts('_rperm'), walked: await table.counts('idx:byScore') };
      // More runs than the five after which a prepared statement may switch to a generic plan.
      const runs = 8;
      for (let run = 0; run < runs; run++) {
        const response = await app.get(`/1/classes/${className}`, { query, ...as(user.sessionToken) });
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body.results.map((object: { score: number }) => object.score), expected, `run ${run + 1}`);
      }
      // Every list is of one principal, so two reads a run: the user's arm (the page) and the check
      // that the class holds no list of "*" or of several readers (no entry), not their two arms.
      const after_ = await settledCounts(app, table, 'rdr:byScore', before_.score, runs * 2);
      assert.equal(after_.rperm.scans, before_.rperm.scans, 'the _rperm index was not read');
      assert.equal(after_.score.scans - before_.score.scans, runs * 2, 'the reader index served the arm and the check of every run, once each');
      assert.deepEqual(await table.counts('idx:byScore'), before_.walked, 'the score index was not walked');
      // Walking the score index read about 200 entries a run; the user's own entries are the page
      // and the one after it, which ends the page's last score.
      const perRun = (after_.score.entries - before_.score.entries) / runs;
      assert.ok(perRun <= PAGE + 1, `only the page was read: ${perRun} reader index entries read per run`);
    } finally {
      await table.close();
    }
  });

  it("in a class of own lists not yet analyzed, a user's page checks for other lists in the reader index, never by walking the table", async () => {
    // With no statistics, PostgreSQL would answer "is there an entry of '' or '*'" by walking the
    // table until one turns up, which in a class of own lists is every row, on every page.
    const className = await scoredClass(app);
    const table = await PostgresClass.open(className);
    try {
      await fillTenthsOf(table, user.objectId, false);
      const query = { where: { score: { $gte: FROM_SCORE } }, order: '-score', limit: PAGE, keys: 'score' };
      const before_ = await table.counts('rdr:byScore');
      const runs = 8;
      for (let run = 0; run < runs; run++) {
        const response = await app.get(`/1/classes/${className}`, { query, ...as(user.sessionToken) });
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.results.length, PAGE, `run ${run + 1}`);
      }
      // A walk would leave the reader index one scan a run (the arm's). The table's own count of
      // walks is no witness here: with no statistics the gets by id that wait for these counts walk it.
      const after_ = await settledCounts(app, table, 'rdr:byScore', before_, runs * 2);
      assert.equal(after_.score.scans - before_.scans, runs * 2, 'the reader index served the arm and the check of every run');
    } finally {
      await table.close();
    }
  });

  it('a page of one value of a field an index holds alone, for a value many objects hold and one none does, picks its ids from that index on one plan', async () => {
    // Planned for each value, PostgreSQL spent more planning such a page than reading it; planned
    // once on its own, it walked the primary key testing each row, the whole table for a value no
    // row holds. The page is written to pick its ids from the index alone, then read their rows.
    const className = unique('Sorted');
    const created = await app.post(`/1/schemas/${className}`, { fields: { category: { type: 'String' } }, indexes: { byCategory: { category: 1 } } }, MASTER);
    assert.equal(created.status, 201, created.text);
    const table = await PostgresClass.open(className);
    try {
      await table.client.query(
        `INSERT INTO "${table.schema}"."${className}" ("objectId", "createdAt", "updatedAt", "_rperm", "_wperm", "data")
         SELECT 'o' || lpad(i::text, 9, '0'), '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z', ARRAY['*'], ARRAY[]::text[],
                jsonb_build_object('category', 'c' || (i % 10), 'ACL', jsonb_build_object('*', jsonb_build_object('read', true)))
         FROM generate_series(0, ${ROWS - 1}) AS "g"("i")`,
      );
      await table.client.query(`VACUUM (ANALYZE) "${table.schema}"."${className}"`);
      const before_ = { category: await table.counts('idx:byCategory'), key: await table.counts('pkey') };
      const runs = 8;
      const expected = Array.from({ length: PAGE }, (_, k) => `o${String(3 + 10 * k).padStart(9, '0')}`);
      for (let run = 0; run < runs; run++) {
        const held = await app.get(`/1/classes/${className}`, { query: { where: { category: 'c3' }, limit: PAGE, keys: 'category' } });
        assert.equal(held.status, 200, held.text);
        assert.deepEqual(held.body.results.map((object: { objectId: string }) => object.objectId), expected, `run ${run + 1}`);
        const none = await app.get(`/1/classes/${className}`, { query: { where: { category: 'none' }, limit: PAGE } });
        assert.deepEqual([none.status, none.body], [200, { results: [] }], `run ${run + 1}`);
      }
      const after_ = await settledCounts(app, table, 'idx:byCategory', before_.category, runs * 2);
      assert.equal(after_.score.scans - before_.category.scans, runs * 2, 'the index served every page, once');
      // A walk of the primary key reads all 20,000 entries for "none"; reading the page's rows by
      // their ids reads 20 a page (and the waiting requests one each).
      const key = await table.counts('pkey');
      assert.ok(key.entries - before_.key.entries < ROWS, `${key.entries - before_.key.entries} primary key entries read`);
      // The plan made once for any values (explain shows it): the ids from the index alone.
      const explained = await app.get(`/1/classes/${className}`, { ...MASTER, query: { where: JSON.stringify({ category: 'none' }), explain: 'true' } });
      assert.equal(explained.status, 200, explained.text);
      const plan = JSON.stringify(explained.body);
      assert.match(plan, /"Node Type":"Index Only Scan"[^}]*"Index Name":"[^"]*idx:byCategory"/, plan);
      assert.match(plan, /"Index Cond":"\(\\"f\.category\\" = \$1\)"/, plan);
      assert.doesNotMatch(plan, /"Filter":"[^"]*f\.category/, plan);
    } finally {
      await table.close();
    }
  });

  it('a count of a range that anyone may read, repeated, never reads the `_rperm` index', async () => {
    // A prepared statement switches to a plan made for any values after five runs. Such a plan
    // guesses that `_rperm && $1` matches 1% of the rows and ANDs a bitmap of the whole `_rperm`
    // index (every object holds `*`) with the range, ten times the work of counting the range.
    const className = await scoredClass(app);
    const table = await PostgresClass.open(className);
    try {
      await table.fill(`ARRAY['*']`, `jsonb_build_object('*', jsonb_build_object('read', true))`);
      const before_ = { score: await table.counts('idx:byScore'), rperm: await table.counts('_rperm') };
      const runs = 8;
      for (let run = 0; run < runs; run++) {
        const response = await app.get(`/1/classes/${className}`, { query: { where: { score: { $gte: FROM_SCORE } }, count: 1, limit: 0 } });
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body, { results: [], count: 1000 }, `run ${run + 1}`);
      }
      const after_ = await settledCounts(app, table, 'idx:byScore', before_.score, runs);
      assert.equal(after_.rperm.scans, before_.rperm.scans, 'the _rperm index was not read');
      assert.equal(after_.score.scans - before_.score.scans, runs, 'the score index served every run, once');
    } finally {
      await table.close();
    }
  });

  it("an include's lookup by id, repeated, reads the primary key only and still hides what the caller may not read", async () => {
    // The lookup leaves the read permission out of SQL and checks it per object, so that its
    // statement keeps a plan made once: the primary key, whatever the caller.
    const targetClass = unique('Target');
    assert.equal((await app.post(`/1/schemas/${targetClass}`, { fields: { score: { type: 'Number' } } }, MASTER)).status, 201);
    const table = await PostgresClass.open(targetClass);
    try {
      // Even rows are public, odd rows the user's alone.
      await table.fill(
        `CASE WHEN i % 2 = 0 THEN ARRAY['*'] ELSE ARRAY['${user.objectId}'] END`,
        `jsonb_build_object(CASE WHEN i % 2 = 0 THEN '*' ELSE '${user.objectId}' END, jsonb_build_object('read', true))`,
      );
      const holderClass = unique('Holder');
      const ids = [0, 1, 2, 3, 4].map((i) => `o${String(i).padStart(9, '0')}`);
      for (const [n, id] of ids.entries()) {
        const created = await app.post(`/1/classes/${holderClass}`, { n, target: { __type: 'Pointer', className: targetClass, objectId: id } });
        assert.equal(created.status, 201, created.text);
      }
      const included = async (options: Parameters<AppClient['get']>[1] = {}) => {
        const response = await app.get(`/1/classes/${holderClass}`, { ...options, query: { include: 'target', order: 'n' } });
        assert.equal(response.status, 200, response.text);
        return response.body.results.map((object: { target: { __type: string; score?: number } }) => `${object.target.__type}:${object.target.score ?? ''}`);
      };
      const before_ = { pkey: await table.counts('pkey'), rperm: await table.counts('_rperm') };
      const runs = 8;
      for (let run = 0; run < runs; run++) {
        assert.deepEqual(await included(), ['Object:0', 'Pointer:', `Object:${scoreOf(2)}`, 'Pointer:', `Object:${scoreOf(4)}`], `run ${run + 1}`);
      }
      assert.deepEqual(await included(as(user.sessionToken)), ids.map((_, i) => `Object:${scoreOf(i)}`), 'the user reads all five');
      // PostgreSQL before 17 counts a scan per id of an `IN` list: wait for every lookup to be
      // reported in either way (all five ids, or no change for 1.5 s after each lookup's first).
      const lookups = runs + 1;
      let pkey = await table.counts('pkey');
      for (let attempt = 0, still = 0; attempt < 150 && pkey.scans - before_.pkey.scans < lookups * ids.length && still < 15; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        await app.get(`/1/classes/${holderClass}/none`);
        const next = await table.counts('pkey');
        still = next.scans === pkey.scans && next.scans - before_.pkey.scans >= lookups ? still + 1 : 0;
        pkey = next;
      }
      assert.ok(pkey.scans - before_.pkey.scans >= lookups, 'the primary key served every lookup');
      assert.equal((await table.counts('_rperm')).scans, before_.rperm.scans, 'the _rperm index was not read');
    } finally {
      await table.close();
    }
  });
});

describe('read permission on SQLite', () => {
  const sqlite = targets().find((candidate) => candidate.backend === 'sqlite');
  let app: AppClient;

  before(async () => {
    assert.ok(sqlite, 'a SQLite server under test');
    app = await newUserApp(sqlite);
  });

  it('a count of a range that an index serves is answered from the index alone', async () => {
    // Plain schema indexes end with objectId and `_rperm`, so the ACL filter reads the list from the index.
    const scored = await scoredClass(app);
    for (const score of [1, 5, 9]) assert.equal((await app.post(`/1/classes/${scored}`, { score })).status, 201);
    const counted = await app.get(`/1/classes/${scored}`, { query: { where: { score: { $gte: 5 } }, count: 1, limit: 0 } });
    assert.deepEqual(counted.body, { results: [], count: 2 });
    const file = sqliteApp(scored);
    try {
      const index = file.prepare(`SELECT "sql" FROM sqlite_master WHERE "type" = 'index' AND "name" LIKE '%byScore'`).get() as { sql: string };
      assert.match(index.sql, /\(json_extract\("data", '\$\.score'\) DESC, "objectId", "_rperm"\)$/);
      // The statement the SQLite compiler writes for that count (src/sql/sqlite/dialect.ts).
      const acl = `("_rperm" IN ('["*"]') OR (instr("_rperm", ',') > 0 AND EXISTS (SELECT 1 FROM json_each("_rperm") WHERE "value" IN ('*'))))`;
      const rows = file.prepare(`EXPLAIN QUERY PLAN SELECT count(*) AS "n" FROM "${scored}" WHERE (json_extract("data", '$.score') >= 5) AND (${acl})`).all() as { detail: string }[];
      const plan = rows.map((row) => row.detail).join('\n');
      assert.match(plan, /USING COVERING INDEX \S+byScore/, plan);
    } finally {
      file.close();
    }
  });

  it("a user's newest-first page walks the createdAt index alone, and reads only the rows it returns", async () => {
    const owner = await signUp(app);
    const className = unique('Newest');
    for (let i = 0; i < 6; i++) {
      const ACL = i % 3 === 0 ? { [owner.objectId]: { read: true } } : { someoneElse: { read: true } };
      assert.equal((await app.post(`/1/classes/${className}`, { i, ACL })).status, 201);
    }
    const page = await app.get(`/1/classes/${className}`, { ...as(owner.sessionToken), query: { order: '-createdAt', keys: 'i' } });
    assert.deepEqual(page.body.results.map((object: { i: number }) => object.i), [3, 0]);
    const file = sqliteApp(className);
    try {
      // The statement the SQLite compiler writes for that page (src/sql/sqlite/dialect.ts, SqlCompiler.orderBy).
      const acl = `("_rperm" IN ('["*"]', '["${owner.objectId}"]') OR (instr("_rperm", ',') > 0 AND EXISTS (SELECT 1 FROM json_each("_rperm") WHERE "value" IN ('*', '${owner.objectId}'))))`;
      const rows = file.prepare(`EXPLAIN QUERY PLAN SELECT "objectId" FROM "${className}" WHERE ${acl} ORDER BY "createdAt" DESC, "objectId" ASC LIMIT 20`).all() as { detail: string }[];
      const plan = rows.map((row) => row.detail).join('\n');
      // Covering: the list is tested in the index, and only the rows it lets through are read. In
      // the index's order: no sort. Lists with a comma are opened (the correlated subquery).
      assert.equal(rows[0]!.detail, `SCAN ${className} USING COVERING INDEX ${className}_createdAt`, plan);
      assert.doesNotMatch(plan, /TEMP B-TREE/);
    } finally {
      file.close();
    }
  });

  it("a user's range page in index order reads the user's own entries of the reader index, and checks for other lists there", async () => {
    const owner = await signUp(app);
    const className = await scoredClass(app);
    const requests = Array.from({ length: 30 }, (_, i) => ({ method: 'POST', path: `/1/classes/${className}`, body: { score: i, ACL: i % 3 === 0 ? { [owner.objectId]: { read: true } } : { someoneElse: { read: true } } } }));
    assert.equal((await app.post('/1/batch', { requests }, MASTER)).status, 200);
    const page = await app.get(`/1/classes/${className}`, { ...as(owner.sessionToken), query: { where: { score: { $gte: 10 } }, order: '-score', keys: 'score' } });
    assert.deepEqual(page.body.results.map((object: { score: number }) => object.score), [27, 24, 21, 18, 15, 12]);
    const file = sqliteApp(className);
    try {
      const reader = `${className}_rdr:byScore`;
      const definition = file.prepare(`SELECT "sql" FROM sqlite_master WHERE "type" = 'index' AND "name" = ?`).get(reader) as { sql: string } | undefined;
      const key = `(CASE WHEN instr("_rperm", ',') = 0 THEN "_rperm" ELSE '' END)`;
      assert.equal(definition?.sql, `CREATE INDEX "${reader}" ON "${className}" (${key}, json_extract("data", '$.score') DESC, "objectId", "_rperm")`);
      const planOf = (sql: string, ...params: unknown[]) => (file.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail);
      // The statements the SQLite compiler writes for that page (src/sql/sqlite/dialect.ts, `readerArms`).
      const value = `json_extract("data", '$.score')`;
      const columns = `"objectId", "createdAt", "updatedAt", json("data") AS "data"`;
      const own = `SELECT * FROM (SELECT ${columns} FROM "${className}" WHERE ${key} = ? AND ${value} >= ? ORDER BY ${value} DESC, "objectId" ASC LIMIT 100 OFFSET 0) UNION ALL SELECT NULL, NULL, NULL, NULL WHERE (SELECT ${key} FROM "${className}" WHERE ${key} <= '["*"]' ORDER BY ${key} LIMIT 1) IS NOT NULL`;
      const ownPlan = planOf(own, JSON.stringify([owner.objectId]), 10);
      // The page seeks the user's entries from the range's start, in order (no sort); the check reads one entry.
      assert.ok(ownPlan.includes(`SEARCH ${className} USING INDEX ${reader} (<expr>=? AND <expr>>?)`), ownPlan.join('\n'));
      assert.ok(ownPlan.includes(`SEARCH ${className} USING COVERING INDEX ${reader} (<expr><?)`), ownPlan.join('\n'));
      assert.ok(!ownPlan.some((step) => step.includes('TEMP B-TREE')), ownPlan.join('\n'));
      const arm = (test: string) => `SELECT ${columns}, ${value} AS "_k0" FROM "${className}" WHERE ${key} = ${test} AND ${value} >= ?`;
      const acl = `("_rperm" IN (?, ?) OR (instr("_rperm", ',') > 0 AND EXISTS (SELECT 1 FROM json_each("_rperm") WHERE "value" IN (?, ?))))`;
      const full = `${arm('?')} UNION ALL ${arm('?')} UNION ALL ${arm("''")} AND (${acl}) ORDER BY "_k0" DESC, "objectId" ASC LIMIT 100 OFFSET 0`;
      const fullPlan = planOf(full, '["*"]', 10, JSON.stringify([owner.objectId]), 10, 10, '["*"]', JSON.stringify([owner.objectId]), '*', owner.objectId);
      // Three arms, each a seek of the reader index in the page's order, merged.
      assert.equal(fullPlan.filter((step) => step === `SEARCH ${className} USING INDEX ${reader} (<expr>=? AND <expr>>?)`).length, 3, fullPlan.join('\n'));
      assert.ok(fullPlan.includes('MERGE (UNION ALL)'), fullPlan.join('\n'));
      assert.ok(!fullPlan.some((step) => step.includes('TEMP B-TREE')), fullPlan.join('\n'));
    } finally {
      file.close();
    }
  });

  it('a permission list in another spelling than the server writes grants the same reads', async () => {
    // Lists of one principal are matched by their text alone; one written with spaces or
    // escapes (by a tool) is written again in the server's spelling (sqlite/read-lists.ts).
    const owner = await signUp(app);
    const className = unique('Spelled');
    const ids = new Map<string, string>();
    const objects = [
      { name: 'public' },
      { name: 'owned', ACL: { [owner.objectId]: { read: true } } },
      { name: 'shared', ACL: { '*': { read: true }, [owner.objectId]: { read: true, write: true } } },
      { name: 'escaped', ACL: { [owner.objectId]: { read: true } } },
      { name: 'spaced', ACL: { [owner.objectId]: { read: true } } },
      { name: 'other', ACL: { someoneElse: { read: true } } },
    ];
    for (const body of objects) {
      const created = await app.post(`/1/classes/${className}`, body);
      assert.equal(created.status, 201, created.text);
      ids.set(body.name, created.body.objectId);
    }
    const reader = sqliteApp(className);
    const file = reader.name;
    reader.close();
    const writer = new Database(file, { fileMustExist: true, timeout: 10_000 });
    try {
      const respell = writer.prepare(`UPDATE "${className}" SET "_rperm" = ? WHERE "objectId" = ?`);
      respell.run('[ "*" ]', ids.get('public'));
      respell.run(`[\n  "${owner.objectId}"\n]`, ids.get('owned'));
      // An escape and a space inside the brackets: one element each, in another form than the server writes.
      respell.run(`["\\u00${owner.objectId.charCodeAt(0).toString(16)}${owner.objectId.slice(1)}"]`, ids.get('escaped'));
      respell.run(`["${owner.objectId}" ]`, ids.get('spaced'));
    } finally {
      writer.close();
    }
    const names = async (options: Parameters<AppClient['get']>[1]) => {
      const response = await app.get(`/1/classes/${className}`, { ...options, query: { order: 'name', keys: 'name' } });
      assert.equal(response.status, 200, response.text);
      return response.body.results.map((object: { name: string }) => object.name);
    };
    assert.deepEqual(await names({}), ['public', 'shared'], 'anonymous');
    assert.deepEqual(await names(as(owner.sessionToken)), ['escaped', 'owned', 'public', 'shared', 'spaced'], 'the owner');
    const counted = await app.get(`/1/classes/${className}`, { query: { count: 1, limit: 0 }, ...as(owner.sessionToken) });
    assert.deepEqual(counted.body, { results: [], count: 5 });
  });
});
