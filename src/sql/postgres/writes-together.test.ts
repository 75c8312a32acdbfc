import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { PostgresDriver } from './driver.ts';
import { testPostgresUrl } from './connection.test-helper.ts';
import { writesFromValues, writesTogether } from './writes-together.ts';

describe('writesTogether', () => {
  const single = 'UPDATE "s"."t" SET "n" = "n" + $1 WHERE "id" = $2 RETURNING "n" AS "r0"';

  it('makes each write a WITH step of its own, placeholders numbered on, rows marked with their step', () => {
    assert.equal(
      writesTogether(single, 3, 2),
      'WITH "w0" AS (UPDATE "s"."t" SET "n" = "n" + $1 WHERE "id" = $2 RETURNING "n" AS "r0"), ' +
        '"w1" AS (UPDATE "s"."t" SET "n" = "n" + $3 WHERE "id" = $4 RETURNING "n" AS "r0"), ' +
        '"w2" AS (UPDATE "s"."t" SET "n" = "n" + $5 WHERE "id" = $6 RETURNING "n" AS "r0") ' +
        'SELECT 0 AS "_i", * FROM "w0" UNION ALL SELECT 1 AS "_i", * FROM "w1" UNION ALL SELECT 2 AS "_i", * FROM "w2"',
    );
  });

  it('renumbers past nine without mixing digits up', () => {
    const wide = `UPDATE "t" SET ${Array.from({ length: 11 }, (_, i) => `"c${i}" = $${i + 1}`).join(', ')} RETURNING 1 AS "r"`;
    assert.ok(writesTogether(wide, 2, 11).includes('"c9" = $21, "c10" = $22 RETURNING'));
  });

  it('refuses a statement that returns nothing', () => {
    assert.throws(() => writesTogether('UPDATE "t" SET "n" = 1', 2, 0), /RETURNING/);
    assert.throws(() => writesTogether('SELECT 1 RETURNING', 2, 0), /RETURNING/);
  });
});

describe('writesFromValues', () => {
  const single = 'UPDATE "s"."t" SET "updatedAt" = $1, "data" = jsonb_set("data", \'{n}\', to_jsonb(coalesce(("data"->>\'n\')::float8, 0) + $2::float8)) WHERE "objectId" = $3 AND "_wperm" && $4::text[] AND octet_length("data"::text) <= $5 RETURNING ("data"->\'n\')::text AS "r0"';

  it('makes each write a row of values, typed by its casts or its first values, joined by the key', () => {
    assert.equal(
      writesFromValues(single, 2, 5, ['2026-01-01T00:00:00.000Z', 1, 'a', ['*'], 131000]),
      'UPDATE "s"."t" SET "updatedAt" = "v"."p1", "data" = jsonb_set("data", \'{n}\', to_jsonb(coalesce(("data"->>\'n\')::float8, 0) + "v"."p2"::float8)) ' +
        'FROM (VALUES ($1::text, $2::float8, $3::text, $4::text[], $5::int8, 0), ($6::text, $7::float8, $8::text, $9::text[], $10::int8, 1)) AS "v"("p1", "p2", "p3", "p4", "p5", "_i") ' +
        'WHERE "objectId" = "v"."p3" AND "_wperm" && "v"."p4"::text[] AND octet_length("data"::text) <= "v"."p5" RETURNING "v"."_i" AS "_i", ("data"->\'n\')::text AS "r0"',
    );
  });

  it('leaves other statements to writesTogether', () => {
    assert.equal(writesFromValues('UPDATE "t" SET "n" = $1 WHERE "id" = $2 RETURNING 1 AS "r"', 2, 2, [1, 'a']), null);
    assert.equal(writesFromValues('DELETE FROM "t" WHERE "objectId" = $1 RETURNING 1 AS "r"', 2, 1, ['a']), null);
  });
});

/**
 * PostgresDriver.writeRows with a row named: the writes of one turn share one statement, which
 * shows in PostgreSQL's transaction ids (`xmin` of the rows written); each caller still gets its
 * own rows and its own error.
 */
