import { it } from 'node:test';
import assert from 'node:assert/strict';
import { and, type FieldRef, type FindQuery, type WhereNode } from '../query/ast.ts';
import { postgresDialect } from './postgres/dialect.ts';

const table = (className: string) => `"${className}"`;
/** A Number field kept in a stored column whose indexes carry the public-read column. */
const score: FieldRef = { kind: 'doc', path: ['score'], stored: { column: 'f.score', as: 'number', publicColumn: true } };
const name: FieldRef = { kind: 'doc', path: ['name'] };
const readBy = (...principals: string[]): WhereNode => ({ kind: 'acl', access: 'read', principals });
const atLeast = (field: FieldRef, value: number): WhereNode => ({ kind: 'compare', field, op: 'gte', value, as: 'number' });

function whereOf(where: WhereNode): { sql: string; params: readonly unknown[] } {
  const query: FindQuery = { where, order: [], limit: 20, skip: 0 };
  const { sql, params } = postgresDialect.select(table, 'Item', query);
  // The last WHERE: a user's page picks its ids in an inner statement (rows read last).
  const from = sql.lastIndexOf(' WHERE ') + 7;
  return { sql: sql.slice(from, sql.indexOf(' ORDER BY ', from)), params };
}

it('a range of a stored column tests "*" on the public-read column, and other principals on the list', () => {
  assert.deepEqual(whereOf(and([atLeast(score, 10), readBy('*')])), { sql: '("f.score" >= $1) AND ("_public")', params: [10, 20, 0] });
  assert.deepEqual(whereOf(and([atLeast(score, 10), readBy('*', 'u1', 'role:staff')])), {
    sql: '("f.score" >= $1) AND ("_public" OR "_rperm" && $2::text[])',
    params: [10, ['u1', 'role:staff'], 20, 0],
  });
  // secure() wraps the query's own conjunction: the range may sit one level down.
  const nested = and([and([atLeast(score, 10), { kind: 'compare', field: name, op: 'eq', value: 'a', as: 'text' }]), readBy('*')]);
  assert.match(whereOf(nested).sql, /AND \("_public"\)$/);
  const listed: WhereNode = { kind: 'in', field: score, values: [1, 2], as: 'number' };
  assert.match(whereOf(and([listed, readBy('*')])).sql, /AND \("_public"\)$/);
});

it('without such a range the test stays on the list, which its GIN index serves', () => {
  const onList = /AND \("_rperm" && \$\d+::text\[\]\)$/;
  const cases: [string, WhereNode][] = [
    ['no constraint but the ACL', and([{ kind: 'exists', field: name }, readBy('*')])],
    ['$ne reads the whole index', and([{ kind: 'compare', field: score, op: 'ne', value: 3, as: 'number' }, readBy('*')])],
    ['a range inside $or bounds nothing', and([{ kind: 'or', nodes: [atLeast(score, 10), { kind: 'exists', field: name }] }, readBy('*')])],
    ['a stored column whose indexes do not carry the column', and([atLeast({ ...score, stored: { column: 'f.score', as: 'number' } }, 10), readBy('*')])],
    ['a field without a stored column', and([atLeast(name, 10), readBy('*')])],
    ['a caller without "*"', and([atLeast(score, 10), readBy('u1')])],
  ];
  for (const [label, where] of cases) assert.match(whereOf(where).sql, onList, label);
});
