import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { Params } from '../params.ts';
import { sqliteDialect } from './dialect.ts';

/**
 * SQLite's permission filter (SqliteCompiler.acl): a list of one principal as JSON.stringify writes
 * it matches by its text; every other row is opened with json_each. Every kind of list, in any
 * spelling, must get the answer the list's elements give.
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
  };
  const db = new Database(':memory:');
  db.exec('CREATE TABLE "T" ("id" TEXT PRIMARY KEY, "_rperm" TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO "T" VALUES (?, ?)');
  for (const [id, list] of Object.entries(lists)) insert.run(id, JSON.stringify(list));
  // One principal each, spelled otherwise than JSON.stringify would.
  const respelled: Record<string, [string, string[]]> = {
    spaced: ['[ "u1" ]', ['u1']],
    trailing: ['["u1" ]', ['u1']],
    lines: ['[\n  "*"\n]', ['*']],
    escaped: ['["\\u0075\\u0031"]', ['u1']],
  };
  for (const [id, [text, list]] of Object.entries(respelled)) {
    insert.run(id, text);
    lists[id] = list;
  }

  const readable = (principals: string[]) => {
    const params = new Params(() => '?');
    const where = sqliteDialect.acl('_rperm', principals, params);
    return db.prepare(`SELECT "id" FROM "T" WHERE ${where} ORDER BY "id"`).all(...params.values).map((row) => (row as { id: string }).id);
  };
  const expected = (principals: string[]) =>
    Object.entries(lists)
      .filter(([, list]) => list.some((principal) => principals.includes(principal)))
      .map(([id]) => id)
      .sort();

  for (const principals of [['*'], ['*', 'u1'], ['u1'], ['u2'], ['*', 'u3', 'role:staff'], ['role:a,b'], ['role:say "hi"'], ['nobody']]) {
    it(`reads what ${JSON.stringify(principals)} may read`, () => {
      assert.deepEqual(readable(principals), expected(principals));
    });
  }

  it('settles a list of one by its text before opening any list (the text of the statement)', () => {
    const where = sqliteDialect.acl('_rperm', ['*', 'u1'], new Params(() => '?'));
    assert.equal(where, `("_rperm" IN (?, ?) OR EXISTS (SELECT 1 FROM json_each("_rperm") WHERE "value" IN (?, ?)))`);
  });
});