// Keyed by "id": WITH steps (writesTogether); by "objectId": one UPDATE … FROM (VALUES …) (writesFromValues).
for (const key of ['id', 'objectId']) describe(`PostgreSQL writes of one moment, together (key "${key}")`, () => {
  const schema = `writes_together_${key.toLowerCase()}_${process.pid}`;
  const table = `"${schema}"."t"`;
  const update = `UPDATE ${table} SET "n" = "n" + $1 WHERE "${key}" = $2 RETURNING "n" AS "r0", xmin::text AS "tx"`;
  let driver: PostgresDriver;

  before(async () => {
    driver = new PostgresDriver(testPostgresUrl(), 4);
    await driver.run(`CREATE SCHEMA "${schema}"`);
    // int4: a sum past 2^31 fails the statement (22003), which is how one write fails below.
    await driver.run(`CREATE TABLE ${table} ("${key}" text PRIMARY KEY, "n" int4 NOT NULL)`);
  });
  after(async () => {
    await driver.run(`DROP SCHEMA "${schema}" CASCADE`);
    await driver.close();
  });

  async function reset(count: number): Promise<string[]> {
    await driver.run(`DELETE FROM ${table}`);
    const ids = Array.from({ length: count }, (_, i) => `row${String(i).padStart(3, '0')}`);
    await driver.run(`INSERT INTO ${table} SELECT unnest($1::text[]), 0`, [ids]);
    return ids;
  }

  it('answers each write with its own row, all written by one transaction', async () => {
    const ids = await reset(10);
    const answers = await Promise.all(ids.map((id, i) => driver.writeRows(update, [i + 1, id], id)));
    assert.deepEqual(answers.map((rows) => rows.map((row) => row.r0)), ids.map((_, i) => [i + 1]));
    assert.equal(new Set(answers.map((rows) => rows[0]!.tx)).size, 1, 'one transaction wrote every row');
    const stored = await driver.all(`SELECT "${key}" AS "id", "n" FROM ${table} ORDER BY "${key}"`);
    assert.deepEqual(stored, ids.map((id, i) => ({ id, n: i + 1 })));
  });

  it('sends writes without a row alone, one transaction each', async () => {
    const ids = await reset(3);
    const answers = await Promise.all(ids.map((id) => driver.writeRows(update, [1, id])));
    assert.equal(new Set(answers.map((rows) => rows[0]!.tx)).size, 3);
  });

  it('never puts two writes of the same row in one statement, and loses neither', async () => {
    const [id] = await reset(1);
    const answers = await Promise.all(Array.from({ length: 5 }, () => driver.writeRows(update, [1, id!], id!)));
    assert.deepEqual(answers.map((rows) => rows[0]!.r0).sort(), [1, 2, 3, 4, 5]);
    assert.deepEqual(await driver.all(`SELECT "n" FROM ${table}`), [{ n: 5 }]);
  });

  it('answers a write that matches no row with no rows, beside the others', async () => {
    const ids = await reset(2);
    const answers = await Promise.all([driver.writeRows(update, [1, ids[0]!], ids[0]), driver.writeRows(update, [1, 'missing'], 'missing'), driver.writeRows(update, [1, ids[1]!], ids[1])]);
    assert.deepEqual(answers.map((rows) => rows.map((row) => row.r0)), [[1], [], [1]]);
  });

  it('fails only the write that fails: the others are written, each once', async () => {
    const ids = await reset(4);
    const settled = await Promise.allSettled(ids.map((id, i) => driver.writeRows(update, [i === 2 ? 2 ** 31 - 1 + 10 : 1, id], id)));
    assert.deepEqual(settled.map((result) => result.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    assert.equal((settled[2] as PromiseRejectedResult).reason.code, '22003');
    assert.ok(driver.outOfRange((settled[2] as PromiseRejectedResult).reason));
    const stored = await driver.all(`SELECT "${key}" AS "id", "n" FROM ${table} ORDER BY "${key}"`);
    assert.deepEqual(stored, ids.map((id, i) => ({ id, n: i === 2 ? 0 : 1 })));
  });

  it('splits a turn of more writes than one statement takes, each part of different rows', async () => {
    const ids = await reset(100);
    const answers = await Promise.all(ids.map((id) => driver.writeRows(update, [1, id], id)));
    assert.ok(answers.every((rows) => rows.length === 1 && rows[0]!.r0 === 1));
    const transactions = new Set(answers.map((rows) => rows[0]!.tx));
    assert.equal(transactions.size, 2, '64 writes in one statement, 36 in the next');
    assert.deepEqual(await driver.all(`SELECT sum("n")::int AS "total" FROM ${table}`), [{ total: 100 }]);
  });

  it('lets writes of other rows pass statements that wait for a row another transaction holds', { timeout: 20_000 }, async () => {
    const [held, ...others] = await reset(4);
    const blocker = new pg.Client({ connectionString: testPostgresUrl() });
    await blocker.connect();
    // Connections enough for the waiting statements and the others (this suite's driver has two).
    const driver = new PostgresDriver(testPostgresUrl(), 10);
    try {
      await blocker.query('BEGIN');
      await blocker.query(`SELECT 1 FROM ${table} WHERE "${key}" = $1 FOR UPDATE`, [held]);
      // Two writes of the held row: two statements, as many as run at once for one text.
      const waiting = [driver.writeRows(update, [1, held!], held), driver.writeRows(update, [1, held!], held)];
      await new Promise((resolve) => setTimeout(resolve, 5));
      const passed = await Promise.all(others.map((id) => driver.writeRows(update, [1, id], id)));
      assert.deepEqual(passed.map((rows) => rows.map((row) => row.r0)), [[1], [1], [1]]);
      await blocker.query('COMMIT');
      assert.deepEqual((await Promise.all(waiting)).map((rows) => rows[0]!.r0).sort(), [1, 2]);
    } finally {
      await blocker.end();
      await driver.close();
    }
  });
});
