import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import type { FieldRef, TextIndexRef } from '../../query/ast.ts';
import { SEPARATORS, words } from '../../query/words.ts';
import { ident } from '../params.ts';
import { sqliteDialect } from './dialect.ts';
import { textMatch, textWords } from './functions.ts';

/**
 * The FTS5 table of a SQLite text index (dialect.ts) finds candidates that the word test then
 * decides. It must never miss a row the word test accepts: FTS5 must not split a word that
 * words.ts keeps whole, and the triggers must keep the table in step with every write.
 */

const INDEX: TextIndexRef = { className: 'Post', name: 'byBody' };
const BODY: FieldRef = { kind: 'doc', path: ['body'] };

function database(): Database.Database {
  const db = new Database(':memory:');
  db.function('basalt_text_words', { deterministic: true }, textWords);
  db.function('basalt_text_match', { deterministic: true }, textMatch);
  db.exec(`CREATE TABLE "Post" ("objectId" TEXT PRIMARY KEY, "data" BLOB NOT NULL)`);
  for (const sql of sqliteDialect.createTextIndex(INDEX, BODY, ident)) db.exec(sql);
  return db;
}

const isSeparator = (code: number) => SEPARATORS.some(([from, to]) => code >= from && code <= to);

describe('SQLite text indexes', () => {
  it('keep every character that words.ts keeps in a word inside one FTS5 token', () => {
    const db = new Database(':memory:');
    db.exec(`CREATE VIRTUAL TABLE "t" USING fts5("words", content='', tokenize="unicode61 remove_diacritics 0 categories 'L* N* Co M* P* S* Z* C*' separators ' '")`);
    assert.match(sqliteDialect.createTextIndex(INDEX, BODY, ident)[0]!, /tokenize="unicode61 remove_diacritics 0 categories 'L\* N\* Co M\* P\* S\* Z\* C\*' separators ' '"/);
    db.exec(`CREATE VIRTUAL TABLE "v" USING fts5vocab("t", 'row')`);
    // Runs of 500 word characters between "a" and "b": a separator among them would split a run.
    const tokens: string[] = [];
    let run = '';
    for (let code = 1; code <= 0x10ffff; code++) {
      if ((code >= 0xd800 && code <= 0xdfff) || isSeparator(code)) continue;
      run += String.fromCodePoint(code);
      if (run.length >= 1000) {
        tokens.push(`a${run}b`);
        run = '';
      }
    }
    tokens.push(`a${run}b`);
    db.prepare(`INSERT INTO "t" ("rowid", "words") VALUES (1, ?)`).run(tokens.join(' '));
    const terms = db.prepare(`SELECT "term" FROM "v"`).all() as { term: string }[];
    assert.equal(terms.length, tokens.length);
    assert.ok(terms.every(({ term }) => term.startsWith('a') && term.endsWith('b')));
  });

  it('find a superset of what the word test accepts, through inserts, updates and deletes', () => {
    const db = database();
    const texts = [
      'The quick brown fox', 'ÉCOLE café naïve', 'cafe', 'state-of-the-art foo_bar 3.14 bob@example.com', 'ΣΑΣ σας', 'İstanbul', 'Straße STRASSE',
      'a\u212ab', 'emoji😀word 👍', '東京タワー', 'Съешь ЖЕ', 'e\u0301cole', `${'x'.repeat(40_000)}a`, 'ǅ', 'quote"inside', '',
    ];
    const terms = ['quick', 'QUICK FOX', 'école', 'cafe', 'CAFÉ', 'foo', 'foo_bar', 'example', '14', 'σασ', 'İSTANBUL', 'strasse', 'STRAßE', 'akb', 'emoji word', '東京タワー', 'съешь же', 'e\u0301cole', `${'x'.repeat(40_000)}b`, `${'x'.repeat(40_000)}a`, 'ǆ', 'quote inside', 'NEAR', 'AND OR'];
    const put = db.prepare(`INSERT INTO "Post" VALUES (?, jsonb(?))`);
    texts.forEach((body, i) => put.run(`id${i}`, JSON.stringify({ body })));
    put.run('number', JSON.stringify({ body: 5 }));
    put.run('none', JSON.stringify({}));

    const check = (label: string) => {
      for (const term of terms) {
        const list = words(term);
        const find = (node: 'index' | 'exact' | 'both') => {
          const params = sqliteDialect.params(ident);
          const expr = sqliteDialect.fieldExpr(BODY, 'text');
          const where =
            node === 'index' ? sqliteDialect.textIndexMatch(INDEX, expr, list, params)
            : node === 'exact' ? sqliteDialect.textMatch(expr, list, params)
            : sqliteDialect.where({ kind: 'text', field: BODY, words: list, index: INDEX }, params);
          const rows = db.prepare(`SELECT "objectId" FROM "Post" WHERE ${where} ORDER BY "objectId"`).all(...params.values) as { objectId: string }[];
          return rows.map((row) => row.objectId);
        };
        const exact = find('exact');
        const candidates = new Set(find('index'));
        assert.deepEqual(exact.filter((id) => !candidates.has(id)), [], `${label}: the index misses rows for ${JSON.stringify(term).slice(0, 40)}`);
        assert.deepEqual(find('both'), exact, `${label}: ${JSON.stringify(term).slice(0, 40)}`);
      }
    };
    check('inserted');
    db.prepare(`UPDATE "Post" SET "data" = jsonb(?) WHERE "objectId" = 'id0'`).run(JSON.stringify({ body: 'a slow grey fox', other: 1 }));
    db.prepare(`UPDATE "Post" SET "data" = jsonb(?) WHERE "objectId" = 'number'`).run(JSON.stringify({ body: 'quick now' }));
    db.prepare(`UPDATE "Post" SET "data" = jsonb(?) WHERE "objectId" = 'id1'`).run(JSON.stringify({}));
    db.prepare(`DELETE FROM "Post" WHERE "objectId" = 'id3'`).run();
    check('changed');
    const indexed = db.prepare(`SELECT "objectId" FROM ${ident('Post_idx:byBody:words')} ORDER BY "objectId"`).all() as { objectId: string }[];
    assert.deepEqual(indexed.map((row) => row.objectId), ['id0', 'id10', 'id11', 'id12', 'id13', 'id14', 'id15', 'id2', 'id4', 'id5', 'id6', 'id7', 'id8', 'id9', 'number']);
  });

  it('drop the FTS5 table, its shadow tables and the triggers, so that the index can be made again', () => {
    const db = database();
    const objects = () => (db.prepare(`SELECT "type", "name" FROM sqlite_master WHERE "name" LIKE 'Post_idx:%' ORDER BY "name"`).all() as { type: string; name: string }[]).map((row) => `${row.type} ${row.name}`);
    assert.deepEqual(objects().filter((object) => object.startsWith('trigger')), ['trigger Post_idx:byBody:delete', 'trigger Post_idx:byBody:insert', 'trigger Post_idx:byBody:update']);
    for (const sql of sqliteDialect.dropTextIndex(INDEX, ident)) db.exec(sql);
    assert.deepEqual(objects(), []);
    for (const sql of sqliteDialect.createTextIndex(INDEX, BODY, ident)) db.exec(sql);
    assert.ok(objects().includes('table Post_idx:byBody:words'));
  });
});
