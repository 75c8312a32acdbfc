import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDriver } from './driver.ts';
import { ReaderPool } from './readers.ts';
import { ApiError, Errors } from '../../errors/index.ts';

/**
 * The reader threads are SQLite's alone (PostgreSQL runs every statement on its server), so these
 * tests drive the driver directly; test/api/sqlite-readers.test.ts checks the same over HTTP.
 */
const READ = { reader: true } as const;
// Backtracks for hours on a string of forty a's and a '!': it only ends when its thread is stopped.
const ENDLESS = `SELECT regexp('^(a|a)*$', '${'a'.repeat(40)}!') AS "m"`;

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'basalt-readers-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function driverWith(pool: ReaderPool): Promise<SqliteDriver> {
  const driver = new SqliteDriver(join(tempDir(), 'app.db'), pool);
  after(async () => {
    await driver.close();
    await pool.close();
  });
  await driver.run('CREATE TABLE "T" ("id" TEXT PRIMARY KEY, "n" INTEGER, "doc" BLOB, "name" TEXT)');
  return driver;
}

function pool(size: number, ms: number, script?: URL): ReaderPool {
  return new ReaderPool(size, { ms, error: () => Errors.timeout(`over ${ms} ms`) }, script);
}

describe('SQLite reads on reader threads', () => {
  it('answer what the main connection answers, with the custom functions and blobs', async () => {
    const driver = await driverWith(pool(2, 30_000));
    await Promise.all(['ann', 'bob', 'cyd', 'dee'].map((name, n) => driver.insertRow(`INSERT INTO "T" VALUES (?, ?, jsonb(?), ?)`, [`id${n}`, n, JSON.stringify({ name, on: n % 2 === 0 }), name])));
    const queries: [string, (string | number | boolean)[]][] = [
      ['SELECT * FROM "T" ORDER BY "id"', []],
      [`SELECT "id", json("doc") AS "doc" FROM "T" WHERE regexp(?, "name") ORDER BY "n" DESC`, ['(?i)^[AB]']],
      [`SELECT count(*) AS "n" FROM "T" WHERE json_extract("doc", '$.on') = ?`, [true]],
      [`SELECT basalt_text_match("name", 'cyd') AS "m", basalt_point_in_polygon(1, 1, '[[0,0],[0,2],[2,2],[2,0]]') AS "p" FROM "T" ORDER BY "id"`, []],
    ];
    for (const [sql, params] of queries) assert.deepEqual(await driver.all(sql, params, READ), await driver.all(sql, params), sql);
    const [row] = await driver.all('SELECT "doc" FROM "T" WHERE "id" = ?', ['id0'], READ);
    assert.ok(Buffer.isBuffer(row!.doc), 'a blob arrives as a Buffer, as on the main connection');
  });

  it('see every write committed before them', async () => {
    const driver = await driverWith(pool(2, 30_000));
    for (let i = 0; i < 200; i++) {
      await driver.insertRow(`INSERT INTO "T" ("id", "n") VALUES (?, ?)`, [`w${i}`, i]);
      assert.equal((await driver.all('SELECT "n" FROM "T" WHERE "id" = ?', [`w${i}`], READ)).length, 1, `row ${i} found`);
      await driver.run('UPDATE "T" SET "n" = "n" + 1000 WHERE "id" = ?', [`w${i}`]);
      assert.deepEqual(await driver.all('SELECT "n" FROM "T" WHERE "id" = ?', [`w${i}`], READ), [{ n: i + 1000 }]);
    }
  });

  it('neither wait for an open transaction nor see its writes; inside it, a read sees them', async () => {
    const driver = await driverWith(pool(1, 30_000));
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    let insideSaw: unknown;
    const transaction = driver.transaction(async (tx) => {
      await tx.run(`INSERT INTO "T" ("id", "n") VALUES ('tx', 1)`);
      insideSaw = await tx.all(`SELECT "n" FROM "T" WHERE "id" = 'tx'`, [], READ);
      await held;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(await driver.all(`SELECT "n" FROM "T" WHERE "id" = 'tx'`, [], READ), [], 'answered while the transaction is open');
    assert.deepEqual(insideSaw, [{ n: 1 }]);
    finish();
    await transaction;
    assert.deepEqual(await driver.all(`SELECT "n" FROM "T" WHERE "id" = 'tx'`, [], READ), [{ n: 1 }]);
  });

  it('past the limit, answer 124 TIMEOUT, and the next read is answered by a fresh thread', async () => {
    const driver = await driverWith(pool(1, 200));
    await assert.rejects(driver.all(ENDLESS, [], READ), (error: unknown) => error instanceof ApiError && error.code === 124);
    assert.deepEqual(await driver.all('SELECT 7 AS "n"', [], READ), [{ n: 7 }]);
  });

  it('stop a pattern that may backtrack after the regex limit, with its 155', async () => {
    const driver = await driverWith(pool(1, 30_000));
    await assert.rejects(driver.all(ENDLESS.replace('regexp(', 'basalt_regexp_timed('), [], READ), (error: unknown) => error instanceof ApiError && error.code === 155);
    assert.deepEqual(await driver.all('SELECT 8 AS "n"', [], READ), [{ n: 8 }]);
  });

  it('fail only the read whose thread dies', async () => {
    const driver = await driverWith(pool(2, 30_000, new URL('./reader-crash.test-helper.ts', import.meta.url)));
    const reads = [driver.all(`SELECT 'crash'`, [], READ), driver.all('SELECT 1 AS "n"', [], READ), driver.all('SELECT 2 AS "n"', [], READ)];
    const [crashed, one, two] = await Promise.allSettled(reads);
    assert.equal(crashed?.status, 'rejected');
    assert.equal(((crashed as PromiseRejectedResult).reason as ApiError).code, 1);
    assert.deepEqual(one, { status: 'fulfilled', value: [{ n: 1 }] });
    assert.deepEqual(two, { status: 'fulfilled', value: [{ n: 2 }] });
    assert.deepEqual(await driver.all('SELECT 3 AS "n"', [], READ), [{ n: 3 }]);
  });

  it('send quick reads that wait together in one batch; one past its limit fails alone, the others are answered', async () => {
    const driver = await driverWith(pool(1, 300));
    const quick = 'SELECT regexp(?, ?) AS "m"';
    // Run once, the text is known to be quick: from then on its reads may share a batch.
    assert.deepEqual(await driver.all(quick, ['^a', 'abc'], READ), [{ m: 1 }]);
    const reads = [driver.all(quick, ['^b', 'abc'], READ), driver.all(quick, ['^(a|a)*$', `${'a'.repeat(40)}!`], READ), driver.all(quick, ['c$', 'abc'], READ)];
    const [one, endless, three] = await Promise.allSettled(reads);
    assert.deepEqual(one, { status: 'fulfilled', value: [{ m: 0 }] });
    assert.equal(endless?.status, 'rejected');
    assert.equal(((endless as PromiseRejectedResult).reason as ApiError).code, 124);
    assert.deepEqual(three, { status: 'fulfilled', value: [{ m: 1 }] });
  });

  it('send a read not known to be quick alone, so no other read waits behind it', async () => {
    const driver = await driverWith(pool(2, 5_000));
    assert.deepEqual(await driver.all('SELECT 1 AS "n"', [], READ), [{ n: 1 }]);
    // The first read takes the one thread; the other two wait together for it (the second thread
    // takes far longer to start), and the scan must not take the quick read along.
    const first = driver.all('SELECT 1 AS "n"', [], READ);
    let endlessSettled = false;
    const endless = driver.all(ENDLESS, [], READ).finally(() => (endlessSettled = true));
    const last = driver.all('SELECT 2 AS "n"', [], READ);
    assert.deepEqual(await first, [{ n: 1 }]);
    assert.deepEqual(await last, [{ n: 2 }]);
    assert.equal(endlessSettled, false);
    await assert.rejects(endless, (error: unknown) => error instanceof ApiError && error.code === 124);
  });

  it('answer each read of a batch, errors included, in its own place', async () => {
    const driver = await driverWith(pool(1, 30_000));
    const reads = Array.from({ length: 20 }, (_, i) => (i % 5 === 4 ? driver.all('SELECT "nothing" FROM "Missing"', [], READ) : driver.all(`SELECT ${i} AS "n"`, [], READ)));
    const settled = await Promise.allSettled(reads);
    settled.forEach((outcome, i) => {
      if (i % 5 === 4) assert.match(String((outcome as PromiseRejectedResult).reason), /no such table: Missing/);
      else assert.deepEqual(outcome, { status: 'fulfilled', value: [{ n: i }] });
    });
  });

  it('refuse a statement that writes', async () => {
    const driver = await driverWith(pool(1, 30_000));
    await assert.rejects(driver.all(`INSERT INTO "T" ("id") VALUES ('x') RETURNING "id"`, [], READ));
    assert.deepEqual(await driver.all(`SELECT "id" FROM "T"`), []);
  });
});
