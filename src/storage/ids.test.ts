import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isoTimestamp, newKey, newObjectId, randomAlphanumerics } from './ids.ts';

describe('ids', () => {
  it('makes objectIds of 15 alphanumerics and keys of 40', () => {
    for (let i = 0; i < 1000; i++) assert.match(newObjectId(), /^[A-Za-z0-9]{15}$/);
    assert.match(newKey(), /^[A-Za-z0-9]{40}$/);
  });

  it('starts objectIds with their millisecond, in characters that sort like the time', () => {
    assert.equal(newObjectId(0).slice(0, 7), '0000000');
    assert.equal(newObjectId(61).slice(0, 7), '000000z');
    assert.equal(newObjectId(62).slice(0, 7), '0000010');
    assert.equal(newObjectId(62 ** 7 - 1).slice(0, 7), 'zzzzzzz');
    const times = [0, 1, 61, 62, 3843, 3844, Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 1) + 1, Date.UTC(2080, 11, 31)];
    const ids = times.map((t) => newObjectId(t));
    // Byte order, as SQLite and PostgreSQL's "C" collation compare the objectId column.
    assert.deepEqual([...ids].sort((a, b) => (Buffer.from(a) < Buffer.from(b) ? -1 : 1)), ids);
    // Two ids of one millisecond share the prefix and differ in the rest.
    const [a, b] = [newObjectId(1_800_000_000_000), newObjectId(1_800_000_000_000)];
    assert.equal(a.slice(0, 7), b.slice(0, 7));
    assert.notEqual(a, b);
  });

  it('does not repeat itself across pool refills, in one millisecond', () => {
    const ids = new Set(Array.from({ length: 20_000 }, () => newObjectId(1_800_000_000_000)));
    assert.equal(ids.size, 20_000);
  });

  it('uses every character about equally often', () => {
    const counts = new Map<string, number>();
    const samples = 62 * 2000;
    for (let i = 0; i < samples / 10; i++) for (const char of randomAlphanumerics(10)) counts.set(char, (counts.get(char) ?? 0) + 1);
    assert.equal(counts.size, 62);
    // 2,000 expected per character; a bias such as byte % 62 over all 256 values (one in 8 more
    // often for the first 8 characters) would put eight counts near 2,420.
    for (const [char, count] of counts) assert.ok(count > 1750 && count < 2250, `${char} came ${count} times`);
  });

  it('formats timestamps as toISOString does, also when the same millisecond comes back', () => {
    for (const millis of [0, 999, 1000, 1_800_000_000_000, 1_800_000_000_000, 1_800_000_000_001, 1_799_999_999_999]) {
      assert.equal(isoTimestamp(millis), new Date(millis).toISOString());
    }
  });
});
