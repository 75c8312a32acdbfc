import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { postgresForSuite } from './connection.test-helper.ts';
import { translateRegex } from '../../query/regex.ts';
import { words } from '../../query/words.ts';
import { textMatch } from '../sqlite/functions.ts';
import { toAre, wordPattern } from './regex.ts';

/**
 * Differential test: every pattern runs on every subject both as the JavaScript expression SQLite
 * runs (src/sql/sqlite/driver.ts) and as its translation in PostgreSQL, and the two must
 * agree. Likewise for the words of `$text`.
 */

const SUBJECTS = [
  'line one\nline two', 'a\r\nb', 'a\u2028b', 'ÉCOLE café', 'École', 'école', 'x_y', 'foo bar', 'FOO', 'Straße', 'STRASSE', 'ΣΑΣ', 'σας',
  '3.14', 'a{b', 'a}b', '[x]', 'a-b', 'tab\there', 'nbsp\u00a0here', 'aaa', 'abab', 'ǅ', 'ǆ', 'Ǆ', 'K', '\u212a', 'k', 'ſ', 's', '',
  'caret^dollar$', 'back\\slash', 'ok!', 'München', 'MÜNCHEN', 'x\u0008y', 'ABC', 'abc', 'Éa', 'ÿ', 'Ÿ', 'ı', 'I', 'i', 'İ',
];

const PATTERNS: [string, string?][] = [
  ['^line'], ['^line', 'm'], ['two$'], ['one$', 'm'], ['a$', 'm'], ['^b', 'm'], ['one.line'], ['one.line', 's'], ['a.b'], ['a.b', 's'],
  ['one[^x]line'], ['one\\sline'], ['\\S+'], ['^\\w+$'], ['^\\W'], ['\\d\\.\\d'], ['\\D'], ['\\bfoo\\b'], ['o\\B'], ['\\Bo'],
  ['école', 'i'], ['ÉCOLE', 'i'], ['^[é-ë]cole', 'i'], ['straße', 'i'], ['σας', 'i'], ['ΣΑΣ', 'i'], ['ǆ', 'i'], ['k', 'i'], ['s', 'i'], ['ſ', 'i'],
  ['[^a]', 'i'], ['^[^é]', 'i'], ['i', 'i'], ['I', 'i'], ['ÿ', 'i'], ['^[a-c]+$', 'i'], ['^[A-C]+$'], ['[[:alpha:]]+'], ['^[[:upper:]]'], ['[[:punct:]]'],
  ['a{b'], ['a}b'], ['a{1}'], ['a{2,}'], ['^a{0,255}$'], ['a{,300}'], ['x{256'], ['[a{256}]'], ['(a)\\1'], ['(?<x>ab)\\k<x>'], ['(?<=\\$)d'], ['(?<!c)a'], ['(?=b)'], ['(?!a)b'],
  ['\\x41', 'i'], ['\\u00e9'], ['\\Q[x]\\E'], ['^\\Qcaret^\\E'], ['\\\\'], ['[\\]x]'], ['[\\b]'], ['\\cH'], ['[\\d-]'], ['[a-]'],
  ['a b  # comment\n', 'x'], ['a\\ b', 'x'], ['[ ]', 'x'], ['^$'], ['^'], [''], ['.'], ['^.$'], ['(ab)+'], ['a*?b'], ['a|'], ['[.]'], ['[[.a.]]'],
];

describe('PostgreSQL regular expressions match as JavaScript ones', () => {
  const postgres = postgresForSuite();

  async function postgresMatches(subjects: string[], patterns: string[]): Promise<boolean[]> {
    const { rows } = await postgres().query('SELECT (s COLLATE "C") ~ p AS m FROM unnest($1::text[], $2::text[]) AS t(s, p)', [subjects, patterns]);
    return rows.map((row) => row.m as boolean);
  }

  it('for every pattern on every subject', async () => {
    const subjects: string[] = [];
    const translated: string[] = [];
    const expected: boolean[] = [];
    const labels: string[] = [];
    for (const [pattern, options] of PATTERNS) {
      const parsed = translateRegex(pattern, options);
      const flags = `${parsed.caseInsensitive ? 'i' : ''}${parsed.multiline ? 'm' : ''}${parsed.dotAll ? 's' : ''}`;
      const js = new RegExp(parsed.source, flags);
      for (const subject of SUBJECTS) {
        subjects.push(subject);
        translated.push(toAre(parsed));
        expected.push(js.test(subject));
        labels.push(`/${pattern}/${options ?? ''} on ${JSON.stringify(subject)} (as ${toAre(parsed)})`);
      }
    }
    const actual = await postgresMatches(subjects, translated);
    const differing = labels.flatMap((label, i) => (actual[i] === expected[i] ? [] : [`${label}: JavaScript says ${expected[i]}`]));
    assert.deepEqual(differing, []);
  });

  it('finds the words of $text alike', async () => {
    const texts = [
      'The quick brown fox', 'ÉCOLE café naïve', 'state-of-the-art foo_bar 3.14 bob@example.com', 'ΟΔΟΣ', 'Straße', 'x—y', 'emoji😀word', 'tab\tand\nnewline',
      'İstanbul', 'I\u0307STANBUL', 'a\u212ab 20\u212a', 'x\u2126y \u212b',
    ];
    const terms = [
      'quick', 'QUICK FOX', 'école', 'CAFÉ naive', 'art', 'foo', 'example', '14', 'οδοσ', 'strasse', 'straße', 'x y', 'emoji word', 'newline',
      'İSTANBUL', 'i\u0307stanbul', 'istanbul', 'akb', '20', '20k', 'a', 'xωy', 'x', 'å',
    ];
    const subjects: string[] = [];
    const patterns: string[] = [];
    const cells: { text: string; term: string; offset: number; count: number }[] = [];
    for (const text of texts) {
      for (const term of terms) {
        const list = words(term);
        cells.push({ text, term, offset: subjects.length, count: list.length });
        for (const word of list) {
          subjects.push(text);
          patterns.push(wordPattern(word));
        }
      }
    }
    const actual = await postgresMatches(subjects, patterns);
    const differing = cells
      .filter(({ text, term, offset, count }) => (count > 0 && actual.slice(offset, offset + count).every(Boolean)) !== (textMatch(text, term) === 1))
      .map(({ text, term }) => `${JSON.stringify(term)} in ${JSON.stringify(text)}`);
    assert.deepEqual(differing, []);
  });
});
