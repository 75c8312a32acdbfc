import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allowedDays, nextRun, parseTimeOfDay } from './schedule-time.ts';

const at = (iso: string) => Date.parse(iso);
const base = { repeatMinutes: null, timeOfDay: null, daysOfWeek: null };

describe('schedule times', () => {
  it('reads Parse Dashboard times of day', () => {
    assert.equal(parseTimeOfDay('01:02:03.004Z'), ((60 + 2) * 60 + 3) * 1000 + 4);
    assert.equal(parseTimeOfDay('23:59'), (23 * 60 + 59) * 60_000);
    assert.equal(parseTimeOfDay('24:00'), null);
    assert.equal(parseTimeOfDay('noon'), null);
  });

  it('repeats every repeatMinutes from startAfter, skipping missed runs', () => {
    const times = { ...base, startAfter: at('2026-01-01T00:00:00Z'), repeatMinutes: 15 };
    assert.equal(nextRun(times, at('2025-12-31T00:00:00Z')), at('2026-01-01T00:00:00Z'));
    assert.equal(nextRun(times, at('2026-01-01T00:00:00Z')), at('2026-01-01T00:15:00Z'));
    assert.equal(nextRun(times, at('2026-01-01T01:07:00Z')), at('2026-01-01T01:15:00Z'));
  });

  it('reads daysOfWeek as Parse Dashboard\'s seven flags (Sunday first) or as day numbers', () => {
    assert.equal(allowedDays([1, 1, 1, 1, 1, 1, 1]), null);
    assert.deepEqual(allowedDays([0, 1, 0, 0, 0, 0, 1]), [1, 6]);
    assert.deepEqual(allowedDays([1, 3]), [1, 3]);
    assert.equal(allowedDays(undefined), null);
  });

  it('runs daily (repeatMinutes 1440) at timeOfDay, on the days of week given', () => {
    const daily = { ...base, startAfter: at('2026-01-01T00:00:00Z'), timeOfDay: parseTimeOfDay('10:30:00.000Z'), repeatMinutes: 1440 };
    assert.equal(nextRun(daily, at('2026-01-01T09:00:00Z')), at('2026-01-01T10:30:00Z'));
    assert.equal(nextRun(daily, at('2026-01-01T10:30:00Z')), at('2026-01-02T10:30:00Z'));
    // 2026-01-01 is a Thursday (4): Mondays (1) only.
    assert.equal(nextRun({ ...daily, daysOfWeek: [1] }, at('2026-01-01T09:00:00Z')), at('2026-01-05T10:30:00Z'));
  });

  it('repeats every repeatMinutes from the first timeOfDay after startAfter', () => {
    const hourly = { ...base, startAfter: at('2026-01-01T12:00:00Z'), timeOfDay: parseTimeOfDay('09:15:00.000Z'), repeatMinutes: 60 };
    assert.equal(nextRun(hourly, at('2026-01-01T11:59:59Z')), at('2026-01-02T09:15:00Z'));
    assert.equal(nextRun(hourly, at('2026-01-02T10:00:00Z')), at('2026-01-02T10:15:00Z'));
  });

  it('runs a one-time schedule once: at startAfter, or at its time of day', () => {
    const once = { ...base, startAfter: at('2026-01-01T00:00:00Z') };
    assert.equal(nextRun(once, at('2025-12-31T00:00:00Z')), at('2026-01-01T00:00:00Z'));
    assert.equal(nextRun(once, at('2026-01-01T00:00:00Z')), null);
    const atTime = { ...once, timeOfDay: parseTimeOfDay('08:00') };
    assert.equal(nextRun(atTime, at('2025-12-31T00:00:00Z')), at('2026-01-01T08:00:00Z'));
    assert.equal(nextRun(atTime, at('2026-01-01T08:00:00Z')), null);
  });
});
