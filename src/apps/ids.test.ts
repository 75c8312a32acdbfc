import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { newKey, newObjectId } from './ids.ts';

describe('ids', () => {
  it('makes objectIds of 10 alphanumerics and keys of 40', () => {
    for (let i = 0; i < 1000; i++) assert.match(newObjectId(), /^[A-Za-z0-9]{10}$/);
    assert.match(newKey(), /^[A-Za-z0-9]{40}$/);
  });

  it('does not repeat itself across pool refills', () => {
    const ids = new Set(Array.from({ length: 20_000 }, () => newObjectId()));
    assert.equal(ids.size, 20_000);
  });

  it('uses every character about equally often', () => {
    const counts = new Map<string, number>();
    const samples = 62 * 2000;
    for (let i = 0; i < samples / 10; i++) for (const char of newObjectId()) counts.set(char, (counts.get(char) ?? 0) + 1);
    assert.equal(counts.size, 62);
    // 2,000 expected per character; a bias such as byte % 62 over all 256 values (one in 8 more
    // often for the first 8 characters) would put eight counts near 2,420.
    for (const [char, count] of counts) assert.ok(count > 1750 && count < 2250, `${char} came ${count} times`);
  });
});
