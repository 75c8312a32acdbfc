import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseRange } from './range.ts';

describe('parseRange (RFC 9110 14.2)', () => {
  const cases: [header: string, size: number, expected: ReturnType<typeof parseRange>][] = [
    ['bytes=0-9', 100, { start: 0, end: 9 }],
    ['bytes=10-', 100, { start: 10, end: 99 }],
    ['bytes=-10', 100, { start: 90, end: 99 }],
    ['bytes=-1000', 100, { start: 0, end: 99 }],
    ['bytes=90-1000', 100, { start: 90, end: 99 }],
    ['BYTES= 5-5 ', 100, { start: 5, end: 5 }],
    ['bytes=100-', 100, 'unsatisfiable'],
    ['bytes=100-200', 100, 'unsatisfiable'],
    ['bytes=-0', 100, 'unsatisfiable'],
    ['bytes=0-', 0, 'unsatisfiable'],
    ['bytes=-5', 0, 'unsatisfiable'],
    ['bytes=9-0', 100, null],
    ['bytes=-', 100, null],
    ['bytes=0-1,3-4', 100, null],
    ['items=0-1', 100, null],
    ['bytes=a-b', 100, null],
    ['', 100, null],
  ];
  for (const [header, size, expected] of cases) {
    it(`${JSON.stringify(header)} of ${size} bytes → ${JSON.stringify(expected)}`, () => assert.deepEqual(parseRange(header, size), expected));
  }
});
