import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import type { ClassSchema } from '../schema/types.ts';
import { parsePipeline } from '../query/aggregate/parse.ts';
import { parseDistinct } from '../query/aggregate/distinct.ts';
import { compileAggregate } from './aggregate.ts';
import { compileDistinct } from './distinct.ts';
import type { CompiledSql } from './compiler.ts';
import { sqliteDialect } from './sqlite/dialect.ts';
import { postgresDialect } from './postgres/dialect.ts';
import { postgresForSuite } from './postgres/connection.test-helper.ts';

/**
 * The SQL of aggregate pipelines and distinct on each dialect, and the rows each database
 * answers for it over the same objects (sql/aggregate.ts, sql/distinct.ts).
 */

const table = (className: string) => `"${className}"`;
const schema: ClassSchema = {
  className: 'Item',
  fields: { team: { type: 'String' }, score: { type: 'Number' }, when: { type: 'Date' }, active: { type: 'Boolean' }, tags: { type: 'Array' } },
  classLevelPermissions: {},
  indexes: {},
};
const date = (iso: string) => ({ __type: 'Date', iso });
const OBJECTS: [string, Record<string, unknown>][] = [
  ['i1', { team: 'red', score: 10, active: true, when: date('2024-01-01T00:00:00.000Z'), tags: ['x', 1] }],
  ['i2', { team: 'red', score: 20, active: false, when: date('2024-02-01T00:00:00.000Z'), tags: ['y', true] }],
  ['i3', { team: 'blue', score: 5.5, when: date('2024-03-01T00:00:00.000Z'), tags: [{ k: 'v' }, null] }],
  ['i4', { score: 1 }],
];
const CREATE_COLUMNS = `"objectId" TEXT PRIMARY KEY, "createdAt" TEXT NOT NULL, "updatedAt" TEXT NOT NULL, "_rperm" TEXT NOT NULL, "_wperm" TEXT NOT NULL`;

function sqlite(): Database.Database {
  const db = new Database(':memory:');
  db.exec(`CREATE TABLE "Item" (${CREATE_COLUMNS}, "data" BLOB NOT NULL)`);
  const insert = db.prepare(`INSERT INTO "Item" VALUES (?, '2024-05-01T00:00:00.000Z', '2024-05-01T00:00:00.000Z', '["*"]', '["*"]', jsonb(?))`);
  for (const [id, data] of OBJECTS) insert.run(id, JSON.stringify(data));
  return db;
}

