import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { FindQuery } from '../query/ast.ts';
import { sqliteDialect } from './sqlite/dialect.ts';
import { postgresDialect } from './postgres/dialect.ts';

const table = (className: string) => `"${className}"`;
const page: FindQuery = {
  where: { kind: 'compare', field: { kind: 'doc', path: ['score'] }, op: 'gte', value: 10, as: 'number' },
  order: [{ field: { kind: 'doc', path: ['score'] }, as: 'number', descending: true }],
  limit: 20,
  skip: 40,
};

it("SQLite writes a page's LIMIT as a number and binds its OFFSET; PostgreSQL binds both", () => {
  const sqlite = sqliteDialect.select(table, 'Item', page);
  assert.match(sqlite.sql, / LIMIT 20 OFFSET \?$/);
  assert.deepEqual(sqlite.params, [10, 40]);
  const postgres = postgresDialect.select(table, 'Item', page);
  assert.match(postgres.sql, / LIMIT \$2 OFFSET \$3$/);
  assert.deepEqual(postgres.params, [10, 20, 40]);
});

it('SQLite writes the limit of an inner query as a number', () => {
  const inner: FindQuery = {
    ...page,
    where: { kind: 'inSubquery', field: { kind: 'doc', path: ['owner'] }, as: 'text', element: null, query: { className: 'Owner', where: { kind: 'const', value: true }, select: { kind: 'column', column: 'objectId' }, limit: 7 } },
  };
  const { sql } = sqliteDialect.select(table, 'Item', inner);
  assert.match(sql, /"objectId" IS NOT NULL ORDER BY "objectId" LIMIT 7\)/);
});

it('a nearest-first page on PostgreSQL keeps one plan; other pages are planned per run', () => {
  const loc = { kind: 'doc', path: ['loc'] } as const;
  const point = { latitude: 48.85, longitude: 2.35 };
  const near: FindQuery = {
    where: { kind: 'geoWithinDistance', field: loc, point, maxRadians: 0.01, indexed: true },
    order: [{ field: loc, as: 'number', descending: false, distanceFrom: point }],
    limit: 20,
    skip: 0,
  };
  const [rings, ...more] = postgresDialect.findStatements(table, 'Item', near);
  assert.equal(more.length, 0);
  const ringed = rings!();
  assert.match(ringed.sql, /^WITH "_r0" AS MATERIALIZED/);
  assert.equal(ringed.planOnce, true);
  assert.equal(postgresDialect.select(table, 'Item', page).planOnce, undefined);
});
