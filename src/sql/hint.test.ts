import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { FindQuery, IndexHint } from '../query/ast.ts';
import { sqliteDialect } from './sqlite/dialect.ts';
import { postgresDialect } from './postgres/dialect.ts';

const table = (className: string) => `"${className}"`;
const page: FindQuery = {
  where: { kind: 'compare', field: { kind: 'doc', path: ['name'] }, op: 'eq', value: 'a', as: 'text' },
  order: [],
  limit: 20,
  skip: 0,
};
const byScore: IndexHint = { kind: 'schemaIndex', name: 'byScore' };

it('SQLite reads a hinted schema index with INDEXED BY, the primary key with NOT INDEXED, in the page and in its count', () => {
  const hinted = sqliteDialect.select(table, 'Item', { ...page, hint: byScore });
  assert.match(hinted.sql, /^SELECT "objectId", "createdAt", "updatedAt", json\("data"\) AS "data" FROM "Item" INDEXED BY "Item_idx:byScore" WHERE /);
  const primary = sqliteDialect.select(table, 'Item', { ...page, hint: { kind: 'primaryKey' } });
  assert.match(primary.sql, / FROM "Item" NOT INDEXED WHERE /);
  const counted = sqliteDialect.countedSelect(table, 'Item', { ...page, hint: byScore }, page.where)!;
  assert.equal(counted.sql.match(/FROM "Item" INDEXED BY "Item_idx:byScore" WHERE/g)?.length, 2);
  assert.match(sqliteDialect.count(table, 'Item', page.where, byScore).sql, /^SELECT count\(\*\) AS "n" FROM "Item" INDEXED BY "Item_idx:byScore" WHERE /);
  assert.equal(sqliteDialect.select(table, 'Item', page).sql.includes('INDEXED'), false);
});

it('PostgreSQL has no index hints: a hinted statement is the statement without one', () => {
  assert.deepEqual(postgresDialect.select(table, 'Item', { ...page, hint: byScore }), postgresDialect.select(table, 'Item', page));
  assert.deepEqual(postgresDialect.count(table, 'Item', page.where, { kind: 'primaryKey' }), postgresDialect.count(table, 'Item', page.where));
});

it('a hinted $inQuery page on SQLite is read through the hinted index, not merged from the inner values', () => {
  const inner: FindQuery = {
    ...page,
    where: { kind: 'inSubquery', field: { kind: 'doc', path: ['owner'] }, as: 'text', element: null, indexed: true, query: { className: 'Owner', where: { kind: 'const', value: true }, select: { kind: 'column', column: 'objectId' }, limit: 7 } },
  };
  assert.match(sqliteDialect.select(table, 'Item', inner).sql, /^WITH "_o" AS MATERIALIZED/);
  assert.match(sqliteDialect.select(table, 'Item', { ...inner, hint: byScore }).sql, /^SELECT "objectId", "createdAt", "updatedAt", json\("data"\) AS "data" FROM "Item" INDEXED BY "Item_idx:byScore" WHERE /);
});

it('EXPLAIN forms: PostgreSQL plans without running, SQLite lists its query plan', () => {
  assert.equal(postgresDialect.explainSql('SELECT 1'), 'EXPLAIN (FORMAT JSON) SELECT 1');
  assert.equal(sqliteDialect.explainSql('SELECT 1'), 'EXPLAIN QUERY PLAN SELECT 1');
  assert.deepEqual(sqliteDialect.planOf([{ id: 2, parent: 0, notused: 0, detail: 'SCAN Item' }]), [{ id: 2, parent: 0, detail: 'SCAN Item' }]);
  assert.deepEqual(postgresDialect.planOf([{ 'QUERY PLAN': '[{"Plan": {"Node Type": "Result"}}]' }]), [{ Plan: { 'Node Type': 'Result' } }]);
});
