import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PostgresDriver } from './driver.ts';
import { testPostgresUrl } from './connection.test-helper.ts';

/**
 * Which plans the driver's statements run on. A pool size of 2 gives each of the driver's three
 * pools one connection, so PostgreSQL's view of the prepared statements of "this session" sees
 * every statement that pool ran.
 */
describe('PostgresDriver plans', () => {
  let driver: PostgresDriver;
  const prepared = async (planPerRun: boolean, text: string) => {
    const rows = await driver.all('SELECT "generic_plans", "custom_plans" FROM pg_prepared_statements WHERE "statement" = $1', [text], planPerRun ? { planPerRun } : undefined);
    return rows.map((row) => ({ generic: Number(row.generic_plans), custom: Number(row.custom_plans) }));
  };

  before(() => {
    driver = new PostgresDriver(testPostgresUrl(), 2);
  });
  after(async () => {
    await driver.close();
  });

  it('prepares a statement planned per run once, and plans it for its values on every run', async () => {
    // PostgreSQL would run this one on a generic plan from the sixth run on: nothing in it
    // depends on the value.
    const text = 'SELECT $1::int + 1 AS "n"';
    for (let i = 0; i < 12; i++) assert.deepEqual(await driver.all(text, [i], { planPerRun: true }), [{ n: i + 1 }]);
    assert.deepEqual(await prepared(true, text), [{ generic: 0, custom: 12 }]);
  });

  it('lets other statements reuse a generic plan', async () => {
    const text = 'SELECT $1::int + 2 AS "n"';
    for (let i = 0; i < 12; i++) assert.deepEqual(await driver.all(text, [i]), [{ n: i + 2 }]);
    const [plans] = await prepared(false, text);
    assert.ok(plans && plans.generic > 0, JSON.stringify(plans));
  });

  it("keeps a generic plan for the batched lookup by ids, whatever the number of ids", async () => {
    await driver.run('CREATE TEMP TABLE IF NOT EXISTS "plans_lookup" ("objectId" text PRIMARY KEY, "n" int)');
    await driver.run('INSERT INTO "plans_lookup" SELECT g::text, g FROM generate_series(1, 200) g ON CONFLICT DO NOTHING');
    const text = 'SELECT "objectId", "n" FROM "plans_lookup" WHERE "objectId" = ANY($1::text[])';
    for (let i = 1; i <= 12; i++) {
      const ids = Array.from({ length: i * 5 }, (_, k) => String(k + 1));
      const rows = await driver.all(text, [ids]);
      assert.equal(rows.length, ids.length);
    }
    const [plans] = await prepared(false, text);
    // PostgreSQL's first five runs are planned for their values; every later one reuses the plan.
    assert.deepEqual(plans, { generic: 7, custom: 5 });
  });

  it('runs a statement planned for any values on a generic plan from its first run', async () => {
    const text = 'SELECT $1::int + 4 AS "n"';
    for (let i = 0; i < 3; i++) assert.deepEqual(await driver.all(text, [i], { planForAnyValues: true }), [{ n: i + 4 }]);
    const rows = await driver.all('SELECT "generic_plans", "custom_plans" FROM pg_prepared_statements WHERE "statement" = $1', [text], { planForAnyValues: true });
    assert.deepEqual(rows.map((row) => ({ generic: Number(row.generic_plans), custom: Number(row.custom_plans) })), [{ generic: 3, custom: 0 }]);
    assert.deepEqual(await prepared(false, text), [], 'not on the connections of other statements');
  });

  it('explains a statement planned for any values by its generic plan, its values written as literals, and leaves nothing prepared', async () => {
    const text = 'SELECT "objectId" FROM (VALUES ($1::text)) AS "t" ("objectId") WHERE "objectId" >= $2';
    const rows = await driver.explainForAnyValues((statement) => `EXPLAIN (FORMAT JSON) ${statement}`, text, ['a', 'b']);
    assert.match(JSON.stringify(rows), /\$2/);
    // Run instead of explained, the prepared statement reads back every kind of value as given.
    const values = [['*', 'role:say "hi"', 'back\\slash', "it's"], Buffer.from([0, 255, 39]), true, null, "it's \\ {x}", -2.5];
    const echoed = await driver.explainForAnyValues(
      (statement) => statement,
      'SELECT $1::text[] AS "list", $2::bytea AS "bytes", $3::boolean AS "flag", $4::text AS "none", $5::text AS "text", $6::float8 AS "number"',
      values,
    );
    assert.deepEqual(echoed, [{ list: values[0], bytes: values[1], flag: true, none: null, text: values[4], number: -2.5 }]);
    const left = await driver.all('SELECT count(*)::int AS "n" FROM pg_prepared_statements WHERE "name" = $1', ['basalt_explain'], { planForAnyValues: true });
    assert.deepEqual(left, [{ n: 0 }]);
  });

  it('runs a statement planned per run inside a transaction unnamed', async () => {
    const text = 'SELECT $1::int + 3 AS "n"';
    const rows = await driver.transaction((tx) => tx.all(text, [1], { planPerRun: true }));
    assert.deepEqual(rows, [{ n: 4 }]);
    assert.deepEqual(await prepared(false, text), []);
  });
});
