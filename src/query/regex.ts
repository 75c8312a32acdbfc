import { Errors } from '../errors/index.ts';
import type { RegexPattern } from './ast.ts';
import { toCommonSubset } from './regex-subset.ts';
import { quote } from '../errors/quote.ts';

/**
 * A `$regex` after translation (ast.ts `RegexPattern`): `source` is a JavaScript pattern in the
 * subset src/sql/postgres/regex.ts translates faithfully (regex-subset.ts); `multiline` is
 * option m (`^`/`$` at line breaks), `dotAll` option s; `prefix` is the literal text every match starts with when the
 * pattern is a case-sensitive `^literal…` (the compiler turns it into an index-friendly range),
 * and `prefixOnly` says the range alone decides the match.
 */

const SPECIAL = /[\\^$.|?*+()[\]{}]/;
const MAX_PATTERN = 1000;

/**
 * Translates a Parse `$regex` (with `$options` i, m, s, x) into a pattern both backends run the
 * same way. The Parse SDKs quote literal text as `\Q…\E` (startsWith, endsWith, contains), which
 * neither JavaScript nor PostgreSQL understand, so those sections become escaped literals; the
 * `x` option (free spacing) is applied here for the same reason.
 */
export function translateRegex(pattern: unknown, options: unknown): RegexPattern {
  if (typeof pattern !== 'string') throw Errors.invalidQuery('$regex needs a string.');
  if (pattern.length > MAX_PATTERN) throw Errors.invalidQuery(`$regex is limited to ${MAX_PATTERN} characters.`);
  if (options !== undefined && (typeof options !== 'string' || !/^[imsx]*$/.test(options))) {
    throw Errors.invalidQuery('$options may only hold the letters i, m, s and x.');
  }
  const flags = new Set((options as string | undefined) ?? '');
  let source = unquote(pattern);
  if (flags.has('x')) source = stripFreeSpacing(source);
  source = toCommonSubset(source);
  try {
    // Without the u flag: SQLite's regexp() runs the pattern so (src/sql/sqlite/driver.ts).
    new RegExp(source);
  } catch {
    throw Errors.invalidQuery(`Invalid regular expression: ${quote(pattern, 100)}.`);
  }
  const caseInsensitive = flags.has('i');
  const literal = caseInsensitive || flags.has('m') ? null : literalPrefix(source);
  return {
    source,
    caseInsensitive,
    multiline: flags.has('m'),
    dotAll: flags.has('s'),
    prefix: literal?.text || null,
    prefixOnly: literal !== null && literal.text !== '' && literal.whole,
  };
}

/** White space and # too: quoted text stays literal under the x option, as in PCRE. */
function escapeLiteral(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}\-\/#\s]/g, '\\$&');
}

/** `\Qa.b\E` → `a\.b`; an unterminated `\Q` quotes to the end, as in PCRE. */
function unquote(pattern: string): string {
  let out = '';
  let i = 0;
  while (i < pattern.length) {
    if (pattern.startsWith('\\Q', i)) {
      const end = pattern.indexOf('\\E', i + 2);
      const literal = end === -1 ? pattern.slice(i + 2) : pattern.slice(i + 2, end);
      out += escapeLiteral(literal);
      i = end === -1 ? pattern.length : end + 2;
    } else if (pattern[i] === '\\' && i + 1 < pattern.length) {
      out += pattern.slice(i, i + 2);
      i += 2;
    } else if (pattern.startsWith('\\E', i)) {
      i += 2;
    } else {
      out += pattern[i];
      i += 1;
    }
  }
  return out;
}

/** Free-spacing mode: unescaped white space outside classes is dropped, `#` starts a comment. */
function stripFreeSpacing(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) {
      out += c + pattern[++i];
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
    } else if (c === '#') {
      while (i < pattern.length && pattern[i] !== '\n') i++;
    } else if (!/\s/.test(c)) out += c;
  }
  return out;
}

/** For `^abc…`: the literal run after the anchor (escaped characters unescaped). */
function literalPrefix(source: string): { text: string; whole: boolean } | null {
  if (!source.startsWith('^')) return null;
  let text = '';
  let i = 1;
  while (i < source.length) {
    const c = source[i]!;
    if (c === '\\') {
      const next = source[i + 1];
      if (next === undefined || /[A-Za-z0-9]/.test(next)) break;
      // A quantifier after an escaped literal makes that character optional: stop before it.
      if (/[?*+{]/.test(source[i + 2] ?? '')) break;
      text += next;
      i += 2;
      continue;
    }
    if (SPECIAL.test(c)) break;
    if (/[?*+{]/.test(source[i + 1] ?? '')) break;
    text += c;
    i += 1;
  }
  return { text, whole: i === source.length };
}

/** The smallest string greater than every string starting with `prefix` (for `< upper`). */
export function prefixUpperBound(prefix: string): string | null {
  const codes = Array.from(prefix);
  while (codes.length > 0) {
    const last = codes.pop()!;
    const code = last.codePointAt(0)!;
    if (code < 0x10ffff) return codes.join('') + String.fromCodePoint(code + 1);
  }
  return null;
}
