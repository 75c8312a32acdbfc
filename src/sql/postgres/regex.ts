import type { RegexPattern } from '../../query/ast.ts';
import { capturingGroups } from '../../query/regex-subset.ts';
import { caseVariantsOfCodeUnit } from '../../query/regex-case.ts';
import { caseVariants, irregularLowerCases, isSeparator, SEPARATORS } from '../../query/words.ts';

/**
 * JavaScript patterns (src/query/regex-subset.ts checked them) as PostgreSQL advanced regular
 * expressions with the same meaning. Where ARE reads a construct otherwise it is spelled out:
 * "." without the s option excludes JavaScript's four line terminators (ARE's newline-sensitive
 * modes would exclude newlines from [^…] too); ^ and $ with the m option become look-arounds on
 * those terminators; \d \w \s \b are JavaScript's sets, not the locale's; named groups become
 * numbered ones; a { that starts no quantifier is a literal. The pattern runs on text collated
 * "C", where ARE's own case folding covers ASCII only, so with the i option every other letter
 * is given as the class of its case variants.
 */

const LINE_BREAKS = '\\n\\r\\u2028\\u2029';
const WORD = 'A-Za-z0-9_';
const SPACE = ' \\t\\n\\v\\f\\r\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
const BOUNDARY = `(?:(?<=[${WORD}])(?![${WORD}])|(?<![${WORD}])(?=[${WORD}]))`;
const NOT_BOUNDARY = `(?:(?<=[${WORD}])(?=[${WORD}])|(?<![${WORD}])(?![${WORD}]))`;
const CONTROL_ESCAPES: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', f: '\f', v: '\v', b: '\b' };
/** Ranges wider than this are taken to hold their own case variants (enumerating them would not pay). */
const MAX_RANGE_EXPANSION = 0x3000;

export function toAre(pattern: RegexPattern): string {
  return `(?${pattern.caseInsensitive ? 'i' : ''}s)${new Translation(pattern).run()}`;
}

/**
 * The separators of `$text` words (src/query/words.ts) in a text not yet lower case, as one
 * bracket expression: those of words.ts but for the signs whose lower case is a letter.
 */
export function separatorClass(): string {
  if (separators) return separators;
  const letters = [...irregularLowerCases().keys()].map((char) => char.codePointAt(0)!).filter(isSeparator).sort((a, b) => a - b);
  const ranges: [number, number][] = [];
  for (const [from, to] of SEPARATORS) {
    let start = from;
    for (const code of letters.filter((letter) => letter >= from && letter <= to)) {
      if (code > start) ranges.push([start, code - 1]);
      start = code + 1;
    }
    if (start <= to) ranges.push([start, to]);
  }
  separators = `[${ranges.map(([from, to]) => (from === to ? escapeCode(from) : `${escapeCode(from)}-${escapeCode(to)}`)).join('')}]`;
  return separators;
}
let separators: string | null = null;

/**
 * A lower-case word of `$text`, matched whole and in any case (src/query/words.ts): each letter
 * as the class of its case variants, and a run of letters that is the lower case of one
 * character (i̇ of İ) as that character too.
 */
export function wordPattern(word: string): string {
  const separator = separatorClass();
  const letter = (char: string) => {
    const variants = caseVariants(char);
    return variants.length > 1 ? `[${variants.map(classChar).join('')}]` : literal(char);
  };
  const expansions = [...irregularLowerCases()].filter(([, lower]) => [...lower].length > 1);
  const chars = [...word];
  const body: string[] = [];
  for (let i = 0; i < chars.length; ) {
    const lower = expansions.find(([, run]) => chars.slice(i, i + [...run].length).join('') === run)?.[1];
    if (!lower) {
      body.push(letter(chars[i++]!));
      continue;
    }
    const sources = expansions.filter(([, run]) => run === lower).map(([char]) => literal(char));
    const length = [...lower].length;
    body.push(`(?:${chars.slice(i, i + length).map(letter).join('')}|${sources.join('|')})`);
    i += length;
  }
  return `(?s)(?:^|${separator})${body.join('')}(?:$|${separator})`;
}

/** The characters JavaScript's i option treats as `char` (only non-ASCII ones need spelling out). */
function regexVariants(char: string): readonly string[] {
  if (char.length !== 1 || char.charCodeAt(0) < 128) return [char];
  return caseVariantsOfCodeUnit(char);
}

