import { irregularLowerCases, isSeparator } from '../../query/words.ts';
import { escapeCode, separatorClass } from './regex.ts';

/**
 * The words of `$text` (src/query/words.ts) computed inside PostgreSQL, for a text index: a GIN
 * index over `fn(text)`, where `fn` is an immutable SQL function with the body built here. The
 * function must return exactly the words JavaScript finds, or the index would lose matches, so
 * nothing in it comes from the database's locale: the separators are the code point ranges of
 * words.ts, and the lower case is JavaScript's, written out character by character.
 */

/**
 * Words longer than this are indexed by their first characters (and looked up the same way): a
 * GIN entry must fit in a third of a page, and 256 characters take at most 1 KB.
 */
export const INDEXED_WORD_LENGTH = 256;

/** A word as the index holds it. */
export function indexedWord(word: string): string {
  const chars = [...word];
  return chars.length > INDEXED_WORD_LENGTH ? chars.slice(0, INDEXED_WORD_LENGTH).join('') : word;
}

/**
 * JavaScript's lower case of every character beyond ASCII that has one, in two groups. Most map
 * one word character to another, and a word can be lowered after the text is split. The others
 * (irregularLowerCases: İ, and signs that are separators until lowered) are lowered before the
 * split. Separators that stay separators need no lowering.
 */
function lowerCaseTable(): { before: [string, string][]; within: [string, string][] } {
  const irregular = irregularLowerCases();
  const within: [string, string][] = [];
  for (let code = 0x80; code <= 0x1ffff; code++) {
    if ((code >= 0xd800 && code <= 0xdfff) || isSeparator(code)) continue;
    const char = String.fromCodePoint(code);
    const lower = char.toLowerCase();
    if (lower !== char && !irregular.has(char)) within.push([char, lower]);
  }
  return { before: [...irregular], within };
}

/** A string literal that reads the same whatever standard_conforming_strings says. */
function literal(text: string): string {
  return `E'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** A bracket expression of these characters, runs of consecutive code points as ranges. */
function charClass(chars: readonly string[]): string {
  const codes = chars.map((char) => char.codePointAt(0)!).sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < codes.length; i++) {
    let j = i;
    while (j + 1 < codes.length && codes[j + 1] === codes[j]! + 1) j++;
    parts.push(i === j ? escapeCode(codes[i]!) : `${escapeCode(codes[i]!)}-${escapeCode(codes[j]!)}`);
    i = j;
  }
  return `[${parts.join('')}]`;
}

let body: string | null = null;

/**
 * The body of `fn(text) RETURNS text[]`: the distinct words of the text, each cut to
 * INDEXED_WORD_LENGTH characters. In order: the characters lowered before the split, ASCII lowered
 * by lower() under "C" (which touches nothing else), the split at separators, and then, only in
 * words holding an upper-case letter beyond ASCII, translate() for the rest. translate() looks
 * each character up in a list of some 1,500, so running it over whole texts would cost far more.
 */
export function wordsFunctionBody(): string {
  if (body) return body;
  const { before, within } = lowerCaseTable();
  let text = '$1';
  for (const [char, lower] of before) text = `replace(${text}, ${literal(char)}, ${literal(lower)})`;
  const split = `regexp_split_to_table(lower(${text} COLLATE "C"), ${literal(`${separatorClass()}+`)})`;
  const upper = literal(charClass(within.map(([char]) => char)));
  const lowered = `CASE WHEN "w" ~ ${upper} THEN translate("w", ${literal(within.map(([char]) => char).join(''))}, ${literal(within.map(([, lower]) => lower).join(''))}) ELSE "w" END`;
  const sql = `SELECT coalesce(array_agg(DISTINCT left(${lowered}, ${INDEXED_WORD_LENGTH})), '{}'::text[]) FROM (SELECT DISTINCT "w" FROM ${split} AS "t"("w")) AS "words" WHERE "w" <> ''`;
  if (sql.includes('$words$')) throw new Error('the words function body holds its own quote');
  body = `$words$${sql}$words$`;
  return body;
}
