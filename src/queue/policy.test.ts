import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { afterFailure, errorText, MAX_RETRY_DELAY_MS, renewalInterval, retryDelay } from './policy.ts';

describe('queue back-off', () => {
  it('doubles with each attempt, between half and all of base · 2^(n-1)', () => {
    const low = () => 0;
    const high = () => 1;
    for (const [attempt, ceiling] of [[1, 1000], [2, 2000], [3, 4000], [8, 128_000]] as const) {
      assert.equal(retryDelay(attempt, 1000, low), ceiling / 2, `attempt ${attempt}, lowest`);
      assert.equal(retryDelay(attempt, 1000, high), ceiling, `attempt ${attempt}, highest`);
      assert.equal(retryDelay(attempt, 1000, () => 0.5), (ceiling * 3) / 4);
    }
  });

  it('never waits more than an hour, however many attempts', () => {
    assert.equal(retryDelay(13, 1000, () => 1), MAX_RETRY_DELAY_MS);
    assert.equal(retryDelay(1000, 1000, () => 1), MAX_RETRY_DELAY_MS);
    assert.equal(retryDelay(1000, 1000, () => 0), MAX_RETRY_DELAY_MS / 2);
  });

  it('spreads jobs that failed together', () => {
    const delays = new Set(Array.from({ length: 50 }, () => retryDelay(5, 1000)));
    assert.ok(delays.size > 40, `${delays.size} distinct delays of 50`);
    for (const delay of delays) assert.ok(delay >= 8000 && delay <= 16_000, String(delay));
  });
});

describe('queue failure outcome', () => {
  const now = 1_000_000;
  it('retries below the maximum, at now plus the back-off of the attempt that failed', () => {
    assert.deepEqual(afterFailure(1, 8, false, now, 100, () => 0), { kind: 'retry', runAt: now + 50 });
    assert.deepEqual(afterFailure(7, 8, false, now, 100, () => 1), { kind: 'retry', runAt: now + 6400 });
  });
  it('is dead at the maximum, or at once for a permanent failure', () => {
    assert.deepEqual(afterFailure(8, 8, false, now, 100), { kind: 'dead' });
    assert.deepEqual(afterFailure(9, 8, false, now, 100), { kind: 'dead' });
    assert.deepEqual(afterFailure(1, 8, true, now, 100), { kind: 'dead' });
    assert.deepEqual(afterFailure(1, 1, false, now, 100), { kind: 'dead' });
  });
});

describe('queue leases', () => {
  it('are renewed three times per lease period', () => {
    assert.equal(renewalInterval(30_000), 10_000);
    assert.equal(renewalInterval(1000), 333);
    assert.equal(renewalInterval(10), 50);
  });
  it('keep a bounded error text', () => {
    assert.equal(errorText(new Error('refused')), 'refused');
    assert.equal(errorText('x'.repeat(5000)).length, 2000);
  });
});
