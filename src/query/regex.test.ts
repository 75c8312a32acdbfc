import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { prefixUpperBound, translateRegex } from './regex.ts';

describe('translateRegex', () => {
  const cases: [string, string | undefined, Partial<ReturnType<typeof translateRegex>>][] = [
    ['^abc', undefined, { source: '^abc', prefix: 'abc', prefixOnly: true }],
    ['^abc.*z', undefined, { source: '^abc.*z', prefix: 'abc', prefixOnly: false }],
    ['^ab?c', undefined, { prefix: 'a', prefixOnly: false }],
    ['^a\\.b', undefined, { prefix: 'a.b', prefixOnly: true }],
    ['^\\Qa.b\\E', undefined, { source: '^a\\.b', prefix: 'a.b', prefixOnly: true }],
    ['\\Qx+y\\E$', undefined, { source: 'x\\+y$', prefix: null }],
    ['^abc', 'i', { caseInsensitive: true, prefix: null, prefixOnly: false }],
    ['^abc', 'm', { multiline: true, prefix: null }],
    ['a b # comment\n c', 'x', { source: 'abc', prefix: null }],
    ['^\\Qa b#\\E', 'x', { source: '^a\\ b\\#', prefix: 'a b#', prefixOnly: true }],
    ['[a b]', 'x', { source: '[a b]' }],
    ['^\\d+', undefined, { prefix: null, prefixOnly: false }],
    ['^', undefined, { prefix: null, prefixOnly: false }],
    ['^[[:digit:]]+$', undefined, { source: '^[0-9]+$', prefix: null }],
    ['[x[:upper:]_]', undefined, { source: '[xA-Z_]' }],
  ];
  for (const [pattern, options, expected] of cases) {
    it(`${JSON.stringify(pattern)} ${options ?? ''}`, () => {
      const translated = translateRegex(pattern, options);
      for (const [key, value] of Object.entries(expected)) assert.deepEqual(translated[key as keyof typeof translated], value, key);
    });
  }

  it('refuses bad patterns and options with 102', () => {
    const refused = [
      ['(', undefined], ['a', 'q'], [5, undefined], ['x'.repeat(1001), undefined],
      // Read differently by PostgreSQL, or by JavaScript without the u flag: refused, not guessed.
      ['\\p{L}', undefined], ['[]', undefined], ['[^]a', undefined], ['\\1', undefined], ['(a)\\2', undefined], ['\\0', undefined],
      ['\\k<x>', undefined], ['[\\W]', undefined], ['\\q', undefined], ['\\y', undefined], ['[[:foo:]]', undefined], ['[[:^alpha:]]', undefined],
      ['\\x4', undefined], ['\\u12', undefined], ['\\c1', undefined],
      // PostgreSQL takes repetition counts up to 255 only.
      ['a{256}', undefined], ['a{1,300}', undefined], ['a{256,}', undefined], ['(ab){0,1000}', 'i'], ['a{000000000000000000000000000000256}', undefined], ['a{2 56}', 'x'],
    ] as const;
    for (const [pattern, options] of refused) {
      assert.throws(() => translateRegex(pattern, options), (error: any) => error.code === 102);
    }
  });

  it('takes repetition counts up to 255, and a { that starts no quantifier as a literal', () => {
    for (const pattern of ['a{255}', 'a{0,255}', 'a{255,}', 'a{000255}', 'a{,300}', 'a{ 256}', 'x{256', '[a{256}]', '\\{256}']) {
      assert.equal(translateRegex(pattern, undefined).source, pattern, pattern);
    }
  });

  it('computes the upper bound of a prefix range', () => {
    assert.equal(prefixUpperBound('abc'), 'abd');
    assert.equal(prefixUpperBound('a\u{10ffff}'), 'b');
    assert.equal(prefixUpperBound(''), null);
  });
});
