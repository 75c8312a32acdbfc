import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDriver } from './driver.ts';

/** A driver on a file of its own, closed and removed after the suite. */
function tempDriver(): SqliteDriver {
  const dir = mkdtempSync(join(tmpdir(), 'basalt-driver-'));
  const driver = new SqliteDriver(join(dir, 'test.db'));
  after(async () => {
    await driver.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return driver;
}

// The inserts of one turn go to SQLite as one multi-row statement; over HTTP a duplicate objectId
// cannot be asked for, so what happens when one row of such a statement fails is checked here.
describe('SQLite inserts of one turn', () => {
  const driver = tempDriver();
  const insert = 'INSERT INTO "T" ("id", "n") VALUES (?, ?)';
  const rows = async () => (await driver.all('SELECT "id", "n" FROM "T" ORDER BY "id"')).map((row) => `${String(row.id)}=${String(row.n)}`);

  it('writes every row but the one that breaks a unique index, which alone fails', async () => {
    await driver.run('CREATE TABLE "T" ("id" TEXT PRIMARY KEY, "n" INTEGER NOT NULL)');
    const outcomes = await Promise.allSettled(['a', 'b', 'a', 'c'].map((id, n) => driver.insertRow(insert, [id, n])));
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
    );
    assert.equal(driver.uniqueViolation((outcomes[2] as PromiseRejectedResult).reason), 'PRIMARY');
    assert.deepEqual(await rows(), ['a=0', 'b=1', 'c=3']);
  });

  it('keeps the order of the writes of a turn around the inserts it groups', async () => {
    await Promise.all([driver.insertRow(insert, ['d', 1]), driver.run('UPDATE "T" SET "n" = "n" + 10 WHERE "id" = ?', ['d']), driver.insertRow(insert, ['e', 2]), driver.insertRow(insert, ['f', 3])]);
    assert.deepEqual(await rows(), ['a=0', 'b=1', 'c=3', 'd=11', 'e=2', 'f=3']);
  });

  it('answers the writes with RETURNING of a turn with their own rows, in order, a failing one alone', async () => {
    const update = 'UPDATE "T" SET "n" = "n" + ? WHERE "id" = ? RETURNING "n"';
    const failing = 'UPDATE "T" SET "n" = NULL WHERE "id" = ? RETURNING "n"';
    const outcomes = await Promise.allSettled([
      driver.writeRows(update, [1, 'a']),
      driver.writeRows(update, [5, 'a']),
      driver.writeRows(failing, ['b']),
      driver.insertRow(insert, ['g', 7]),
      driver.writeRows(update, [1, 'g']),
      driver.writeRows(update, [1, 'missing']),
    ]);
    assert.deepEqual(outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : 'failed')), [[{ n: 1 }], [{ n: 6 }], 'failed', undefined, [{ n: 8 }], []]);
    assert.deepEqual(await rows(), ['a=6', 'b=1', 'c=3', 'd=11', 'e=2', 'f=3', 'g=8']);
  });
});

// Reading statements return arrays from SQLite, made into objects by the driver (rowsOf).
describe('SQLite rows', () => {
  const driver = tempDriver();

  it('come back as objects keyed by column name, in column order, with SQLite’s types', async () => {
    const rows = await driver.all(`SELECT 1 AS "n", 'x' AS "s", NULL AS "z", 2.5 AS "f", x'00ff' AS "b"`);
    assert.equal(rows.length, 1);
    assert.deepEqual(Object.keys(rows[0]!), ['n', 's', 'z', 'f', 'b']);
    assert.deepEqual({ ...rows[0]!, b: [...(rows[0]!.b as Buffer)] }, { n: 1, s: 'x', z: null, f: 2.5, b: [0, 255] });
  });

  it('give a name used twice the value of its later column, at its first place', async () => {
    const [row] = await driver.all('SELECT 1 AS "a", 2 AS "b", 3 AS "a"');
    assert.deepEqual(Object.entries(row!), [['a', 3], ['b', 2]]);
  });

  it('are objects of their own, also for a statement run again', async () => {
    await driver.run('CREATE TABLE "R" ("id" TEXT PRIMARY KEY)');
    await driver.run(`INSERT INTO "R" VALUES ('a'), ('b')`);
    const first = await driver.all('SELECT "id" FROM "R" ORDER BY "id"');
    first[0]!.id = 'changed';
    assert.deepEqual(await driver.all('SELECT "id" FROM "R" ORDER BY "id"'), [{ id: 'a' }, { id: 'b' }]);
    assert.equal(await driver.run(`DELETE FROM "R" WHERE "id" = 'a' RETURNING "id"`), 1);
  });
});

describe('SQLite statement failures', () => {
  const driver = tempDriver();

  it('name a missing column as such, and nothing else', async () => {
    await driver.run('CREATE TABLE "M" ("id" TEXT PRIMARY KEY)');
    const missing = await driver.all('SELECT "gone" FROM "M"').then(() => null, (error: unknown) => error);
    assert.equal(driver.missingColumn(missing), true);
    const table = await driver.all('SELECT "id" FROM "Nowhere"').then(() => null, (error: unknown) => error);
    assert.equal(driver.missingColumn(table), false);
    await driver.run(`INSERT INTO "M" VALUES ('a')`);
    const duplicate = await driver.run(`INSERT INTO "M" VALUES ('a')`).then(() => null, (error: unknown) => error);
    assert.equal(driver.missingColumn(duplicate), false);
    assert.equal(driver.uniqueViolation(duplicate), 'PRIMARY');
  });
});
