/**
 * What `$text` calls a word, the same on every backend: a run of characters between separators,
 * compared in lower case. Separators are listed here as code point ranges (white space, ASCII
 * punctuation and symbols, the Unicode punctuation and symbol blocks, emoji) rather than taken
 * from a database's locale, so SQLite and PostgreSQL split every text alike whatever the
 * database's LC_CTYPE is.
 */
export const SEPARATORS: readonly (readonly [number, number])[] = [
  [0x0000, 0x002f],
  [0x003a, 0x0040],
  [0x005b, 0x0060],
  [0x007b, 0x00bf],
  [0x00d7, 0x00d7],
  [0x00f7, 0x00f7],
  [0x1680, 0x1680],
  [0x2000, 0x2bff],
  [0x3000, 0x303f],
  [0xfe30, 0xfe6f],
  [0xfeff, 0xfeff],
  [0xff00, 0xff0f],
  [0xff1a, 0xff20],
  [0xff3b, 0xff40],
  [0xff5b, 0xff65],
  [0x1f000, 0x1faff],
];

const hex = (code: number) => (code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`);
const SEPARATOR = new RegExp(`[${SEPARATORS.map(([from, to]) => (from === to ? hex(from) : `${hex(from)}-${hex(to)}`)).join('')}]+`, 'u');

/** Whether the character is a separator once the text is lower case (as words() reads it). */
export function isSeparator(code: number): boolean {
  return SEPARATORS.some(([from, to]) => code >= from && code <= to);
}

export function words(text: string): string[] {
  // Σ first: toLowerCase() makes a final capital sigma ς, which a letter-by-letter match cannot know.
  return text.replace(/Σ/g, 'σ').toLowerCase().split(SEPARATOR).filter((word) => word !== '');
}

let irregular: Map<string, string> | null = null;

/**
 * Characters whose lower case is not one character of the same kind, with that lower case:
 * U+0130 (İ) becomes two characters, and the Ohm, Kelvin and Angstrom signs are separators whose
 * lower case is a letter. words() lowers a text before splitting it, so in a text these count as
 * what they become. Built once, on first use, over the first two Unicode planes (no character
 * beyond them has a case).
 */
export function irregularLowerCases(): ReadonlyMap<string, string> {
  if (!irregular) {
    irregular = new Map();
    for (let code = 0x80; code <= 0x1ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const char = String.fromCodePoint(code);
      const lower = char.toLowerCase();
      if (lower === char) continue;
      const codes = [...lower].map((c) => c.codePointAt(0)!);
      if (codes.length !== 1 || isSeparator(codes[0]!) !== isSeparator(code)) irregular.set(char, lower);
    }
  }
  return irregular;
}

let upperCaseOf: Map<string, string[]> | null = null;

/**
 * Every character whose lower case is `char` (beside `char` itself): what a case-insensitive
 * match of a lower-case word must accept where no lower() of the database can be relied on.
 * Built once, on first use, over the first two Unicode planes.
 */
export function caseVariants(char: string): string[] {
  if (!upperCaseOf) {
    upperCaseOf = new Map();
    for (let code = 0; code <= 0x1ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const original = String.fromCodePoint(code);
      const lower = original.toLowerCase();
      if (lower === original || [...lower].length !== 1) continue;
      const list = upperCaseOf.get(lower) ?? [];
      list.push(original);
      upperCaseOf.set(lower, list);
    }
  }
  return [char, ...(upperCaseOf.get(char) ?? [])];
}
