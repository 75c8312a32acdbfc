/**
 * A client's value as an error message quotes it: a string as JSON, cut to `max` characters; a
 * number, boolean or null as written; anything else by its kind. Never `String(value)`: a JSON
 * object with a `toString` key of its own makes that throw, and the refusal a 500.
 */
export function quoted(value: unknown, max = 80): string {
  if (typeof value === 'string') return JSON.stringify(value.slice(0, max));
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a value of type ${typeof value}`;
}
