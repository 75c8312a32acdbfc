import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { applyMigrations } from '../migrations.ts';
import { ident, Params } from '../params.ts';
import { sqliteDialect } from './dialect.ts';
import { SqliteDriver } from './driver.ts';
import { APP_MIGRATIONS } from './migrations.ts';
import { readListTriggers } from './read-lists.ts';

/**
 * SQLite's permission filter (SqliteCompiler.acl): a list of one principal as JSON.stringify writes
 * it matches by its text; only read lists with a comma are opened with json_each, because the
 * server writes that spelling and the trigger of read-lists.ts rewrites any other an UPDATE sets.
 * Every kind of list, in any spelling so set, must get the answer the list's elements give.
 */
describe('the SQLite permission filter', () => {
  const lists: Record<string, string[]> = {
    public: ['*'],
    owner: ['u1'],
    other: ['u2'],
    both: ['*', 'u1'],
    shared: ['u2', 'u1'],
    roles: ['role:staff', 'u3'],
    none: [],
    comma: ['role:a,b'],
    quoted: ['role:say "hi"'],
    accented: ['role:café'],
  };
  const db = new Database(':memory:');
  db.exec('CREATE TABLE "T" ("id" TEXT PRIMARY KEY, "_rperm" TEXT NOT NULL, "_wperm" TEXT NOT NULL)');
  for (const statement of readListTriggers('T', '"T"')) db.exec(statement);
  const insert = db.prepare('INSERT INTO "T" VALUES (?, ?, ?)');
  for (const [id, list] of Object.entries(lists)) insert.run(id, JSON.stringify(list), JSON.stringify(list));
  // One principal each, spelled otherwise than JSON.stringify would (JSON5 included, which
  // SQLite's JSON functions read).
  const respelled: Record<string, [string, string[]]> = {
    spaced: ['[ "u1" ]', ['u1']],
    trailing: ['["u1" ]', ['u1']],
    lines: ['[\n  "*"\n]', ['*']],
    escaped: ['["\\u0075\\u0031"]', ['u1']],
    single: ["['u2']", ['u2']],
    // A bare string is read as a list of itself, by json_each as by the text comparison.
    bare: ['"u3"', ['u3']],
  };
  // The server writes each row; a tool then sets the list in its own spelling.
  for (const [id, [text, list]] of Object.entries(respelled)) {
    insert.run(id, JSON.stringify(list), text);
    db.prepare('UPDATE "T" SET "_rperm" = ? WHERE "id" = ?').run(text, id);
    lists[id] = list;
  }

  const readable = (column: '_rperm' | '_wperm', principals: string[]) => {
    const params = new Params(() => '?');
    const where = sqliteDialect.acl(column, principals, params);
    return db.prepare(`SELECT "id" FROM "T" WHERE ${where} ORDER BY "id"`).all(...params.values).map((row) => (row as { id: string }).id);
  };
  const expected = (principals: string[]) =>
    Object.entries(lists)
      .filter(([, list]) => list.some((principal) => principals.includes(principal)))
      .map(([id]) => id)
      .sort();

  for (const principals of [['*'], ['*', 'u1'], ['u1'], ['u2'], ['u3'], ['*', 'u3', 'role:staff'], ['role:a,b'], ['role:say "hi"'], ['*', 'role:café'], ['nobody']]) {
    it(`reads and writes what ${JSON.stringify(principals)} may`, () => {
      assert.deepEqual(readable('_rperm', principals), expected(principals));
      // Write lists keep the spelling they were given and are always opened.
      assert.deepEqual(readable('_wperm', principals), expected(principals));
    });
  }

  it('a read list without a comma that an UPDATE sets is written again in the one spelling; a write list and a list with a comma are kept', () => {
    const stored = (id: string) => db.prepare('SELECT "_rperm" AS "r", "_wperm" AS "w" FROM "T" WHERE "id" = ?').get(id) as { r: string; w: string };
    assert.deepEqual(stored('spaced'), { r: '["u1"]', w: '[ "u1" ]' });
    assert.deepEqual(stored('escaped'), { r: '["u1"]', w: '["\\u0075\\u0031"]' });
    assert.deepEqual(stored('single'), { r: '["u2"]', w: "['u2']" });
    assert.deepEqual(stored('bare'), { r: '["u3"]', w: '"u3"' });
    assert.deepEqual(stored('accented'), { r: '["role:café"]', w: '["role:café"]' });
    db.prepare('UPDATE "T" SET "_rperm" = ? WHERE "id" = ?').run('[ "u2" ,"u1"]', 'shared');
    assert.equal(stored('shared').r, '[ "u2" ,"u1"]');
    db.prepare('UPDATE "T" SET "_rperm" = ? WHERE "id" = ?').run('[ "u2" ]', 'owner');
    assert.equal(stored('owner').r, '["u2"]');
    db.prepare('UPDATE "T" SET "_rperm" = ? WHERE "id" = ?').run('["u1"]', 'owner');
    assert.equal(stored('owner').r, '["u1"]');
  });

  it('a read list without a comma that is not JSON is refused, and nothing is written', () => {
    assert.throws(() => db.prepare('UPDATE "T" SET "_rperm" = ? WHERE "id" = ?').run('[u1]', 'owner'), /malformed JSON/);
    assert.throws(() => db.prepare('UPDATE "T" SET "_rperm" = ? WHERE "id" = ?').run('["u1"', 'owner'), /malformed JSON/);
    assert.deepEqual(db.prepare('SELECT "_rperm" AS "r" FROM "T" WHERE "id" = ?').get('owner'), { r: '["u1"]' });
    assert.deepEqual(readable('_rperm', ['u1']), expected(['u1']));
  });

  it('a row INSERTed by hand keeps its spelling: a list of one in another spelling grants nothing (no trigger on inserts)', () => {
    const hand = new Database(':memory:');
    hand.exec('CREATE TABLE "T" ("id" TEXT PRIMARY KEY, "_rperm" TEXT NOT NULL, "_wperm" TEXT NOT NULL)');
    for (const statement of readListTriggers('T', '"T"')) hand.exec(statement);
    hand.prepare('INSERT INTO "T" VALUES (?, ?, ?)').run('spaced', '[ "u1" ]', '[]');
    hand.prepare('INSERT INTO "T" VALUES (?, ?, ?)').run('plain', '["u1"]', '[]');
    assert.deepEqual(hand.prepare('SELECT "_rperm" AS "r" FROM "T" WHERE "id" = ?').get('spaced'), { r: '[ "u1" ]' });
    const params = new Params(() => '?');
    const where = sqliteDialect.acl('_rperm', ['*', 'u1'], params);
    assert.deepEqual(hand.prepare(`SELECT "id" FROM "T" WHERE ${where}`).all(...params.values), [{ id: 'plain' }]);
  });

  it('opens only read lists with a comma, and every list where a principal needs escaping (the text of the statement)', () => {
    const text = (column: '_rperm' | '_wperm', principals: string[]) => sqliteDialect.acl(column, principals, new Params(() => '?'));
    assert.equal(text('_rperm', ['*', 'u1']), `("_rperm" IN (?, ?) OR (instr("_rperm", ',') > 0 AND EXISTS (SELECT 1 FROM json_each("_rperm") WHERE "value" IN (?, ?))))`);
    assert.equal(text('_rperm', ['*', 'role:say "hi"']), `("_rperm" IN (?, ?) OR EXISTS (SELECT 1 FROM json_each("_rperm") WHERE "value" IN (?, ?)))`);
    assert.equal(text('_wperm', ['*', 'u1']), `("_wperm" IN (?, ?) OR EXISTS (SELECT 1 FROM json_each("_wperm") WHERE "value" IN (?, ?)))`);
  });
});

