/** Field types a class schema can hold (Parse's names, as clients and the dashboard use them). */
export const FIELD_TYPES = ['String', 'Number', 'Boolean', 'Date', 'Object', 'Array', 'Pointer', 'Relation', 'File', 'GeoPoint', 'Polygon', 'Bytes', 'ACL'] as const;
export type FieldTypeName = (typeof FIELD_TYPES)[number];

export interface FieldType {
  readonly type: FieldTypeName;
  /** For Pointer and Relation: the class pointed to. */
  readonly targetClass?: string;
  readonly required?: boolean;
  readonly defaultValue?: unknown;
}

export type ClassLevelPermissions = Readonly<Record<string, unknown>>;
/** index name → { field name: 1 | -1 }, or { field name: "text" } for a text index (schema/indexes.ts) */
export type IndexSpec = Readonly<Record<string, Readonly<Record<string, 1 | -1 | 'text'>>>>;

export interface ClassSchema {
  readonly className: string;
  readonly fields: Readonly<Record<string, FieldType>>;
  readonly classLevelPermissions: ClassLevelPermissions;
  readonly indexes: IndexSpec;
  /**
   * Which of `indexes` Basalt made by itself for queries that kept scanning (rest/auto-index.ts),
   * and when; such a name starts with `auto_`. Dropped with its index.
   */
  readonly autoIndexes?: Readonly<Record<string, AutoIndexInfo>>;
  /**
   * Storage's own record, never shown to clients: the schema indexes built over columns that keep
   * fields' readings beside the document, and those columns (schema/indexes.ts).
   */
  readonly storedIndexes?: StoredIndexes;
  /**
   * Storage's own record: the class table keeps whether "*" may read each row in a column of its
   * own, carried by every index over stored columns (storage/sql-schema-store.ts).
   */
  readonly publicColumn?: true;
  /**
   * Storage's own record: the schema indexes that have a reader index beside them (over stored
   * columns on PostgreSQL, over expressions on SQLite; sql/compiler-pages.ts, `readerPage`). A process of an older version may make a schema
   * index without one; it keeps this list as it found it, so such an index is never taken to have one.
   */
  readonly readerIndexes?: readonly string[];
  /**
   * Storage's own record: the class holds, or once held, a row "*" may not read, so its schema
   * indexes get reader indexes; until then they would serve no page (storage/sql-schema-store.ts).
   */
  readonly privateRows?: true;
}

export interface AutoIndexInfo {
  readonly createdAt: string;
}

/** index name → the readings (path and kind, as query/fields.ts reads them) its columns hold */
export type StoredIndexes = Readonly<Record<string, readonly StoredColumn[]>>;

/** A column holding the reading of the document at `path` as `as`. */
export interface StoredColumn {
  readonly path: readonly string[];
  readonly as: 'text' | 'number' | 'boolean';
  readonly column: string;
}

/** Fields every class has; they live in columns, not in the JSON document. */
export const DEFAULT_FIELDS: Readonly<Record<string, FieldType>> = Object.freeze({
  objectId: { type: 'String' },
  createdAt: { type: 'Date' },
  updatedAt: { type: 'Date' },
  ACL: { type: 'ACL' },
});

export const DEFAULT_CLP: ClassLevelPermissions = Object.freeze({
  find: { '*': true },
  count: { '*': true },
  get: { '*': true },
  create: { '*': true },
  update: { '*': true },
  delete: { '*': true },
  addField: { '*': true },
  protectedFields: { '*': [] },
});

export function sameType(a: FieldType, b: FieldType): boolean {
  return a.type === b.type && (a.targetClass ?? null) === (b.targetClass ?? null);
}

export function describeType(t: FieldType): string {
  return t.targetClass ? `${t.type}<${t.targetClass}>` : t.type;
}
