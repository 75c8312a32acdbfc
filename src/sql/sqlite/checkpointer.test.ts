import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteDriver } from './driver.ts';
import { Checkpointer } from './checkpointer.ts';

/**
 * The checkpoint thread is SQLite's alone (PostgreSQL checkpoints in its own server process), so
 * these tests drive the driver directly. What a checkpoint did is read from a copy of the database
 * file alone: a row is there only once a checkpoint copied it out of the WAL.
 */
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'basalt-checkpoints-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * The rows of "T" in the database file without its WAL; null when the file does not hold the
 * table yet. A copy taken while the thread writes pages into the file may hold half of them
 * (SQLITE_CORRUPT in the copy, never in the file): it is taken again.
 */
function rowsInFile(file: string): number | null {
  for (let attempt = 1; ; attempt++) {
    try {
      return rowsInCopy(file);
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_CORRUPT' || attempt === 50) throw error;
    }
  }
}

function rowsInCopy(file: string): number | null {
  const copy = `${file}.copy`;
  copyFileSync(file, copy);
  const db = new Database(copy, { readonly: true });
  try {
    const table = db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'T'`).get();
    return table ? (db.prepare('SELECT count(*) AS "n" FROM "T"').get() as { n: number }).n : null;
  } finally {
    db.close();
    rmSync(copy, { force: true });
  }
}

async function writeRows(driver: SqliteDriver, count: number, from = 0): Promise<void> {
  // Twenty writes a turn: they commit together, as concurrent requests' writes do.
  for (let start = from; start < from + count; start += 20) {
    await Promise.all(Array.from({ length: 20 }, (_, i) => driver.run('INSERT INTO "T" ("id", "v") VALUES (?, ?)', [`r${start + i}`, 'x'.repeat(300)])));
  }
}

async function eventually(check: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 100 && !check(); attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('SQLite checkpoints off the main thread', () => {
  it('the main connection never checkpoints by itself; the thread copies the WAL into the file once 1,000 rows were written', async () => {
    const file = join(tempDir(), 'app.db');
    const checkpointer = new Checkpointer();
    const driver = new SqliteDriver(file, null, checkpointer);
    after(() => checkpointer.close());
    await driver.run('CREATE TABLE "T" ("id" TEXT PRIMARY KEY, "v" TEXT)');
    assert.deepEqual(await driver.all('PRAGMA wal_autocheckpoint'), [{ wal_autocheckpoint: 0 }]);
    await writeRows(driver, 900);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(rowsInFile(file), null, 'below the threshold nothing is copied');
    await writeRows(driver, 200, 900);
    await eventually(() => (rowsInFile(file) ?? 0) >= 1000);
    const copied = rowsInFile(file);
    assert.ok(copied !== null && copied >= 1000 && copied <= 1100, `rows in the file: ${copied}`);
    assert.deepEqual(await driver.all('SELECT count(*) AS "n" FROM "T"'), [{ n: 1100 }]);
    await driver.close();
    assert.equal(existsSync(`${file}-wal`), false, 'the last connection to close copied the rest and deleted the WAL');
    assert.equal(rowsInFile(file), 1100);
  });

  it('starts the WAL over once it grew past 16,384 frames, though writes never stop', { timeout: 120_000 }, async () => {
    const file = join(tempDir(), 'app.db');
    const checkpointer = new Checkpointer();
    const driver = new SqliteDriver(file, null, checkpointer);
    after(async () => {
      await driver.close();
      await checkpointer.close();
    });
    await driver.run('CREATE TABLE "T" ("id" TEXT PRIMARY KEY, "v" TEXT)');
    // 40,000 rows of 3,000 bytes: more than 29,000 pages of 4 KB, each written to the WAL at least once.
    for (let start = 0; start < 40_000; start += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, i) => driver.run('INSERT INTO "T" ("id", "v") VALUES (?, ?)', [`r${start + i}`, 'x'.repeat(3000)])));
    }
    const observer = new Database(file);
    try {
      const { log } = (observer.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]!;
      // Never started over, the WAL would hold every frame written; started over, at most the
      // limit and the writes of the rounds that noticed it.
      assert.ok(log < 16_384 + 4_000, `frames in the WAL: ${log}`);
    } finally {
      observer.close();
    }
  });

  it('without a checkpointer the main connection checkpoints as SQLite does', async () => {
    const file = join(tempDir(), 'app.db');
    const driver = new SqliteDriver(file, null, null);
    after(() => driver.close());
    assert.deepEqual(await driver.all('PRAGMA wal_autocheckpoint'), [{ wal_autocheckpoint: 4000 }]);
  });

  it('when the thread cannot run, the checkpoint runs on the main connection', async () => {
    const file = join(tempDir(), 'app.db');
    const checkpointer = new Checkpointer(new URL('./no-such-worker.js', import.meta.url));
    const driver = new SqliteDriver(file, null, checkpointer);
    after(async () => {
      await driver.close();
      await checkpointer.close();
    });
    await driver.run('CREATE TABLE "T" ("id" TEXT PRIMARY KEY, "v" TEXT)');
    await writeRows(driver, 1000);
    await eventually(() => rowsInFile(file) !== null);
    assert.equal(rowsInFile(file), 1000);
  });

  it('reports how much of the WAL it copied, and answers null once closed', async () => {
    const file = join(tempDir(), 'app.db');
    const writer = new Database(file);
    writer.pragma('journal_mode = WAL');
    writer.pragma('wal_autocheckpoint = 0');
    writer.exec('CREATE TABLE "T" ("id" TEXT PRIMARY KEY, "v" TEXT)');
    const insert = writer.prepare('INSERT INTO "T" VALUES (?, ?)');
    for (let i = 0; i < 50; i++) insert.run(`r${i}`, 'x'.repeat(300));
    const checkpointer = new Checkpointer();
    const result = await checkpointer.checkpoint(file);
    assert.ok(result !== null && result.log > 0, JSON.stringify(result));
    assert.equal(result.checkpointed, result.log);
    await checkpointer.forget(file);
    writer.close();
    assert.equal(rowsInFile(file), 50);
    await checkpointer.close();
    assert.equal(await checkpointer.checkpoint(file), null);
  });
});
