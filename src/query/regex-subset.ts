import { Errors } from '../errors/index.ts';

/**
 * The regular expressions `$regex` accepts: JavaScript's (as SQLite runs them, without the `u`
 * flag), less the few constructs the PostgreSQL translation (src/sql/postgres/regex.ts) cannot
 * give the same meaning. Those are refused with 102 rather than run differently per backend.
 * POSIX classes such as `[[:alpha:]]`, which MongoDB's PCRE reads and JavaScript would not, are
 * rewritten here to the ASCII ranges PCRE gives them.
 */

const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alpha: 'A-Za-z',
  digit: '0-9',
  alnum: 'A-Za-z0-9',
  upper: 'A-Z',
  lower: 'a-z',
  word: 'A-Za-z0-9_',
  xdigit: '0-9A-Fa-f',
  space: ' \\t\\n\\r\\f\\v',
  blank: ' \\t',
  punct: '!-\\/:-@\\[-`{-~',
  cntrl: '\\x01-\\x1f\\x7f',
  print: ' -~',
  graph: '!-~',
};

/** Escapes of a letter that mean the same in both translations; any other letter is refused. */
const LETTER_ESCAPES = new Set(['d', 'D', 'w', 'W', 's', 'S', 'b', 'B', 'n', 'r', 't', 'f', 'v', 'c', 'x', 'u', 'k']);
/** Inside a class PostgreSQL has no complemented sets, and \B and \k mean nothing there. */
const CLASS_ESCAPES = new Set(['d', 'w', 's', 'b', 'n', 'r', 't', 'f', 'v', 'c', 'x', 'u']);

/** A `{` that starts a quantifier (any other `{` is a literal to JavaScript without the u flag). */
const QUANTIFIER = /\{(\d+)(?:,(\d*))?\}/y;
/** PostgreSQL refuses a bound over 255 (its RE_DUP_MAX) as an invalid pattern. */
const MAX_REPETITION = 255;

function refuse(what: string): never {
  throw Errors.invalidQuery(`$regex: ${what} is not supported.`);
}

/** Names of capturing groups in order (null for an unnamed one). */
export function capturingGroups(source: string): (string | null)[] {
  const groups: (string | null)[] = [];
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') {
      const named = /^\?<([A-Za-z_$][\w$]*)>/.exec(source.slice(i + 1));
      if (named) groups.push(named[1]!);
      else if (source[i + 1] !== '?') groups.push(null);
    }
  }
  return groups;
}

/** Checks one escape (after its backslash at `i`) and returns the index after it. */
function checkEscape(source: string, i: number, inClass: boolean, groups: readonly (string | null)[]): number {
  const c = source[i];
  if (c === undefined) refuse('a pattern ending in a backslash');
  if (/[0-9]/.test(c)) {
    const digits = /^[0-9]+/.exec(source.slice(i))![0];
    // Without the u flag JavaScript reads \0 and a reference past the last group as octal escapes.
    if (inClass || digits.startsWith('0') || Number(digits) > groups.length) refuse(`the escape \\${digits}`);
    return i + digits.length;
  }
  if (!/[A-Za-z]/.test(c)) return i + 1;
  if (!(inClass ? CLASS_ESCAPES : LETTER_ESCAPES).has(c)) refuse(`the escape \\${c}${inClass ? ' inside [...]' : ''}`);
  switch (c) {
    case 'c':
      if (!/[A-Za-z]/.test(source[i + 1] ?? '')) refuse('\\c without a letter');
      return i + 2;
    case 'x':
      if (!/^[0-9A-Fa-f]{2}/.test(source.slice(i + 1))) refuse('\\x without two hexadecimal digits');
      return i + 3;
    case 'u':
      if (!/^[0-9A-Fa-f]{4}/.test(source.slice(i + 1))) refuse('\\u without four hexadecimal digits');
      return i + 5;
    case 'k': {
      const name = /^<([^>]*)>/.exec(source.slice(i + 1));
      if (!name || !groups.includes(name[1]!)) refuse('\\k without the name of a group');
      return i + 2 + name[0].length - 1;
    }
    default:
      return i + 1;
  }
}

/** Rewrites POSIX classes and refuses what the backends would read differently. */
export function toCommonSubset(source: string): string {
  const groups = capturingGroups(source);
  let out = '';
  let inClass = false;
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c === '\\') {
      const end = checkEscape(source, i + 1, inClass, groups);
      out += source.slice(i, end);
      i = end;
      continue;
    }
    if (!inClass) {
      if (c === '[') {
        // JavaScript reads [] as "nothing" and [^] as "anything"; PostgreSQL reads a ] there as a literal.
        if (source.startsWith('[]', i) || source.startsWith('[^]', i)) refuse('an empty class [] or [^]');
        inClass = true;
        const opening = source.startsWith('[^', i) ? '[^' : '[';
        out += opening;
        i += opening.length;
        continue;
      }
      if (c === '{') {
        QUANTIFIER.lastIndex = i;
        const counts = QUANTIFIER.exec(source);
        if (counts && counts.slice(1).some((count) => count !== undefined && count !== '' && Number(count) > MAX_REPETITION)) {
          refuse(`a repetition count over ${MAX_REPETITION} (${counts[0]})`);
        }
      }
      out += c;
      i++;
      continue;
    }
    if (c === ']') inClass = false;
    if (c === '[' && source[i + 1] === ':') {
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(source.slice(i));
      if (posix) {
        const ranges = POSIX_CLASSES[posix[2]!];
        if (!ranges || posix[1]) refuse(`the class [:${posix[1]}${posix[2]}:]`);
        out += ranges;
        i += posix[0].length;
        continue;
      }
    }
    out += c;
    i++;
  }
  return out;
}
