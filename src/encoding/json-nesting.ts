/**
 * How deep JSON from a client may nest: a request body, or a query parameter that holds JSON
 * (`where`). Deeper text is refused (107) before it is parsed, so no later step that walks a
 * value by recursion (JSON.stringify, message formatting, both databases' JSON parsers) meets
 * one deep enough to overflow the stack. Stored values nest at most 64 levels (values.ts); a
 * batch command, an operator or 32 levels of `$or` around them stay within this bound.
 */
export const MAX_JSON_NESTING = 100;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether JSON text opens more than `limit` objects or arrays inside one another. A scan of the
 * text, not of the parsed value: text too short to hold that many brackets is not read at all,
 * and strings are skipped with indexOf.
 */
export function nestsDeeperThan(text: string, limit = MAX_JSON_NESTING): boolean {
  if (text.length <= 2 * limit) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = stringEnd(text, i);
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return false;
}

/** The index of the quote that closes the string opened at `start` (the text's length if none). */
function stringEnd(text: string, start: number): number {
  let i = start;
  for (;;) {
    i = text.indexOf('"', i + 1);
    if (i === -1) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(i - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return i;
  }
}
