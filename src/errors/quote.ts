/**
 * A client's value as an error message quotes it: JSON, at most `max` characters (cut with "…"),
 * and objects and arrays shown only to QUOTE_DEPTH levels ("{…}", "[…]" below). Every message
 * that quotes a value of unknown shape goes through here: JSON.stringify, and String() of an
 * array, recurse through the whole value, so one nested thousands of levels deep would overflow
 * the stack, and a large one would be copied whole into the message.
 */
const QUOTE_DEPTH = 3;

export function quote(value: unknown, max = 80): string {
  const out = { text: '', max };
  write(value, QUOTE_DEPTH, out);
  return out.text.length > max ? `${out.text.slice(0, max)}…` : out.text;
}

interface Output {
  text: string;
  readonly max: number;
}

function write(value: unknown, depth: number, out: Output): void {
  if (out.text.length > out.max) return;
  if (typeof value === 'string') {
    out.text += JSON.stringify(value.length > out.max ? value.slice(0, out.max) : value);
  } else if (typeof value === 'number' || typeof value === 'boolean' || value === null) {
    out.text += String(value);
  } else if (Array.isArray(value)) {
    if (depth === 0) {
      out.text += value.length === 0 ? '[]' : '[…]';
      return;
    }
    out.text += '[';
    for (let i = 0; i < value.length && out.text.length <= out.max; i++) {
      if (i > 0) out.text += ',';
      write(value[i], depth - 1, out);
    }
    out.text += ']';
  } else if (typeof value === 'object') {
    const keys = Object.keys(value);
    if (depth === 0) {
      out.text += keys.length === 0 ? '{}' : '{…}';
      return;
    }
    out.text += '{';
    for (let i = 0; i < keys.length && out.text.length <= out.max; i++) {
      if (i > 0) out.text += ',';
      out.text += `${JSON.stringify(keys[i]!.slice(0, out.max))}:`;
      write((value as Record<string, unknown>)[keys[i]!], depth - 1, out);
    }
    out.text += '}';
  } else {
    out.text += String(value);
  }
}
