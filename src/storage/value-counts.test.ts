import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FieldRef, WhereNode } from '../query/ast.ts';
import { boundedWhere, MAX_VALUES, ValueCounts, type Bound } from './value-counts.ts';
import { BoundedCounts } from './bounded-counts.ts';
import { CountMemory } from './count-memory.ts';

const score: FieldRef = { kind: 'doc', path: ['score'] };
const other: FieldRef = { kind: 'doc', path: ['n'] };
const readable: WhereNode = { kind: 'acl', access: 'read', principals: ['*', 'u1'] };
const compare = (field: FieldRef, op: 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte', value: number | string, as: 'number' | 'text' = 'number'): WhereNode => ({ kind: 'compare', field, op, value, as });

describe('boundedWhere', () => {
  it('splits the number bounds of the first bounded field from the rest', () => {
    const where: WhereNode = { kind: 'and', nodes: [compare(score, 'gte', 10), readable, compare(other, 'lt', 5), compare(score, 'lt', 90), compare(score, 'ne', 50)] };
    assert.deepEqual(boundedWhere(where), {
      field: score,
      bounds: [
        { op: 'gte', value: 10 },
        { op: 'lt', value: 90 },
      ],
      rest: [readable, compare(other, 'lt', 5), compare(score, 'ne', 50)],
    });
  });

  it('takes a lone bound, and leaves wheres without a number bound', () => {
    assert.deepEqual(boundedWhere(compare(score, 'eq', 3)), { field: score, bounds: [{ op: 'eq', value: 3 }], rest: [] });
    assert.equal(boundedWhere({ kind: 'and', nodes: [readable, compare(score, 'ne', 3)] }), null);
    assert.equal(boundedWhere(compare(score, 'gte', 'a', 'text')), null);
    assert.equal(boundedWhere({ kind: 'or', nodes: [compare(score, 'gte', 1), compare(score, 'lt', 0)] }), null);
    const pattern: WhereNode = { kind: 'regex', field: other, pattern: { source: 'a+', caseInsensitive: false, multiline: false, dotAll: false, prefix: null, prefixOnly: false } };
    assert.equal(boundedWhere({ kind: 'and', nodes: [compare(score, 'gte', 1), { kind: 'not', node: pattern }] }), null);
  });
});

describe('ValueCounts', () => {
  // Values 0, 10, 20, … 90, held by 1, 2, … 10 rows.
  const counts = ValueCounts.of(Array.from({ length: 10 }, (_, i) => ({ v: i * 10, n: String(i + 1) })))!;
  const truth = (bounds: readonly Bound[]) => {
    let total = 0;
    for (let i = 0; i < 10; i++) {
      const v = i * 10;
      const passes = bounds.every(({ op, value }) => (op === 'eq' ? v === value : op === 'lt' ? v < value : op === 'lte' ? v <= value : op === 'gt' ? v > value : v >= value));
      if (passes) total += i + 1;
    }
    return total;
  };

  it('counts every bound and pair of bounds as the rows say', () => {
    assert.equal(counts.total, 55);
    const ops = ['lt', 'lte', 'gt', 'gte', 'eq'] as const;
    for (const op of ops) {
      for (const value of [-5, 0, 5, 10, 45, 50, 90, 95]) {
        assert.equal(counts.count([{ op, value }]), truth([{ op, value }]), `${op} ${value}`);
        for (const second of ops) {
          const bounds = [
            { op, value },
            { op: second, value: value + 20 },
          ];
          assert.equal(counts.count(bounds), truth(bounds), JSON.stringify(bounds));
        }
      }
    }
  });

  it('refuses values JavaScript may not compare as the database does', () => {
    assert.equal(ValueCounts.of([{ v: '5', n: 1 }]), null);
    assert.equal(ValueCounts.of([{ v: 2 ** 53, n: 1 }]), null);
    assert.equal(ValueCounts.of([{ v: 2, n: 1 }, { v: 1, n: 1 }]), null);
    assert.equal(ValueCounts.of([])!.count([{ op: 'gte', value: 0 }]), 0);
  });
});

describe('BoundedCounts', () => {
  const where = (from: number): WhereNode => ({ kind: 'and', nodes: [compare(score, 'gte', from), readable] });
  const statement = { sql: 'values', params: [] };

  it('reads the values after the second large count, and answers large counts from them', async () => {
    const memory = new CountMemory(60_000);
    const reads: number[] = [];
    const bounded = new BoundedCounts(memory, () => statement, async () => {
      reads.push(memory.generation);
      return Array.from({ length: 3000 }, (_, i) => ({ v: 2999 - i, n: 1 }));
    });
    const first = bounded.of('Item', where(0))!;
    assert.equal(bounded.recall(first), undefined);
    bounded.counted(first, memory.generation, 3000);
    assert.deepEqual(reads, []);
    const second = bounded.of('Item', where(100))!;
    bounded.counted(second, memory.generation, 2900);
    assert.deepEqual(reads, [0]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(bounded.recall(bounded.of('Item', where(500))!), 2500);
    // 1,000 or fewer: counted.
    assert.equal(bounded.recall(bounded.of('Item', where(2000))!), undefined);
    memory.written();
    assert.equal(bounded.recall(bounded.of('Item', where(500))!), undefined);
  });

  it('counts each bound of a where with more values than it keeps, or whose read failed', async () => {
    for (const read of [async () => Array.from({ length: MAX_VALUES + 1 }, (_, i) => ({ v: i, n: 1 })), async () => Promise.reject(new Error('cancelled'))]) {
      const memory = new CountMemory(60_000);
      const bounded = new BoundedCounts(memory, () => statement, read);
      bounded.counted(bounded.of('Item', where(0))!, memory.generation, 40_000);
      bounded.counted(bounded.of('Item', where(1))!, memory.generation, 39_999);
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(bounded.recall(bounded.of('Item', where(2))!), undefined);
      // Not read again within the lifetime.
      let again = false;
      const watching = new BoundedCounts(memory, () => statement, async () => ((again = true), []));
      watching.counted(watching.of('Item', where(3))!, memory.generation, 39_997);
      watching.counted(watching.of('Item', where(4))!, memory.generation, 39_996);
      assert.equal(again, false);
    }
  });

  it('reads nothing for small counts, for counts taken before a write, or with a lifetime of 0', () => {
    let reads = 0;
    const read = async () => ((reads += 1), []);
    const memory = new CountMemory(60_000);
    const bounded = new BoundedCounts(memory, () => statement, read);
    bounded.counted(bounded.of('Item', where(0))!, memory.generation, 900);
    bounded.counted(bounded.of('Item', where(1))!, memory.generation, 899);
    const before = memory.generation;
    memory.written();
    bounded.counted(bounded.of('Item', where(2))!, before, 5000);
    bounded.counted(bounded.of('Item', where(3))!, before, 5000);
    const off = new CountMemory(0);
    const never = new BoundedCounts(off, () => statement, read);
    never.counted(never.of('Item', where(0))!, off.generation, 5000);
    never.counted(never.of('Item', where(1))!, off.generation, 5000);
    assert.equal(reads, 0);
  });
});
