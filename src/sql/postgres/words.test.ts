import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { postgresForSuite } from './connection.test-helper.ts';
import { words } from '../../query/words.ts';
import { indexedWord, INDEXED_WORD_LENGTH, wordsFunctionBody } from './words.ts';

/**
 * The function a PostgreSQL text index is built on must find exactly the words JavaScript finds
 * (src/query/words.ts), or the index would lose matches: checked on every code point and on
 * texts where lower case and splitting interact.
 */

const TEXTS = [
  'The quick brown fox', 'ÉCOLE café naïve', 'state-of-the-art foo_bar 3.14 bob@example.com', 'ΣΑΣ σας ΟΔΟΣ Σ', 'İstanbul İSTANBUL i̇stanbul',
  'Straße STRASSE ẞ', 'ǅ Ǆ ǆ', 'a\u212ab \u212a \u2126 a\u212bb', 'x—y', 'emoji😀word 👍', 'tab\tand\nnewline', 'nbsp\u00a0here', '東京タワー', 'Съешь ЖЕ ещё',
  'e\u0301cole', 'zero\u200bwidth', '', '...', `${'X'.repeat(300)}y ${'É'.repeat(INDEXED_WORD_LENGTH + 1)}`, 'Ⅻ ⓐⒶ ＡＢＣ ａｂｃ', '𐐀𐐨 𞤀𞤢',
];

describe('the words function of PostgreSQL text indexes', () => {
  const postgres = postgresForSuite((client) => client.query(`CREATE FUNCTION pg_temp.basalt_words(text) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT AS ${wordsFunctionBody()}`).then(() => undefined));

  async function compare(texts: readonly string[]): Promise<string[]> {
    const { rows } = await postgres().query('SELECT pg_temp.basalt_words("t") AS "w" FROM unnest($1::text[]) WITH ORDINALITY AS "u"("t", "n") ORDER BY "n"', [texts]);
    const differing: string[] = [];
    rows.forEach((row, i) => {
      const expected = [...new Set(words(texts[i]!).map(indexedWord))].sort();
      const actual = [...(row.w as string[])].sort();
      if (JSON.stringify(actual) !== JSON.stringify(expected)) differing.push(`${JSON.stringify(texts[i]).slice(0, 80)}: ${JSON.stringify(actual).slice(0, 200)} ≠ ${JSON.stringify(expected).slice(0, 200)}`);
    });
    return differing;
  }

  it('finds the words JavaScript finds in texts of every kind', async () => {
    assert.deepEqual(await compare(TEXTS), []);
  });

  it('reads every assigned code point as JavaScript does, beside ASCII letters', async () => {
    const texts: string[] = [];
    let text = '';
    for (let code = 1; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      // Planes 4 to 13, 15 and 16 hold no assigned characters (private use at most): a sample of them.
      if (code >= 0x40000 && (code < 0xe0000 || code > 0xeffff) && code % 97 !== 0) continue;
      const char = String.fromCodePoint(code);
      text += `A${char}b${char} `;
      if (text.length > 20_000) {
        texts.push(text);
        text = '';
      }
    }
    texts.push(text);
    assert.deepEqual(await compare(texts), []);
  });

  it('returns an empty list for a text without words, and NULL for NULL', async () => {
    const { rows } = await postgres().query(`SELECT pg_temp.basalt_words('... ,;') AS "none", pg_temp.basalt_words(NULL) AS "null"`);
    assert.deepEqual(rows[0], { none: [], null: null });
  });
});
