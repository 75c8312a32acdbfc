import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LookupBatcher } from './lookup-batcher.ts';
import type { Row, SqlParam } from './driver.ts';

const ROWS: Record<string, Row> = { a: { id: 'a', n: 1, tags: ['x'] }, b: { id: 'b', n: 2, tags: [] } };

function recording(): { batcher: LookupBatcher; statements: [string, readonly SqlParam[]][] } {
  const statements: [string, readonly SqlParam[]][] = [];
  const batcher = new LookupBatcher(async (sql, params) => {
    statements.push([sql, params]);
    if (sql === 'fail') throw new Error('broken');
    const keys = typeof params[0] === 'string' ? [params[0]] : (params[0] as string[]);
    return keys.flatMap((key) => (ROWS[key] ? [structuredClone(ROWS[key])] : []));
  });
  return { batcher, statements };
}

describe('LookupBatcher', () => {
  it('runs a lone lookup as its own one-row statement', async () => {
    const { batcher, statements } = recording();
    assert.deepEqual(await batcher.lookup('one', 'a', () => 'many', 'id'), ROWS.a);
    assert.deepEqual(statements, [['one', ['a']]]);
  });

  it('answers the lookups of one moment with one statement over the distinct keys', async () => {
    const { batcher, statements } = recording();
    const [a, missing, b, again] = await Promise.all(['a', 'zz', 'b', 'a'].map((key) => batcher.lookup('one', key, () => 'many', 'id')));
    assert.deepEqual(statements, [['many', [['a', 'zz', 'b']]]]);
    assert.deepEqual([a, missing, b, again], [ROWS.a, undefined, ROWS.b, ROWS.a]);
    // The same key twice: equal rows, yet not one object that both callers could change.
    assert.notEqual(a, again);
    assert.notEqual((a as { tags: unknown }).tags, (again as { tags: unknown }).tags);
  });

  it('copies nested documents, dates, buffers and a "__proto__" key for the second caller of a key', async () => {
    const row: Row = JSON.parse('{"id": "p", "data": {"a": {"b": [1, {"c": "d"}]}, "__proto__": {"x": 1}}}') as Row;
    row.at = new Date(0);
    row.bytes = Buffer.from('ab');
    const batcher = new LookupBatcher(async () => [row]);
    const [first, second] = (await Promise.all(['p', 'p'].map((key) => batcher.lookup('one', key, () => 'many', 'id')))) as Row[];
    assert.equal(first, row);
    assert.equal(JSON.stringify(second!.data), JSON.stringify(row.data));
    const data = second!.data as Record<string, { b?: unknown[]; x?: number }>;
    assert.notEqual(data, row.data);
    assert.notEqual(data.a!.b, (row.data as Record<string, { b: unknown[] }>).a!.b);
    assert.notEqual(data.a!.b![1], (row.data as Record<string, { b: unknown[] }>).a!.b[1]);
    // An own key, not the copy's prototype.
    assert.equal(Object.getPrototypeOf(data), Object.prototype);
    assert.deepEqual(Object.keys(data), ['a', '__proto__']);
    assert.equal(data['__proto__']!.x, 1);
    assert.ok(second!.at instanceof Date && second!.at !== row.at && second!.at.getTime() === 0);
    assert.notEqual(second!.bytes, row.bytes);
    assert.deepEqual([...(second!.bytes as Uint8Array)], [...(row.bytes as Buffer)]);
  });

  it('keeps lookups of different statements apart, and later moments in statements of their own', async () => {
    const { batcher, statements } = recording();
    await Promise.all([batcher.lookup('one', 'a', () => 'many', 'id'), batcher.lookup('other', 'b', () => 'many', 'id')]);
    await batcher.lookup('one', 'b', () => 'many', 'id');
    assert.deepEqual(statements, [['one', ['a']], ['other', ['b']], ['one', ['b']]]);
  });

  it('fails every lookup of a statement that fails', async () => {
    const { batcher } = recording();
    const outcomes = await Promise.allSettled(['a', 'b'].map((key) => batcher.lookup('one', key, () => 'fail', 'id')));
    assert.deepEqual(outcomes.map((o) => o.status), ['rejected', 'rejected']);
  });
});