describe('aggregate SQL', () => {
  const db = sqlite();
  const postgres = postgresForSuite(async (client) => {
    await client.query(`CREATE TEMP TABLE "Item" ("objectId" text COLLATE "C" PRIMARY KEY, "createdAt" text COLLATE "C" NOT NULL, "updatedAt" text COLLATE "C" NOT NULL, "_rperm" text[] NOT NULL, "_wperm" text[] NOT NULL, "data" jsonb NOT NULL)`);
    for (const [id, data] of OBJECTS) {
      await client.query(`INSERT INTO "Item" VALUES ($1, '2024-05-01T00:00:00.000Z', '2024-05-01T00:00:00.000Z', '{*}', '{*}', $2::jsonb)`, [id, JSON.stringify(data)]);
    }
  });

  /** The rows of a statement on both databases, each row's `data` parsed: the same on both. */
  async function rowsOf(sqliteSql: CompiledSql, postgresSql: CompiledSql, column = 'data'): Promise<unknown[]> {
    const decode = (rows: Record<string, unknown>[]) => rows.map((row) => JSON.parse(String(row[column])));
    const fromSqlite = decode(db.prepare(sqliteSql.sql).all(...(sqliteSql.params as unknown[])) as Record<string, unknown>[]);
    const fromPostgres = decode((await postgres().query(postgresSql.sql, postgresSql.params as unknown[])).rows);
    assert.deepEqual(fromPostgres, fromSqlite);
    return fromSqlite;
  }
  const both = (pipeline: unknown[]) => {
    const plan = parsePipeline(pipeline, schema, () => null);
    return [compileAggregate(sqliteDialect, table, 'Item', plan, 100), compileAggregate(postgresDialect, table, 'Item', plan, 100)] as const;
  };

  it('a $group count is one GROUP BY of the field as the query compiler reads it, groups in key order', async () => {
    const [onSqlite, onPostgres] = both([{ $group: { _id: '$team', count: { $sum: 1 } } }]);
    assert.deepEqual(onSqlite, {
      sql: `SELECT json(json_object('key', json_extract("data", '$.team'), 'count', count(*))) AS "data" FROM "Item" GROUP BY json_extract("data", '$.team') ORDER BY json_extract("data", '$.team') ASC LIMIT 101`,
      params: [],
    });
    assert.deepEqual(onPostgres, {
      sql: `SELECT (jsonb_build_object('key', (("data"->>'team') COLLATE "C"), 'count', count(*)))::text AS "data" FROM "Item" GROUP BY (("data"->>'team') COLLATE "C") ORDER BY (("data"->>'team') COLLATE "C") ASC NULLS FIRST LIMIT 101`,
      params: [],
    });
    assert.deepEqual(await rowsOf(onSqlite, onPostgres), [
      { key: null, count: 1 },
      { key: 'blue', count: 1 },
      { key: 'red', count: 2 },
    ]);
  });

  it('$match before and after $group: nested SELECTs, the values bound in text order', async () => {
    const [onSqlite, onPostgres] = both([
      { $match: { score: { $gt: 2 } } },
      { $group: { _id: '$active', total: { $sum: '$score' }, last: { $max: '$when' }, mean: { $avg: '$score' } } },
      { $match: { total: { $gte: 5 } } },
      { $sort: { total: -1 } },
    ]);
    assert.match(onSqlite.sql, /^SELECT json\("data"\) AS "data" FROM \(SELECT json_object\('key', json\(CASE json_extract\("data", '\$\.active'\) WHEN 1 THEN 'true' WHEN 0 THEN 'false' END\), 'total', total\(json_extract\("data", '\$\.score'\)\), .+ FROM \(SELECT \* FROM "Item" WHERE json_extract\("data", '\$\.score'\) > \?\) AS "_l0" GROUP BY json_extract\("data", '\$\.active'\)\) AS "_l1" WHERE json_extract\("data", '\$\.total'\) >= \? ORDER BY json_extract\("data", '\$\.total'\) DESC LIMIT 101$/);
    assert.deepEqual(onSqlite.params, [2, 5]);
    assert.match(onPostgres.sql, /^SELECT \("data"\)::text AS "data" FROM \(SELECT jsonb_build_object\('key', \(\("data"->>'active'\)::boolean\), 'total', COALESCE\(sum\(\(\("data"->>'score'\)::float8\)\), 0\), .+ GROUP BY \(\("data"->>'active'\)::boolean\)\) AS "_l1" WHERE \(\("data"->>'total'\)::float8\) >= \$2 ORDER BY \(\("data"->>'total'\)::float8\) DESC NULLS LAST LIMIT 101$/);
    assert.deepEqual(onPostgres.params, [2, 5]);
    assert.deepEqual(await rowsOf(onSqlite, onPostgres), [
      { key: false, total: 20, last: date('2024-02-01T00:00:00.000Z'), mean: 20 },
      { key: true, total: 10, last: date('2024-01-01T00:00:00.000Z'), mean: 10 },
      { key: null, total: 5.5, last: date('2024-03-01T00:00:00.000Z'), mean: 5.5 },
    ]);
  });

  it('$project keeps or drops keys of the document in SQL; $count answers no row for no rows', async () => {
    const [kept, keptPg] = both([{ $match: { team: 'red' } }, { $project: { active: 1, tags: 1 } }]);
    assert.deepEqual(await rowsOf(kept, keptPg), [
      { active: true, tags: ['x', 1] },
      { active: false, tags: ['y', true] },
    ]);
    const [dropped, droppedPg] = both([{ $match: { team: 'red' } }, { $project: { when: 0, tags: 0, score: 0 } }]);
    assert.deepEqual(await rowsOf(dropped, droppedPg), [
      { team: 'red', active: true },
      { team: 'red', active: false },
    ]);
    const [none, nonePg] = both([{ $match: { score: { $gt: 100 } } }, { $count: 'n' }]);
    assert.match(none.sql, / HAVING count\(\*\) > 0 LIMIT 101$/);
    assert.deepEqual(await rowsOf(none, nonePg), []);
  });

  it('distinct of an Array field unwinds it and compares elements as JSON text; of a typed field, reads it as queries do', async () => {
    const elements = parseDistinct('tags', { score: { $gte: 5 } }, schema, () => null);
    const [onSqlite, onPostgres] = [compileDistinct(sqliteDialect, table, 'Item', elements, 100), compileDistinct(postgresDialect, table, 'Item', elements, 100)];
    assert.match(onSqlite.sql, /^SELECT DISTINCT \(CASE "_e"\."type" .+\) AS "_v" FROM "Item" CROSS JOIN json_each\(.+\) AS "_e" WHERE \(json_extract\("data", '\$\.score'\) >= \?\) AND .+ IS NOT NULL ORDER BY "_v" ASC LIMIT 101$/);
    assert.match(onPostgres.sql, /^SELECT DISTINCT .+ AS "_v" FROM "Item" CROSS JOIN LATERAL jsonb_array_elements\(.+\) AS "_e"\("v"\) WHERE .+ ORDER BY "_v" ASC NULLS FIRST LIMIT 101$/);
    assert.deepEqual(await rowsOf(onSqlite, onPostgres, '_v'), ['x', 'y', 1, true, { k: 'v' }]);
    const teams = parseDistinct('team', undefined, schema, () => null);
    const typed = compileDistinct(postgresDialect, table, 'Item', teams, 100);
    assert.equal(typed.sql, `SELECT DISTINCT (("data"->>'team') COLLATE "C") AS "_v" FROM "Item" WHERE (1=1) AND (("data"->>'team') COLLATE "C") IS NOT NULL ORDER BY "_v" ASC NULLS FIRST LIMIT 101`);
    assert.deepEqual((await postgres().query(typed.sql)).rows.map((row) => row._v), ['blue', 'red']);
  });
});
