import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { PostgresDriver } from '../sql/postgres/driver.ts';
import { testPostgresUrl } from '../sql/postgres/connection.test-helper.ts';
import { StatisticsKeeper } from './statistics-keeper.ts';

/** Statistics kept where autovacuum may be off (docs/architecture.md, "Statistics"). */
describe('StatisticsKeeper on PostgreSQL', () => {
  const schema = `stats_${process.pid}_${Date.now()}`;
  const table = (className: string) => `"${schema}"."${className}"`;
  let driver: PostgresDriver;

  before(async () => {
    driver = new PostgresDriver(testPostgresUrl(), 2);
    await driver.run(`CREATE SCHEMA "${schema}"`);
    for (const name of ['Fresh', 'Big']) await driver.run(`CREATE TABLE ${table(name)} ("objectId" text PRIMARY KEY, "n" int) WITH (autovacuum_enabled = off)`);
  });
  after(async () => {
    await driver.run(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await driver.close();
  });

  const analyzed = async (name: string) => {
    const [row] = await driver.all('SELECT last_vacuum IS NOT NULL AND last_analyze IS NOT NULL AS "done" FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = $2', [schema, name]);
    return row?.done === true;
  };
  const write = async (keeper: StatisticsKeeper, name: string, from: number, rows: number) => {
    await driver.run(`INSERT INTO ${table(name)} SELECT 'o' || i, i FROM generate_series($1::int, $2::int) AS "g"("i")`, [from, from + rows - 1]);
    for (let i = 0; i < rows; i++) keeper.noteWrite(name);
    await keeper.settled();
  };

  it('a class that changed by more than 1,000 rows and a tenth of its size is vacuumed and analyzed, one that changed less is not', async () => {
    const keeper = new StatisticsKeeper(driver, table);
    await write(keeper, 'Fresh', 0, 999);
    assert.equal(await analyzed('Fresh'), false, 'fewer than 1,000 changes');
    await write(keeper, 'Fresh', 999, 501);
    assert.equal(await analyzed('Fresh'), true, '1,500 changes on an empty table');

    // On one connection, whose count of changes reaches the shared statistics before the ANALYZE
    // resets it (a connection otherwise reports a moment after, when it may count again).
    const client = new pg.Client({ connectionString: testPostgresUrl() });
    await client.connect();
    try {
      await client.query(`INSERT INTO ${table('Big')} SELECT 'o' || i, i FROM generate_series(0, 19999) AS "g"("i")`);
      await client.query('SELECT pg_stat_force_next_flush()');
      await client.query('SELECT 1');
      await client.query(`ANALYZE ${table('Big')}`);
    } finally {
      await client.end();
    }
    await write(keeper, 'Big', 20000, 2500);
    assert.equal(await analyzed('Big'), false, '2,500 changes are under 1,000 plus a tenth of 20,000');
    await write(keeper, 'Big', 22500, 1000);
    assert.equal(await analyzed('Big'), true, '3,500 changes are over it');
  });
});