export function escapeCode(code: number): string {
  return code > 0xffff ? `\\U${code.toString(16).padStart(8, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** One character inside [...]: the bracket syntax characters escaped, others as code escapes when not printable ASCII. */
function classChar(char: string): string {
  const code = char.codePointAt(0)!;
  if ('\\]^-['.includes(char)) return `\\${char}`;
  return code < 0x20 || code >= 0x7f ? escapeCode(code) : char;
}

/** One literal character outside [...]. */
function literal(char: string): string {
  const code = char.codePointAt(0)!;
  if (/[\\^$.|?*+()[\]{}]/.test(char)) return `\\${char}`;
  return code < 0x20 || code === 0x7f ? escapeCode(code) : char;
}

type ClassItem = { readonly from: number; readonly to: number } | { readonly set: string };

class Translation {
  private i = 0;
  private readonly source: string;
  private readonly groups: (string | null)[];

  constructor(private readonly pattern: RegexPattern) {
    this.source = pattern.source;
    this.groups = capturingGroups(pattern.source);
  }

  run(): string {
    let out = '';
    while (this.i < this.source.length) out += this.atom();
    return out;
  }

  private next(): string {
    const char = String.fromCodePoint(this.source.codePointAt(this.i)!);
    this.i += char.length;
    return char;
  }

  private atom(): string {
    const { multiline, dotAll } = this.pattern;
    const c = this.next();
    switch (c) {
      case '\\':
        return this.escape();
      case '.':
        return dotAll ? '.' : `[^${LINE_BREAKS}]`;
      case '^':
        return multiline ? `(?:^|(?<=[${LINE_BREAKS}]))` : '^';
      case '$':
        return multiline ? `(?:$|(?=[${LINE_BREAKS}]))` : '$';
      case '(': {
        const named = /^\?<([A-Za-z_$][\w$]*)>/.exec(this.source.slice(this.i));
        if (named) this.i += named[0].length;
        return '(';
      }
      case '{': {
        const quantifier = /^\d+(,\d*)?\}/.exec(this.source.slice(this.i));
        if (!quantifier) return '\\{';
        this.i += quantifier[0].length;
        return `{${quantifier[0]}`;
      }
      case '}':
        return '\\}';
      case '[':
        return this.characterClass();
      case '|':
      case ')':
      case '?':
      case '*':
      case '+':
        return c;
      default:
        return this.literalChar(c);
    }
  }

  private literalChar(char: string): string {
    const variants = this.pattern.caseInsensitive ? regexVariants(char) : [char];
    return variants.length > 1 ? `[${variants.map(classChar).join('')}]` : literal(char);
  }

  /** An escape outside [...], after its backslash. */
  private escape(): string {
    const c = this.next();
    switch (c) {
      case 'd':
        return '[0-9]';
      case 'D':
        return '[^0-9]';
      case 'w':
        return `[${WORD}]`;
      case 'W':
        return `[^${WORD}]`;
      case 's':
        return `[${SPACE}]`;
      case 'S':
        return `[^${SPACE}]`;
      case 'b':
        return BOUNDARY;
      case 'B':
        return NOT_BOUNDARY;
      case 'k': {
        const name = /^<([^>]*)>/.exec(this.source.slice(this.i))!;
        this.i += name[0].length;
        return `\\${this.groups.indexOf(name[1]!) + 1}`;
      }
      default: {
        if (/[1-9]/.test(c)) {
          const digits = c + (/^[0-9]*/.exec(this.source.slice(this.i))![0]);
          this.i += digits.length - 1;
          return `\\${digits}`;
        }
        return this.literalChar(this.escapedChar(c));
      }
    }
  }

  /** The character a character escape (after its backslash and letter `c`) stands for. */
  private escapedChar(c: string): string {
    if (c === 'x' || c === 'u') {
      const length = c === 'x' ? 2 : 4;
      const code = parseInt(this.source.slice(this.i, this.i + length), 16);
      this.i += length;
      return String.fromCharCode(code);
    }
    if (c === 'c') return String.fromCharCode(this.next().charCodeAt(0) % 32);
    return CONTROL_ESCAPES[c] ?? c;
  }

  private characterClass(): string {
    const negated = this.source[this.i] === '^';
    if (negated) this.i++;
    const items: ClassItem[] = [];
    while (this.i < this.source.length && this.source[this.i] !== ']') {
      const first = this.classAtom();
      // JavaScript reads a - next to a set such as \d, or before the closing ], as a literal.
      if ('from' in first && this.source[this.i] === '-' && this.source[this.i + 1] !== ']' && this.i + 1 < this.source.length) {
        const save = this.i;
        this.i++;
        const last = this.classAtom();
        if ('from' in last) {
          items.push({ from: first.from, to: last.from });
          continue;
        }
        this.i = save;
      }
      items.push(first);
    }
    this.i++;
    return `[${negated ? '^' : ''}${items.map((item) => this.classItem(item)).join('')}]`;
  }

  private classAtom(): ClassItem {
    const c = this.next();
    if (c !== '\\') return { from: c.codePointAt(0)!, to: c.codePointAt(0)! };
    const e = this.next();
    if (e === 'd') return { set: '0-9' };
    if (e === 'w') return { set: WORD };
    if (e === 's') return { set: SPACE };
    const code = this.escapedChar(e).codePointAt(0)!;
    return { from: code, to: code };
  }

  private classItem(item: ClassItem): string {
    if ('set' in item) return item.set;
    const { from, to } = item;
    let out = from === to ? classChar(String.fromCodePoint(from)) : `${classChar(String.fromCodePoint(from))}-${classChar(String.fromCodePoint(to))}`;
    if (this.pattern.caseInsensitive && to - from <= MAX_RANGE_EXPANSION) {
      const extra = new Set<string>();
      for (let code = Math.max(from, 128); code <= Math.min(to, 0xffff); code++) {
        for (const variant of regexVariants(String.fromCharCode(code))) {
          const v = variant.charCodeAt(0);
          if (v < from || v > to) extra.add(variant);
        }
      }
      out += [...extra].map(classChar).join('');
    }
    return out;
  }
}
