import type { RegexPattern } from '../../query/ast.ts';
import { caseVariantsOfCodeUnit, foldingCodeUnits } from '../../query/regex-case.ts';

/**
 * The pattern SQLite's regexp() runs (src/sql/sqlite/driver.ts): JavaScript source with its
 * flags as a leading "(?ms)". The `i` option is written into the pattern instead of passed as a
 * flag: each letter becomes the class of its case variants (query/regex-case.ts) and each class
 * gains its members' variants. V8 runs a pattern that backtracks past its bound again in its
 * linear-time engine, but not under `i` (docs/architecture.md, "Regular expressions"); without
 * it, `^(a+)+$` with `i` switches as it does without. A pattern with a back-reference keeps the
 * flag, since `\1` under `i` matches its group in any case; it backtracks either way.
 */
export function sqliteRegex(pattern: RegexPattern): string {
  let source = pattern.source;
  let flags = `${pattern.multiline ? 'm' : ''}${pattern.dotAll ? 's' : ''}`;
  if (pattern.caseInsensitive) {
    const folded = foldCase(source);
    if (folded === null) flags = `i${flags}`;
    else source = folded;
  }
  return flags ? `(?${flags})${source}` : source;
}

/**
 * The SQL function that runs a pattern V8's linear-time engine may not take: the driver runs a
 * statement that calls it under a time limit (src/sql/sqlite/driver.ts). `regexp()` runs
 * every other pattern, with nothing around it.
 */
export const TIMED_REGEXP = 'basalt_regexp_timed';

/**
 * Whether V8 might keep backtracking on `source` (as sqliteRegex writes it): its linear-time
 * engine takes no back-reference, no lookaround, and counted repetitions only while their counts
 * multiply to 16 or less. Any counted repetition is counted here: a pattern wrongly taken for
 * one that backtracks only runs under the time limit.
 */
export function mayBacktrack(source: string): boolean {
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      if (!inClass && /[1-9k]/.test(source[i + 1] ?? '')) return true;
      i++;
    } else if (inClass) {
      if (c === ']') inClass = false;
    } else if (c === '[') inClass = true;
    else if (c === '(' && /^\?(?:[=!]|<[=!])/.test(source.slice(i + 1, i + 4))) return true;
    else if (c === '{') {
      QUANTIFIER.lastIndex = i;
      if (QUANTIFIER.test(source)) return true;
    }
  }
  return false;
}

const QUANTIFIER = /\{\d+(?:,\d*)?\}/y;
const GROUP_OPENING = /\?(?:<[A-Za-z_$][\w$]*>|<[=!]|[:=!])/y;
const CONTROL_ESCAPES: Readonly<Record<string, number>> = { b: 0x08, t: 0x09, n: 0x0a, v: 0x0b, f: 0x0c, r: 0x0d };

type ClassItem = { readonly from: number; readonly to: number } | { readonly set: string };

/**
 * `source` (checked by query/regex-subset.ts, so well formed) matching under `i` what it
 * matched before, without the flag; null when it holds a back-reference. Read by code unit, as
 * JavaScript reads a pattern without `u`.
 */
export function foldCase(source: string): string | null {
  let out = '';
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c === '\\') {
      const e = source[i + 1]!;
      if (/[1-9k]/.test(e)) return null;
      const escape = characterEscape(source, i + 1);
      if (escape) {
        out += literal(escape.code, source.slice(i, escape.end));
        i = escape.end;
      } else {
        out += source.slice(i, i + 2);
        i += 2;
      }
      continue;
    }
    if (c === '(') {
      GROUP_OPENING.lastIndex = i + 1;
      const opening = GROUP_OPENING.exec(source);
      const end = i + 1 + (opening ? opening[0].length : 0);
      out += source.slice(i, end);
      i = end;
      continue;
    }
    if (c === '{') {
      QUANTIFIER.lastIndex = i;
      const quantifier = QUANTIFIER.exec(source);
      const end = quantifier ? i + quantifier[0].length : i + 1;
      out += source.slice(i, end);
      i = end;
      continue;
    }
    if (c === '[') {
      const parsed = characterClass(source, i);
      out += parsed.text;
      i = parsed.end;
      continue;
    }
    out += '^$.|)?*+}]'.includes(c) ? c : literal(c.charCodeAt(0), c);
    i++;
  }
  return out;
}

/**
 * The code unit an escape stands for (after its backslash at `start`), and where it ends; null
 * for a class escape such as `\d` or an assertion such as `\b` outside a class.
 */
function characterEscape(source: string, start: number, inClass = false): { code: number; end: number } | null {
  const e = source[start]!;
  if (e === 'x' || e === 'u') {
    const length = e === 'x' ? 2 : 4;
    return { code: parseInt(source.slice(start + 1, start + 1 + length), 16), end: start + 1 + length };
  }
  if (e === 'c') return { code: source.charCodeAt(start + 1) % 32, end: start + 2 };
  if (e === 'b') return inClass ? { code: 0x08, end: start + 1 } : null;
  if (/[dDwWsSB]/.test(e)) return null;
  return { code: CONTROL_ESCAPES[e] ?? e.charCodeAt(0), end: start + 1 };
}

/** A literal outside a class: as written when it has no other case, else the class of its variants. */
function literal(code: number, written: string): string {
  const variants = caseVariantsOfCodeUnit(String.fromCharCode(code));
  return variants.length > 1 ? `[${variants.map((v) => classChar(v.charCodeAt(0))).join('')}]` : written;
}

/** `[...]` from `start`: each member and range written out, with the variants the range lacks. */
function characterClass(source: string, start: number): { text: string; end: number } {
  let i = start + 1;
  const negated = source[i] === '^';
  if (negated) i++;
  const items: ClassItem[] = [];
  const atom = (): ClassItem => {
    if (source[i] !== '\\') return { from: source.charCodeAt(i), to: source.charCodeAt(i++) };
    const escape = characterEscape(source, i + 1, true);
    if (!escape) {
      const set = source.slice(i, i + 2);
      i += 2;
      return { set };
    }
    i = escape.end;
    return { from: escape.code, to: escape.code };
  };
  while (i < source.length && source[i] !== ']') {
    const first = atom();
    // As JavaScript reads it: a - before the closing ], or next to a set such as \d, is a literal.
    if ('from' in first && source[i] === '-' && source[i + 1] !== ']' && i + 1 < source.length) {
      const save = i;
      i++;
      const last = atom();
      if ('from' in last) {
        items.push({ from: first.from, to: last.from });
        continue;
      }
      i = save;
    }
    items.push(first);
  }
  return { text: `[${negated ? '^' : ''}${items.map(classItem).join('')}]`, end: i + 1 };
}

function classItem(item: ClassItem): string {
  if ('set' in item) return item.set;
  const { from, to } = item;
  let out = from === to ? classChar(from) : `${classChar(from)}-${classChar(to)}`;
  const extra = new Set<number>();
  for (const code of foldingCodeUnits(from, to)) {
    for (const variant of caseVariantsOfCodeUnit(String.fromCharCode(code))) {
      const v = variant.charCodeAt(0);
      if (v < from || v > to) extra.add(v);
    }
  }
  for (const code of [...extra].sort((a, b) => a - b)) out += classChar(code);
  return out;
}

/** One code unit inside [...]: letters and digits as they are, anything else as \uXXXX. */
function classChar(code: number): string {
  return /[A-Za-z0-9]/.test(String.fromCharCode(code)) ? String.fromCharCode(code) : `\\u${code.toString(16).padStart(4, '0')}`;
}
