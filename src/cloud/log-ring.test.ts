import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LogRing } from './log-ring.ts';

const line = (n: number) => ({ level: 'info' as const, message: `line ${n}`, timestamp: new Date(n * 1000).toISOString() });

describe('LogRing', () => {
  it('keeps every line, oldest first, until it is full', () => {
    const ring = new LogRing(3);
    ring.push(line(1));
    ring.push(line(2));
    assert.deepEqual(ring.all().map((entry) => entry.message), ['line 1', 'line 2']);
  });

  it('drops the oldest lines once full, keeping the order', () => {
    const ring = new LogRing(3);
    for (let n = 1; n <= 7; n++) ring.push(line(n));
    assert.deepEqual(ring.all().map((entry) => entry.message), ['line 5', 'line 6', 'line 7']);
  });
});
