import type { IndexSpec } from './types.ts';

/**
 * Text indexes among a class's indexes. A text index is written as MongoDB writes one,
 * `{"body": "text"}`, and covers one String field; it serves `$text` on that field and nothing
 * else (an equality or a sort on the field needs an ordinary index).
 */

/** The field a text index covers, or null for an ordinary index. */
export function textIndexField(keys: Readonly<Record<string, 1 | -1 | 'text'>>): string | null {
  const entries = Object.entries(keys);
  return entries.length === 1 && entries[0]![1] === 'text' ? entries[0]![0] : null;
}

/** The name of the text index on `field`, if the class has one (a field has at most one). */
export function textIndexOn(indexes: IndexSpec, field: string): string | null {
  for (const [name, keys] of Object.entries(indexes)) if (textIndexField(keys) === field) return name;
  return null;
}

/** The names of the class's text indexes. */
export function textIndexNames(indexes: IndexSpec): string[] {
  return Object.keys(indexes).filter((name) => textIndexField(indexes[name]!) !== null);
}
