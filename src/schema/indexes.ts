import type { ClassSchema, IndexSpec } from './types.ts';
import type { StoredReading, ValueKind } from '../query/ast.ts';

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

/**
 * Columns that keep a field's reading beside the document, made with the indexes over them where
 * the database answers from an index alone only when it holds plain columns (PostgreSQL, see
 * storage/sql-schema-store.ts). While such a column exists it always equals its expression, so a
 * query may read either; it reads the column, which the index holds.
 */
const storedBySchema = new WeakMap<ClassSchema, ReadonlyMap<string, StoredReading>>();

/** The column keeping `path` read as `as`, if an index of the class made one. */
export function storedReading(schema: ClassSchema | null, path: readonly string[], as: ValueKind | 'json'): StoredReading | null {
  const stored = schema?.storedIndexes;
  if (!stored || as === 'json') return null;
  let byPath = storedBySchema.get(schema);
  if (!byPath) {
    const map = new Map<string, StoredReading>();
    const publicColumn = schema.publicColumn ? { publicColumn: true as const } : {};
    const alone = new Set(Object.values(stored).flatMap((columns) => (columns.length === 1 ? [columns[0]!.column] : [])));
    for (const columns of Object.values(stored)) {
      for (const { path: at, as: kind, column } of columns) map.set(readingKey(at, kind), { column, as: kind, ...publicColumn, ...(alone.has(column) ? { indexedAlone: true as const } : {}) });
    }
    storedBySchema.set(schema, (byPath = map));
  }
  return byPath.get(readingKey(path, as)) ?? null;
}

const readerLedBySchema = new WeakMap<ClassSchema, ReadonlySet<string>>();

/**
 * Whether the top-level field `name` is the first key of an index the schema records a reader
 * index beside (`readerIndexes`; sql/compiler-pages.ts, `readerPage`).
 */
export function leadsReaderIndex(schema: ClassSchema | null, name: string): boolean {
  const readers = schema?.readerIndexes;
  if (!schema || !readers?.length) return false;
  let led = readerLedBySchema.get(schema);
  if (!led) {
    led = new Set(readers.map((index) => Object.keys(schema.indexes[index] ?? {})[0]).filter((field): field is string => field !== undefined));
    readerLedBySchema.set(schema, led);
  }
  return led.has(name);
}

function readingKey(path: readonly string[], as: ValueKind): string {
  return `${as}:${path.join('.')}`;
}
