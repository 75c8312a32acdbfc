import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { ClassSchema } from '../../schema/types.ts';
import { parsePipeline } from './parse.ts';

/** How stages fold into levels (each one SELECT) and what the answer's shape is. */

const schema: ClassSchema = { className: 'Item', fields: { team: { type: 'String' }, score: { type: 'Number' }, when: { type: 'Date' } }, classLevelPermissions: {}, indexes: {} };
const parse = (pipeline: unknown[]) => parsePipeline(pipeline, schema, () => null);
const kinds = (pipeline: unknown[]) => parse(pipeline).levels.map((level) => (level.kind === 'rows' ? `rows(skip ${level.skip}, limit ${level.limit}, order ${level.order.length})` : 'group'));

it('$match, $sort, $skip and $limit fold into one level; a skip after a limit keeps what the limit kept', () => {
  assert.deepEqual(kinds([{ $match: { score: 1 } }, { $sort: { score: -1 } }, { $limit: 10 }, { $skip: 3 }, { $limit: 5 }]), ['rows(skip 3, limit 5, order 1)']);
  assert.deepEqual(kinds([{ $limit: 10 }, { $skip: 12 }]), ['rows(skip 12, limit 0, order 0)']);
});

it('a $match or $sort after a $skip or $limit opens a level of its own', () => {
  assert.deepEqual(kinds([{ $limit: 10 }, { $match: { score: 1 } }]), ['rows(skip 0, limit 10, order 0)', 'rows(skip 0, limit null, order 0)']);
  assert.deepEqual(kinds([{ $skip: 1 }, { $sort: { team: 1 } }]), ['rows(skip 1, limit null, order 0)', 'rows(skip 0, limit null, order 1)']);
});

it('an order before $group is dropped unless a skip or a limit keeps rows by it', () => {
  assert.deepEqual(kinds([{ $sort: { score: 1 } }, { $group: { _id: '$team' } }]), ['rows(skip 0, limit null, order 0)', 'group']);
  assert.deepEqual(kinds([{ $sort: { score: 1 } }, { $limit: 2 }, { $group: { _id: '$team' } }]), ['rows(skip 0, limit 2, order 1)', 'group']);
});

it('group documents without a $sort are kept in key order where a skip or limit picks some', () => {
  const plan = parse([{ $group: { _id: '$team', n: { $sum: 1 } } }, { $limit: 2 }]);
  const rows = plan.levels[1]!;
  assert.equal(rows.kind, 'rows');
  if (rows.kind === 'rows') assert.deepEqual(rows.order, [{ field: { kind: 'doc', path: ['key'] }, as: 'text', descending: false }]);
});

it('the group key takes a field name no accumulator uses; $project and $count shape the answer', () => {
  const plan = parse([{ $group: { _id: '$when', key: { $max: '$score' }, n: { $sum: 1 } } }, { $project: { n: 0 } }]);
  assert.deepEqual(plan.output, { kind: 'grouped', keyName: 'key1', fields: [{ name: 'key1', type: 'Date' }, { name: 'key', type: 'Number' }] });
  assert.deepEqual(parse([{ $count: 'total' }]).output, { kind: 'grouped', keyName: null, fields: [{ name: 'total', type: 'Number' }] });
  assert.deepEqual(parse([{ $project: { score: 1, createdAt: 1 } }, { $project: { _id: 0 } }]).output, {
    kind: 'documents',
    projection: { mode: 'include', keys: ['score'], objectId: false, createdAt: true, updatedAt: false },
  });
});
