import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PostgresDriver } from './driver.ts';
import { testPostgresUrl } from './connection.test-helper.ts';
import { fixedTypes, readsTogether, readTypes } from './reads-together.ts';

describe('readsTogether', () => {
  const page = 'SELECT "objectId" FROM "s"."t" WHERE "f.n" >= $1 AND "_rperm" && $2::text[] ORDER BY "f.n" DESC LIMIT $3 OFFSET $4';

  it('makes each run a row of values, read by a LATERAL subquery, the runs counted by the last placeholder', () => {
    assert.equal(
      readsTogether(page, 2, ['float8', 'text[]', 'int8', 'int8']),
      'SELECT "v"."_i" AS "_i", "t".* FROM (VALUES ($1::float8, $2::text[], $3::int8, $4::int8, 0), ($5::float8, $6::text[], $7::int8, $8::int8, 1)) AS "v"("p1", "p2", "p3", "p4", "_i") ' +
        'CROSS JOIN LATERAL (SELECT "objectId" FROM "s"."t" WHERE "f.n" >= "v"."p1" AND "_rperm" && "v"."p2"::text[] ORDER BY "f.n" DESC LIMIT "v"."p3" OFFSET "v"."p4") AS "t" WHERE "v"."_i" < $9::int4',
    );
  });

  it('refuses a statement that is not a read', () => {
    assert.throws(() => readsTogether('UPDATE "t" SET "n" = $1', 2, ['float8']), /not a read/);
  });

  it('types a placeholder by its cast, by LIMIT or OFFSET, or else by the values of every run', () => {
    const fixed = fixedTypes(page, 4);
    assert.deepEqual(fixed, [null, 'text[]', 'int8', 'int8']);
    assert.deepEqual(readTypes(fixed, 2, [5, ['*'], 20, 0, 7.5, ['*'], 20, 0]), ['float8', 'text[]', 'int8', 'int8']);
    assert.deepEqual(readTypes([null, null], 2, ['a', true, 'b', false]), ['text', 'boolean']);
    assert.equal(readTypes(fixed, 2, [5, ['*'], 20, 0, 'five', ['*'], 20, 0]), null, 'a number in one run, text in the other: alone');
    assert.deepEqual(fixedTypes('SELECT 1 WHERE "a" = $1 LIMIT $10 OFFSET $11', 11).slice(9), ['int8', 'int8']);
    assert.deepEqual(fixedTypes('SELECT 1 WHERE "a" = $1 LIMIT $10', 11)[0], null, '$1 is not $10');
  });
});

/**
 * PostgresDriver.all for reads planned for any values: the reads of one turn share one statement,
 * which shows in what PostgreSQL says of the statement each row came from (its backend and
 * `statement_timestamp()`); each caller still gets its own rows, in its own order.
 */
describe('PostgreSQL reads of one moment, together', () => {
  const READ = { reader: true, planForAnyValues: true } as const;
  // Rows `$2` down to 1 tagged `$1`, the first `$3` of them; and the statement that read them.
  const read = 'SELECT "g"::int AS "n", $1::text AS "tag", pg_backend_pid() AS "pid", statement_timestamp()::text AS "at" FROM generate_series(1, $2::int8) AS "g" ORDER BY "g" DESC LIMIT $3';
  let driver: PostgresDriver;

  before(() => {
    driver = new PostgresDriver(testPostgresUrl(), 8);
  });
  after(() => driver.close());

  const expected = (tag: string, rows: number, limit: number) => Array.from({ length: Math.min(rows, limit) }, (_, i) => ({ n: rows - i, tag }));
  const shown = (rows: Record<string, unknown>[]) => rows.map(({ n, tag }) => ({ n, tag }));
  const statements = (answers: Record<string, unknown>[][]) => new Set(answers.flat().map((row) => `${row.pid} ${row.at}`));

  it('answers each read with its own rows in its order, all read by one statement', async () => {
    const runs = Array.from({ length: 11 }, (_, i) => ({ tag: `run${i}`, rows: i % 4, limit: 2 }));
    const answers = await Promise.all(runs.map((run) => driver.all(read, [run.tag, run.rows, run.limit], READ)));
    assert.deepEqual(answers.map(shown), runs.map((run) => expected(run.tag, run.rows, run.limit)));
    assert.equal(statements(answers).size, 1);
  });

  it('reads one run alone, and reads of other texts or other options by themselves', async () => {
    const [alone] = await Promise.all([driver.all(read, ['alone', 3, 5], READ)]);
    assert.deepEqual(shown(alone!), expected('alone', 3, 5));
    const mixed = await Promise.all([driver.all(read, ['a', 2, 5], READ), driver.all(read, ['b', 2, 5], { reader: true }), driver.all(read, ['c', 2, 5], { reader: true })]);
    assert.deepEqual(mixed.map(shown), [expected('a', 2, 5), expected('b', 2, 5), expected('c', 2, 5)]);
    assert.equal(statements(mixed).size, 3, 'only reads planned for any values are read together');
  });

  it('reads runs whose values differ in type alone, each answered', async () => {
    const untyped = 'SELECT $1 AS "v", pg_backend_pid() AS "pid", statement_timestamp()::text AS "at" LIMIT $2';
    const answers = await Promise.all([driver.all(untyped, [5, 1], READ), driver.all(untyped, ['five', 1], READ)]);
    assert.deepEqual(answers.map((rows) => rows.map((row) => row.v)), [['5'], ['five']]);
    assert.equal(statements(answers).size, 2);
  });

  it('sends the runs alone again when PostgreSQL refuses them together, and from then on', async () => {
    // Alone, `length($1)` takes its placeholder as text; together a number's column is float8.
    const lengths = 'SELECT length($1) AS "len", pg_backend_pid() AS "pid", statement_timestamp()::text AS "at" LIMIT $2';
    for (let attempt = 0; attempt < 2; attempt++) {
      const answers = await Promise.all([driver.all(lengths, [12345, 1], READ), driver.all(lengths, [7, 1], READ)]);
      assert.deepEqual(answers.map((rows) => rows.map((row) => row.len)), [[5], [1]]);
      assert.equal(statements(answers).size, 2);
    }
  });

  it('splits a turn of more reads than one statement takes', async () => {
    const runs = Array.from({ length: 70 }, (_, i) => `r${i}`);
    const answers = await Promise.all(runs.map((tag) => driver.all(read, [tag, 1, 1], READ)));
    assert.deepEqual(answers.map(shown), runs.map((tag) => expected(tag, 1, 1)));
    assert.equal(statements(answers).size, 2, '64 reads in one statement, 6 in the next');
  });

  it('fails every read of the statement with the error of a statement past its limit', async () => {
    const limited = new PostgresDriver(testPostgresUrl(), 4, 100);
    try {
      const slow = 'SELECT $1::text AS "tag", pg_sleep(0.3)::text AS "slept" LIMIT $2';
      const settled = await Promise.allSettled([limited.all(slow, ['a', 1], READ), limited.all(slow, ['b', 1], READ)]);
      assert.deepEqual(settled.map((result) => result.status), ['rejected', 'rejected']);
      for (const result of settled) assert.equal((result as PromiseRejectedResult).reason.code, 124);
    } finally {
      await limited.close();
    }
  });
});
