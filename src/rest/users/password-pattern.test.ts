import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { matchesWithin } from './password-pattern.ts';

describe('a password tested against an app pattern', () => {
  it('matches or not as the pattern says', () => {
    assert.equal(matchesWithin(/[0-9]/, 'abc1'), true);
    assert.equal(matchesWithin(/[0-9]/, 'abc'), false);
    assert.equal(matchesWithin(/^.{3}$/u, '😀😀😀'), true);
  });

  it('is stopped when it runs past its time, and the next test runs as usual', () => {
    // Run to the end, this test would take days.
    assert.equal(matchesWithin(/^(a+)+$/, `${'a'.repeat(40)}!`, 50), null);
    assert.equal(matchesWithin(/^(a+)+$/, 'aaaa', 50), true);
  });
});
