import type { FieldRef, ValueKind } from '../query/ast.ts';
import type { ClassSchema, StoredColumn } from './types.ts';

/**
 * What the schema service (service.ts) needs from storage: the class schemas of one app, changed
 * under a lock together with the structure they describe (storage/sql-schema-store.ts). Declared
 * here, beside its user, so that schema/ names nothing of storage/; storage/port.ts re-exports it
 * as part of the AppStore port.
 */
export interface SchemaStore {
  loadAll(): Promise<ClassSchema[]>;
  /** One class's schema as stored now, past any cache; null when it has none. */
  load(className: string): Promise<ClassSchema | null>;
  /** Whether the class has a schema row now (one indexed lookup, past any cache). */
  has(className: string): Promise<boolean>;
  /** Creates the class table and schema row if absent; runs `change` on the current schema under a lock. */
  change(className: string, change: (current: ClassSchema | null) => ClassSchema | null, ddl?: (current: ClassSchema | null, next: ClassSchema) => DdlStep[]): Promise<ClassSchema | null>;
  drop(className: string): Promise<void>;
  /**
   * Deletes every object of each class named and the relation rows they own, keeping the
   * schemas, in one transaction. A class without a schema is skipped; false when none had one.
   */
  purge(classNames: readonly string[]): Promise<boolean>;
  countObjects(className: string): Promise<number>;
  /**
   * Builds a plain index named `indexName` (a schema index name) while writes go on where the
   * database allows it, then refreshes the table's statistics. On PostgreSQL it is built over
   * columns a trigger keeps (added and filled first, without rewriting the table) with CREATE
   * INDEX CONCURRENTLY, outside any transaction; the leftover of a failed build is dropped
   * first. Elsewhere it is on the expressions the compiler reads. It does not touch the schema
   * row: the caller records the index once it exists, with what is answered here in a
   * `recordIndex` step.
   */
  buildIndexOnline(className: string, indexName: string, keys: readonly IndexKey[], withReader?: boolean): Promise<BuiltIndex>;
  /**
   * Builds, as buildIndexOnline does, the reader indexes the class's schema indexes lack
   * (schema/types.ts, `readerIndexes`); the caller records them with a `privateRows` step.
   */
  buildReaderIndexesOnline(className: string): Promise<void>;
  /** How often the planner read each named schema index since statistics were reset; null where the database does not count. */
  indexScans(className: string, indexNames: readonly string[]): Promise<ReadonlyMap<string, number> | null>;
}

/** The job that makes a class's reader indexes once it holds a row "*" may not read (rest/reader-index-job.ts). */
export const READER_INDEX_JOB = 'readerIndexes';

/** What `SchemaStore.buildIndexOnline` made. */
export interface BuiltIndex {
  /** The stored columns the index is over; null: over expressions. */
  readonly columns: readonly StoredColumn[] | null;
  /** A reader index stands beside it (schema/types.ts, `readerIndexes`). */
  readonly reader: boolean;
}

/** Structural changes the schema layer asks storage to make along with a schema change. */
export type DdlStep =
  | { readonly kind: 'createIndex'; readonly name: string; readonly keys: readonly IndexKey[]; readonly unique?: boolean }
  | { readonly kind: 'dropIndex'; readonly name: string }
  /** The class holds a row "*" may not read: its schema indexes get the reader indexes they lack. */
  | { readonly kind: 'privateRows' }
  /** An index buildIndexOnline made (`BuiltIndex`): recorded in the schema row, no DDL. */
  | { readonly kind: 'recordIndex'; readonly name: string; readonly columns: readonly StoredColumn[] | null; readonly reader: boolean }
  /** A text index serving `$text` on one String field: filled from the rows there, kept in step with every write. */
  | { readonly kind: 'createTextIndex'; readonly name: string; readonly field: FieldRef }
  | { readonly kind: 'dropTextIndex'; readonly name: string }
  | { readonly kind: 'dropField'; readonly field: string; readonly relation: boolean };

export interface IndexKey {
  readonly field: FieldRef;
  readonly as: ValueKind | 'json';
  readonly descending: boolean;
  /** The column is the latitude cell of the latitude at `field` (sql/geo.ts), not the value itself. */
  readonly latitudeCell?: true;
}
