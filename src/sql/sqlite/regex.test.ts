import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { translateRegex } from '../../query/regex.ts';
import { foldCase, mayBacktrack, sqliteRegex } from './regex.ts';

/**
 * SQLite runs `$regex` with JavaScript's engine, the `i` option written into the pattern
 * (regex.ts): every pattern must match under that rewrite exactly what it matched with the flag.
 */

const EVERY_CODE_UNIT = Array.from({ length: 0x10000 }, (_, code) => String.fromCharCode(code)).join('');

/** The code units a pattern matches, one by one, out of all 65,536. */
function matchedUnits(source: string, flags: string): string {
  return EVERY_CODE_UNIT.match(new RegExp(source, `g${flags}`))?.join('') ?? '';
}

/** What driver.ts builds from the text the dialect sends. */
function asDriverRuns(text: string): RegExp {
  const match = /^\(\?([ims]+)\)/.exec(text);
  return match ? new RegExp(text.slice(match[0].length), match[1]) : new RegExp(text);
}

const SUBJECTS = [
  'École', 'école', 'ÉCOLE café', 'Straße', 'STRASSE', 'ΣΑΣ', 'σας', 'ς', 'µ', 'Μ', 'K', '\u212a', 'k', 'ſ', 's', 'S', 'ı', 'I', 'i', 'İ',
  'ǅ', 'ǆ', 'Ǆ', 'ÿ', 'Ÿ', 'aaa', 'AbAb', 'a{b', 'a-b', 'A_B', 'x]y', '^caret', 'tab\there', 'line\nTWO', '', 'ok!', 'Ǳ', 'ǲ', 'ǳ',
];

const PATTERNS = [
  'école', 'ÉCOLE', '^[é-ë]cole', 'straße', 'σας', 'ΣΑΣ', 'ǆ', 'k', 's', 'ſ', '[^a]', '^[^é]', 'i', 'I', 'ÿ', '^[a-c]+$', '[K-k]', '[\\d-z]',
  '[a-c-e]', '[\\w\\s]+', '\\x41', '\\u00e9', '\\cI', '[\\cA-\\cZ]', '[\\b]', 'a{1,2}b', 'a{b', '(?<name>ab)+', '(?:a|b)+$', '(?=a)a', '(?<!x)b',
  '\\bab\\b', '[\\]x]', '[\\-a]', '[a\\-c]', '^\\^', 'two$', '^(a+)+$', 'µ', '[µ]', '[ǅ]', '\\u01c5', '[^\\w]', '.', '[ß-ÿ]', '[\\u0370-\\u03ff]+',
];

describe('SQLite regexes with the i option', () => {
  it('match every subject as the pattern with the flag does', () => {
    const differing: string[] = [];
    for (const pattern of PATTERNS) {
      for (const options of ['i', 'im', 'is']) {
        const parsed = translateRegex(pattern, options);
        const flagged = new RegExp(parsed.source, options);
        const rewritten = asDriverRuns(sqliteRegex(parsed));
        assert.equal(rewritten.ignoreCase, false, pattern);
        for (const subject of SUBJECTS) {
          if (flagged.test(subject) !== rewritten.test(subject)) differing.push(`/${pattern}/${options} on ${JSON.stringify(subject)} (as ${rewritten})`);
        }
      }
    }
    assert.deepEqual(differing, []);
  });

  it('match each letter of the first planes of letters, and each class, as the flag does, over every code unit', () => {
    const escape = (code: number) => `\\u${code.toString(16).padStart(4, '0')}`;
    const differing: string[] = [];
    for (let code = 0; code < 0x600; code++) {
      if (matchedUnits(escape(code), 'i') !== matchedUnits(foldCase(escape(code))!, '')) differing.push(escape(code));
    }
    for (const code of [0x1e9e, 0x1fbe, 0x2126, 0x212a, 0x212b, 0x2c2f, 0xa7c0, 0xff21, 0xff41]) {
      if (matchedUnits(escape(code), 'i') !== matchedUnits(foldCase(escape(code))!, '')) differing.push(escape(code));
    }
    for (const cls of ['[a-f]', '[^a-z]', '[\\u00c0-\\u00ff]', '[\\u0000-\\uffff]', '[^\\u0100-\\u024f]', '[\\u1e00-\\u1fff]', '[\\u2100-\\u2200]', '[\\ua640-\\ua7ff]', '[^µ]']) {
      if (matchedUnits(cls, 'i') !== matchedUnits(foldCase(cls)!, '')) differing.push(cls);
    }
    assert.deepEqual(differing, []);
  });

  it('write a letter as the class of its variants, so that V8 can switch the pattern to its linear-time engine', () => {
    assert.equal(sqliteRegex(translateRegex('^(a+)+$', 'i')), '^([Aa]+)+$');
    assert.equal(sqliteRegex(translateRegex('^(?<x>é.)', 'is')), '(?s)^(?<x>[\\u00c9\\u00e9].)');
    assert.equal(sqliteRegex(translateRegex('^a{2}$', 'im')), '(?m)^[Aa]{2}$');
    assert.equal(sqliteRegex(translateRegex('^a$', undefined)), '^a$');
  });

  it('keep the flag for a back-reference, which matches its group in any case', () => {
    assert.equal(foldCase('(a)\\1'), null);
    assert.equal(sqliteRegex(translateRegex('(?<x>a)\\k<x>', 'i')), '(?i)(?<x>a)\\k<x>');
    assert.equal(asDriverRuns(sqliteRegex(translateRegex('(a)\\1', 'i'))).test('aA'), true);
  });

  it('tell the patterns V8 may keep backtracking on (run under a time limit) from those it can switch to linear time', () => {
    for (const source of ['(a)\\1', '(?<x>a)\\k<x>', 'a(?=b)', 'a(?!b)', '(?<=a)b', '(?<!a)b', 'a{2}', '(a{1,20})+', 'x{3,}']) {
      assert.equal(mayBacktrack(source), true, source);
    }
    for (const source of ['^([Aa]+)+$', '(?<x>a)+', '(?:a|b)*', '[(?=]', '[\\1]', 'a\\{2}', '\\(?=', '{', 'a{,2}', '[{2}]']) {
      assert.equal(mayBacktrack(source), false, source);
    }
    assert.equal(mayBacktrack(sqliteRegex(translateRegex('(a)\\1', 'i'))), true);
  });
});
