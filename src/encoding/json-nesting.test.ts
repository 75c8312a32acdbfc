import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_JSON_NESTING, nestsDeeperThan } from './json-nesting.ts';

const objects = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
const arrays = (levels: number) => '['.repeat(levels) + '1' + ']'.repeat(levels);

describe('nestsDeeperThan', () => {
  it('counts objects and arrays inside one another up to the bound', () => {
    for (const make of [objects, arrays]) {
      assert.equal(nestsDeeperThan(make(MAX_JSON_NESTING)), false);
      assert.equal(nestsDeeperThan(make(MAX_JSON_NESTING + 1)), true);
      assert.equal(nestsDeeperThan(make(400_000)), true);
    }
    assert.equal(nestsDeeperThan('[{"a":[{"b":[1]}]}]', 4), true);
    assert.equal(nestsDeeperThan('[{"a":[{"b":[1]}]}]', 5), false);
  });

  it('counts siblings once, not one after the other', () => {
    assert.equal(nestsDeeperThan(JSON.stringify(Array.from({ length: 500 }, () => ({ a: [1] }))), 3), false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    assert.equal(nestsDeeperThan(JSON.stringify({ a: '['.repeat(500), b: '{"x":'.repeat(200) }), 2), false);
    assert.equal(nestsDeeperThan(JSON.stringify({ a: 'say \\"[[[[[[[[[[[[[[[[[[[[[[[[\\" and \\\\' }), 2), false);
    assert.equal(nestsDeeperThan(`[${JSON.stringify('\\"'.repeat(300))},[[1]]]`, 2), true);
  });

  it('does not read text too short to hold that many levels of valid JSON (JSON.parse refuses the rest)', () => {
    assert.equal(nestsDeeperThan('[[[', 2), false);
    assert.equal(nestsDeeperThan('[[[[[[', 2), true);
  });
});