describe('app migration 10 on SQLite: read lists and the createdAt index of older class tables', () => {
  const dir = mkdtempSync(join(tmpdir(), 'basalt-perms-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('writes old lists without a comma again, leaves what is not JSON, makes the trigger and the new createdAt index', async () => {
    const file = join(dir, 'app.db');
    const driver = new SqliteDriver(file);
    try {
      // The app as it was before migration 10: a class table without the triggers.
      await driver.transaction((tx) => applyMigrations(tx, APP_MIGRATIONS.filter((migration) => migration.version < 10), ident, ident('_MIGRATIONS')));
      await driver.run(`CREATE TABLE "Old" ("objectId" TEXT PRIMARY KEY, "createdAt" TEXT NOT NULL, "updatedAt" TEXT NOT NULL, "_rperm" TEXT NOT NULL, "_wperm" TEXT NOT NULL, "data" BLOB NOT NULL)`);
      await driver.run(`CREATE INDEX "Old_createdAt" ON "Old" ("createdAt")`);
      await driver.run(`INSERT INTO "_SCHEMA" VALUES ('Old', '{}')`);
      const rows: [string, string][] = [['a', '["*"]'], ['b', '[ "u1" ]'], ['c', '[ "u1", "u2" ]'], ['d', '["\\u0075\\u0032"]'], ['e', '[broken'], ['f', '[]']];
      for (const [id, list] of rows) await driver.run(`INSERT INTO "Old" VALUES (?, 'c', 'u', ?, '[]', jsonb('{}'))`, [id, list]);
      await driver.transaction((tx) => applyMigrations(tx, APP_MIGRATIONS, ident, ident('_MIGRATIONS')));
      const after = await driver.all(`SELECT "objectId" AS "id", "_rperm" AS "r" FROM "Old" ORDER BY "objectId"`);
      assert.deepEqual(after.map((row) => [row.id, row.r]), [['a', '["*"]'], ['b', '["u1"]'], ['c', '[ "u1", "u2" ]'], ['d', '["u2"]'], ['e', '[broken'], ['f', '[]']]);
      const triggers = await driver.all(`SELECT "name" FROM sqlite_master WHERE "type" = 'trigger' AND "tbl_name" = 'Old' ORDER BY "name"`);
      assert.deepEqual(triggers.map((row) => row.name), ['Old::rperm:update']);
      const index = await driver.all(`SELECT "sql" FROM sqlite_master WHERE "type" = 'index' AND "name" = 'Old_createdAt'`);
      assert.deepEqual(index, [{ sql: `CREATE INDEX "Old_createdAt" ON "Old" ("createdAt" DESC, "objectId", "_rperm")` }]);
      await driver.run(`UPDATE "Old" SET "_rperm" = '[ "u3" ]' WHERE "objectId" = 'a'`);
      assert.deepEqual(await driver.all(`SELECT "_rperm" AS "r" FROM "Old" WHERE "objectId" = 'a'`), [{ r: '["u3"]' }]);
    } finally {
      await driver.close();
    }
  });
});
