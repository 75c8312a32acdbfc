import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { PostgresDriver } from '../sql/postgres/driver.ts';
import { testPostgresUrl } from '../sql/postgres/connection.test-helper.ts';
import { AppNamespace } from '../sql/namespace.ts';
import { SqlSchemaStore } from './sql-schema-store.ts';
import { BACKFILL_BATCH } from './kept-columns.ts';
import { addReaderIndexes } from '../sql/reader-indexes.ts';
import type { ClassSchema } from '../schema/types.ts';
import type { IndexKey } from './port.ts';

const ROWS = BACKFILL_BATCH * 2 + 500;
const BAD_ROW = BACKFILL_BATCH + 10;
const id = (i: number) => `o${String(i).padStart(9, '0')}`;
const scoreKey: IndexKey = { field: { kind: 'doc', path: ['score'] }, as: 'number', descending: true };

/**
 * An automatic index on PostgreSQL (docs/architecture.md, "Automatic indexes"): built over columns
 * a trigger keeps, filled in batches while the class is written, and resumed after a failure.
 */
describe('SqlSchemaStore.buildIndexOnline over kept columns on PostgreSQL', () => {
  const schema = `kept_${process.pid}_${Date.now()}`;
  const table = `"${schema}"."Item"`;
  let driver: PostgresDriver;
  let client: pg.Client;
  let store: SqlSchemaStore;

  before(async () => {
    driver = new PostgresDriver(testPostgresUrl(), 3);
    client = new pg.Client({ connectionString: testPostgresUrl() });
    await client.connect();
    await driver.run(`CREATE SCHEMA "${schema}"`);
    await driver.run(`CREATE TABLE "${schema}"."_SCHEMA" ("className" text COLLATE "C" PRIMARY KEY, "schema" text NOT NULL)`);
    store = new SqlSchemaStore(new AppNamespace(driver, schema));
    const item: ClassSchema = { className: 'Item', fields: { score: { type: 'Number' } }, classLevelPermissions: {}, indexes: {} };
    await store.change('Item', () => item);
    // Every other row public; the middle of the second batch holds a score the float8 cast
    // refuses (only SQL could write it), so the first build fails there.
    await client.query(
      `INSERT INTO ${table} SELECT 'o' || lpad(i::text, 9, '0'), '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z',
         CASE WHEN i % 2 = 0 THEN ARRAY['*'] ELSE ARRAY['u1'] END, ARRAY[]::text[],
         jsonb_build_object('score', CASE WHEN i = ${BAD_ROW} THEN to_jsonb('high'::text) ELSE to_jsonb(i % 1000) END)
       FROM generate_series(0, ${ROWS - 1}) AS "g"("i")`,
    );
  });
  after(async () => {
    await client.end();
    await driver.run(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await driver.close();
  });

  const differing = async () => {
    const { rows } = await client.query(
      `SELECT count(*)::int AS n FROM ${table} WHERE "f.score" IS DISTINCT FROM (("data"->>'score')::float8) OR "_public" IS DISTINCT FROM ("_rperm" && '{*}')`,
    );
    return Number(rows[0].n);
  };
  const filled = async () => Number((await client.query(`SELECT count("f.score")::int AS n FROM ${table}`)).rows[0].n);
  const versionOf = async (i: number) => String((await client.query(`SELECT xmin::text AS v FROM ${table} WHERE "objectId" = $1`, [id(i)])).rows[0].v);
  const catalog = async () => {
    const columns = await client.query(`SELECT column_name, is_generated FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'Item' AND (column_name LIKE 'f.%' OR column_name = '_public') ORDER BY 1`, [schema]);
    const triggers = await client.query(`SELECT tgname FROM pg_trigger WHERE tgrelid = $1::regclass AND NOT tgisinternal`, [table]);
    const functions = await client.query(`SELECT proname FROM pg_proc WHERE pronamespace = $1::regnamespace`, [`"${schema}"`]);
    return {
      columns: columns.rows.map((row) => `${row.column_name} ${row.is_generated}`),
      triggers: triggers.rows.map((row) => String(row.tgname)),
      functions: functions.rows.map((row) => String(row.proname)),
    };
  };

  it('fails at a row the cast refuses, keeping the batches done; the retry finishes them while writes go on, and none is lost', async () => {
    await assert.rejects(store.buildIndexOnline('Item', 'auto_score', [scoreKey]), /invalid input syntax for type double precision/);
    assert.deepEqual(await catalog(), { columns: ['_public NEVER', 'f.score NEVER'], triggers: ['basalt_kept'], functions: ['Item_kept'] });
    assert.equal(await filled(), BACKFILL_BATCH, 'the first batch was kept, the failed one rolled back');
    const { rows: noIndex } = await client.query(`SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname LIKE '%auto_score'`, [schema]);
    assert.deepEqual(noIndex, []);
    // The trigger refuses the value as the expression index did.
    await assert.rejects(client.query(`UPDATE ${table} SET "data" = '{"score":"low"}' WHERE "objectId" = $1`, [id(1)]), /invalid input syntax for type double precision/);
    await client.query(`UPDATE ${table} SET "data" = '{"score":7}' WHERE "objectId" = $1`, [id(BAD_ROW)]);
    const doneBefore = await versionOf(0);

    // Writes on another connection all through the build, to rows the retry has still to fill:
    // a score moved, a row made private, a score removed, a row added, each checked afterwards.
    let building = true;
    let writes = 0;
    const writer = (async () => {
      do {
        const i = BACKFILL_BATCH + ((writes * 37) % (ROWS - BACKFILL_BATCH - 2));
        await client.query(`UPDATE ${table} SET "data" = jsonb_set("data", '{score}', to_jsonb(${5000 + writes})) WHERE "objectId" = $1`, [id(i)]);
        await client.query(`UPDATE ${table} SET "_rperm" = ARRAY['u2'] WHERE "objectId" = $1`, [id(i + 1)]);
        await client.query(`UPDATE ${table} SET "data" = "data" - 'score' WHERE "objectId" = $1`, [id(i + 2)]);
        await client.query(
          `INSERT INTO ${table} VALUES ($1, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z', ARRAY['*'], ARRAY[]::text[], jsonb_build_object('score', ${writes}))`,
          [`n${String(writes).padStart(9, '0')}`],
        );
        writes++;
      } while (building);
    })();
    const built = await store.buildIndexOnline('Item', 'auto_score', [scoreKey]).finally(() => {
      building = false;
    });
    await writer;
    assert.deepEqual(built, { columns: [{ path: ['score'], as: 'number', column: 'f.score' }], reader: true });
    assert.ok(writes > 0);
    assert.equal(await differing(), 0, 'every column equals its reading');
    assert.equal(await versionOf(0), doneBefore, 'a row the first attempt filled was not written again');
    const { rows: moved } = await client.query(`SELECT count(*)::int AS n FROM ${table} WHERE "f.score" >= 5000`);
    assert.equal(Number(moved[0].n) > 0, true);

    const { rows: definition } = await client.query(`SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'Item_idx:auto_score'`, [schema]);
    assert.match(String(definition[0].indexdef), /\("f\.score" DESC NULLS LAST, "objectId"\) INCLUDE \(_rperm, _public\)$/);
    // Beside it, the same keys led by the one reader of a list of one ('' for any other list).
    const { rows: reader } = await client.query(`SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'Item_rdr:auto_score'`, [schema]);
    assert.match(String(reader[0]?.indexdef).replace(/\s+/g, ' '), /\(\( ?CASE WHEN \(cardinality\(_rperm\) = 1\) THEN _rperm\[1\] ELSE ''::text END\), "f\.score" DESC NULLS LAST, "objectId"\) INCLUDE \(_rperm, _public\)$/);
    // The build's VACUUM (ANALYZE): statistics on the column, and a count read from the index alone.
    const { rows: stats } = await client.query(`SELECT count(*)::int AS n FROM pg_stats WHERE schemaname = $1 AND tablename = 'Item' AND attname = 'f.score'`, [schema]);
    assert.equal(Number(stats[0].n), 1);
    const { rows: plan } = await client.query(`EXPLAIN (FORMAT JSON) SELECT count(*) FROM ${table} WHERE "f.score" >= 900 AND "_public"`);
    assert.match(JSON.stringify(plan[0]['QUERY PLAN']), /"Node Type":"Index Only Scan".*auto_score/);
  });

  it('recorded, then dropped: the last index over a column takes the column, the trigger and its function', async () => {
    const built = await store.buildIndexOnline('Item', 'auto_score', [scoreKey]);
    const recorded = await store.change('Item', (current) => ({ ...current!, indexes: { auto_score: { score: -1 } } }), () => [{ kind: 'recordIndex', name: 'auto_score', ...built }]);
    assert.deepEqual([recorded?.storedIndexes, recorded?.publicColumn, recorded?.readerIndexes], [{ auto_score: [{ path: ['score'], as: 'number', column: 'f.score' }] }, true, ['auto_score']]);
    const dropped = await store.change('Item', (current) => ({ ...current!, indexes: {} }), () => [{ kind: 'dropIndex', name: 'auto_score' }]);
    assert.deepEqual([dropped?.storedIndexes, dropped?.publicColumn, dropped?.readerIndexes], [undefined, undefined, undefined]);
    assert.deepEqual(await catalog(), { columns: [], triggers: [], functions: [] });
    const { rows: left } = await client.query(`SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname LIKE '%auto_score'`, [schema]);
    assert.deepEqual(left, [], 'the schema index and its reader index went');
    // Writes go on without them.
    await client.query(`UPDATE ${table} SET "data" = '{"score":"any"}' WHERE "objectId" = $1`, [id(1)]);
  });

  it("a pointer's objectId is kept as text, compared byte by byte as the expression is", async () => {
    await client.query(`UPDATE ${table} SET "data" = jsonb_set("data", '{owner}', jsonb_build_object('__type', 'Pointer', 'className', '_User', 'objectId', CASE WHEN "objectId" < 'o000000100' THEN 'B' ELSE 'a' END)) WHERE "objectId" < 'o000000200'`);
    const ownerKey: IndexKey = { field: { kind: 'doc', path: ['owner', 'objectId'] }, as: 'text', descending: false };
    const built = await store.buildIndexOnline('Item', 'auto_owner', [ownerKey]);
    assert.deepEqual(built, { columns: [{ path: ['owner', 'objectId'], as: 'text', column: 'f.owner.objectId' }], reader: true });
    const { rows } = await client.query(
      `SELECT count(*) FILTER (WHERE "f.owner.objectId" IS DISTINCT FROM (("data"#>>'{owner,objectId}') COLLATE "C"))::int AS differing,
              count(*) FILTER (WHERE "f.owner.objectId" < 'a')::int AS upper, count(*) FILTER (WHERE "data"#>>'{owner,objectId}' = 'B')::int AS b FROM ${table}`,
    );
    assert.equal(rows[0].differing, 0);
    assert.equal(rows[0].upper, rows[0].b, '"B" sorts before "a"');
    assert.ok(rows[0].b > 0);
    await store.change('Item', (current) => ({ ...current!, indexes: { auto_owner: { owner: 1 } } }), () => [{ kind: 'recordIndex', name: 'auto_owner', ...built }]);
    await store.change('Item', (current) => ({ ...current!, indexes: {} }), () => [{ kind: 'dropIndex', name: 'auto_owner' }]);
    assert.deepEqual(await catalog(), { columns: [], triggers: [], functions: [] });
  });

  it('columns left by a build whose field then went are dropped with the field', async () => {
    await store.change('Item', (current) => ({ ...current!, fields: { ...current!.fields, rank: { type: 'Number' } } }));
    await client.query(`UPDATE ${table} SET "data" = jsonb_set("data", '{rank}', '1') WHERE "objectId" = $1`, [id(2)]);
    const rankKey: IndexKey = { field: { kind: 'doc', path: ['rank'] }, as: 'number', descending: false };
    await store.buildIndexOnline('Item', 'auto_rank', [rankKey]);
    assert.deepEqual((await catalog()).columns, ['_public NEVER', 'f.rank NEVER']);
    await store.change('Item', (current) => ({ ...current!, fields: { score: { type: 'Number' } } }), () => [{ kind: 'dropIndex', name: 'auto_rank' }, { kind: 'dropField', field: 'rank', relation: false }]);
    assert.deepEqual((await catalog()).columns, ['_public NEVER']);
    // The field may come back with another type: nothing reads it as a number any more.
    await client.query(`UPDATE ${table} SET "data" = jsonb_set("data", '{rank}', '"first"') WHERE "objectId" = $1`, [id(2)]);
  });
  it('app migration 11 makes the reader index of a schema index made before it', async () => {
    // An earlier test left a score the cast refuses.
    await client.query(`UPDATE ${table} SET "data" = '{"score": 1}' WHERE "data"->>'score' = 'any'`);
    const built = await store.buildIndexOnline('Item', 'auto_score', [scoreKey]);
    await store.change('Item', (current) => ({ ...current!, indexes: { auto_score: { score: -1 } } }), () => [{ kind: 'recordIndex', name: 'auto_score', ...built }]);
    const readerDefinition = async () => (await client.query(`SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'Item_rdr:auto_score'`, [schema])).rows.map((row) => String(row.indexdef));
    const made = await readerDefinition();
    assert.equal(made.length, 1);
    // As a version before reader indexes left it: no reader index, none on record.
    await client.query(`DROP INDEX "${schema}"."Item_rdr:auto_score"`);
    await client.query(`UPDATE "${schema}"."_SCHEMA" SET "schema" = ("schema"::jsonb - 'readerIndexes')::text WHERE "className" = 'Item'`);
    const recorded = async () => (JSON.parse(String((await client.query(`SELECT "schema" FROM "${schema}"."_SCHEMA" WHERE "className" = 'Item'`)).rows[0].schema)) as ClassSchema).readerIndexes;
    assert.deepEqual([await readerDefinition(), await recorded()], [[], undefined]);
    await driver.transaction((tx) => addReaderIndexes(tx, (name) => `"${schema}"."${name}"`));
    assert.deepEqual([await readerDefinition(), await recorded()], [made, ['auto_score']]);
    await store.change('Item', (current) => ({ ...current!, indexes: {} }), () => [{ kind: 'dropIndex', name: 'auto_score' }]);
    assert.deepEqual(await readerDefinition(), []);
  });
});
