import type { FindQuery, IndexHint, WhereNode } from '../query/ast.ts';
import type { ClassSchema } from '../schema/types.ts';

/** An object as stored: the built-in columns, the permission lists and the JSON document. */
export interface StoredObject {
  readonly objectId: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly rperm: readonly string[];
  readonly wperm: readonly string[];
}

export interface RelationChange {
  readonly field: string;
  readonly add: readonly string[];
  readonly remove: readonly string[];
}

export interface ObjectWrite {
  readonly object: StoredObject;
  readonly relations: readonly RelationChange[];
}

/** `null` principals means the master key: no permission check. */
export type Principals = readonly string[] | null;

/** What the use cases of src/rest need from storage for one app. */
export interface AppStore {
  insert(className: string, write: ObjectWrite): Promise<void>;
  get(className: string, objectId: string, read: Principals): Promise<StoredObject | null>;
  find(className: string, query: FindQuery): Promise<StoredObject[]>;
  count(className: string, where: WhereNode, hint?: IndexHint): Promise<number>;
  /** `find` and `count` together, as one statement where the backend can (see sql-store.ts); the count reads `query.hint` too. */
  findWithCount(className: string, query: FindQuery, countWhere: WhereNode): Promise<{ objects: StoredObject[]; count: number }>;
  /**
   * The plans of the statements that `find`, `count` or `findWithCount` would run for these
   * arguments (a null `query` counts only, a null `countWhere` finds only), one per statement, in
   * the database's own form; nothing is read. `hint` is the count's when it runs alone.
   */
  explain(className: string, query: FindQuery | null, countWhere: WhereNode | null, hint?: IndexHint): Promise<unknown[]>;
  /** Reads the object under a write lock, lets `mutate` compute the new state, stores it. */
  update(className: string, objectId: string, write: Principals, mutate: (current: StoredObject) => ObjectWrite): Promise<StoredObject | null>;
  /** Deletes the object if these principals may write it and it matches `where` (when given). */
  delete(className: string, objectId: string, write: Principals, where?: WhereNode): Promise<boolean>;
  /** Whether the object exists and these principals may write it. */
  canWrite(className: string, objectId: string, write: Principals): Promise<boolean>;
  relatedIds(className: string, field: string, objectId: string): Promise<string[]>;
  /**
   * Claims a request id (removing claims older than `staleBefore`): null when this caller now owns
   * it; otherwise the stored answer of the first request, or `running` while it has none yet.
   */
  claimRequest(requestId: string, now: number, staleBefore: number): Promise<null | 'running' | { status: number; body: unknown }>;
  completeRequest(requestId: string, status: number, body: unknown): Promise<void>;
  releaseRequest(requestId: string): Promise<void>;
  /**
   * Counts `amount` (default 1) more events in `window` for `key` (a new window starts at
   * `amount`); returns the window's count including them.
   */
  countInWindow(key: string, window: number, amount?: number): Promise<number>;
  /**
   * Slots of a key (`take(key, n)`) that every server process on the app's database shares, each
   * process holding its own; null where one process owns the database.
   */
  readonly sharedSlots: SharedSlots | null;

  schemas: SchemaStore;
  events: EventStore;
}

/** One analytics event as it is recorded (spec 2.13), already checked. */
export interface TrackedEvent {
  readonly name: string;
  /** Milliseconds since 1970, not negative. */
  readonly at: number;
  /** The kept dimension pairs, in the order they were given; keys are distinct. */
  readonly dimensions: readonly (readonly [key: string, value: string])[];
}

/**
 * Buckets are whole hours or whole UTC days, named by their first hour since 1970 (the bucket
 * starts at `hour * 3600000`). `fromHour` is inclusive, `toHour` exclusive; both are day-aligned
 * for days.
 */
export interface EventCountQuery {
  readonly name: string;
  readonly interval: 'hour' | 'day';
  readonly fromHour: number;
  readonly toHour: number;
  /** Splits the counts by the values of this dimension; absent, every event of the name counts. */
  readonly dimension?: string;
  readonly limit: number;
}

export interface EventCount {
  /** The bucket's first hour since 1970. */
  readonly hour: number;
  /** The dimension's value, when the query splits by one. */
  readonly value?: string;
  readonly count: number;
}

/** Analytics events of one app: an append-only log and hourly counts kept with each append. */
export interface EventStore {
  append(event: TrackedEvent): Promise<void>;
  /** Buckets with at least one event, in time order, then by value. */
  counts(query: EventCountQuery): Promise<EventCount[]>;
}

export interface SchemaStore {
  loadAll(): Promise<ClassSchema[]>;
  /** Creates the class table and schema row if absent; runs `change` on the current schema under a lock. */
  change(className: string, change: (current: ClassSchema | null) => ClassSchema | null, ddl?: (current: ClassSchema | null, next: ClassSchema) => DdlStep[]): Promise<ClassSchema | null>;
  drop(className: string): Promise<void>;
  countObjects(className: string): Promise<number>;
}

/** Structural changes the schema layer asks storage to make along with a schema change. */
export type DdlStep =
  | { readonly kind: 'createIndex'; readonly name: string; readonly keys: readonly IndexKey[]; readonly unique?: boolean }
  | { readonly kind: 'dropIndex'; readonly name: string }
  /** A text index serving `$text` on one String field: filled from the rows there, kept in step with every write. */
  | { readonly kind: 'createTextIndex'; readonly name: string; readonly field: import('../query/ast.ts').FieldRef }
  | { readonly kind: 'dropTextIndex'; readonly name: string }
  | { readonly kind: 'dropField'; readonly field: string; readonly relation: boolean };

export interface IndexKey {
  readonly field: import('../query/ast.ts').FieldRef;
  readonly as: import('../query/ast.ts').ValueKind | 'json';
  readonly descending: boolean;
  /** The column is the latitude cell of the latitude at `field` (sql/geo.ts), not the value itself. */
  readonly latitudeCell?: true;
}

/** A write broke a unique index; `index` is the name the schema layer gave it (see builtin.ts). */
export class UniqueViolation extends Error {
  constructor(readonly index: string) {
    super(`unique index ${index} violated`);
  }
}

/**
 * A read named a column the table no longer has: another process dropped it (with the last
 * index over it) and this process's schema has not been reloaded yet. The read can be planned
 * again from the schema as stored.
 */
export class StaleSchema extends Error {
  constructor() {
    super('the class schema changed under this read');
  }
}

/** Numbered slots of a key that every server process on one database takes from. */
export interface SharedSlots {
  /** Takes a free slot among the first `count` of `key`; null when every one is held. */
  take(key: string, count: number): Promise<SlotHold | null>;
}

export interface SlotHold {
  /** Gives the slot back; safe to call twice. */
  release(): Promise<void>;
}
