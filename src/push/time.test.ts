import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { instantOfWallTime, offsetKey, offsetMinutes, parsePushTime } from './time.ts';

describe('push times', () => {
  it('reads epoch seconds and zoned ISO dates as instants, zoneless ones as wall times', () => {
    assert.deepEqual(parsePushTime(1_800_000_000), { kind: 'absolute', at: 1_800_000_000_000 });
    assert.deepEqual(parsePushTime('2026-12-01T10:00:00Z'), { kind: 'absolute', at: Date.UTC(2026, 11, 1, 10) });
    assert.deepEqual(parsePushTime('2026-12-01T10:00:00.000+02:00'), { kind: 'absolute', at: Date.UTC(2026, 11, 1, 8) });
    assert.deepEqual(parsePushTime('2026-12-01T10:00:00'), { kind: 'local', wall: Date.UTC(2026, 11, 1, 10) });
    assert.deepEqual(parsePushTime('2026-12-01'), { kind: 'local', wall: Date.UTC(2026, 11, 1) });
    for (const bad of ['tomorrow', '', '2026-13-45T99:00:00Z', Number.NaN, null, {}, true]) assert.equal(parsePushTime(bad), null, String(bad));
  });

  it('finds the instant a zone shows a wall time, across a daylight-saving change', () => {
    const wall = Date.UTC(2026, 6, 1, 9);
    assert.deepEqual(instantOfWallTime(wall, 'Europe/Paris'), { at: Date.UTC(2026, 6, 1, 7), offset: 120 });
    assert.deepEqual(instantOfWallTime(wall, 'America/New_York'), { at: Date.UTC(2026, 6, 1, 13), offset: -240 });
    assert.deepEqual(instantOfWallTime(Date.UTC(2026, 0, 1, 9), 'America/New_York'), { at: Date.UTC(2026, 0, 1, 14), offset: -300 });
    // Paris moves to summer time at 01:00 UTC on 29 March 2026: 09:00 that day is already +2.
    assert.deepEqual(instantOfWallTime(Date.UTC(2026, 2, 29, 9), 'Europe/Paris'), { at: Date.UTC(2026, 2, 29, 7), offset: 120 });
    assert.equal(instantOfWallTime(wall, 'Mars/Olympus'), null);
    assert.equal(offsetMinutes('Asia/Kolkata', wall), 330);
  });

  it('names offsets in hours, as Parse does', () => {
    assert.equal(offsetKey(330), '5.5');
    assert.equal(offsetKey(-300), '-5');
    assert.equal(offsetKey(0), '0');
  });
});
