import type { FindQuery, IndexHint, WhereNode } from '../query/ast.ts';
import type { InPlaceChange } from '../query/in-place.ts';
import type { AggregatePlan, DistinctQuery } from '../query/aggregate/ast.ts';
import type { SchemaStore } from '../schema/store.ts';
import type { SharedSlots, SqlExecutor } from '../sql/driver.ts';

// The slots are the driver's (src/sql/driver.ts); named here too, as part of the AppStore port.
export type { SharedSlots, SlotHold } from '../sql/driver.ts';
// The schema's own port (what the schema service needs stored), declared beside its user.
export type { BuiltIndex, DdlStep, IndexKey, SchemaStore } from '../schema/store.ts';

/** An object as stored: the built-in columns, the permission lists and the JSON document. */
export interface StoredObject {
  readonly objectId: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly rperm: readonly string[];
  readonly wperm: readonly string[];
}

/** A row of an aggregate's answer: an object of the class (its columns and document) or a group document. */
export interface AggregateRow {
  readonly objectId?: string;
  readonly createdAt?: string;
  readonly updatedAt?: string;
  readonly data: Readonly<Record<string, unknown>>;
}

export interface RelationChange {
  readonly field: string;
  readonly add: readonly string[];
  readonly remove: readonly string[];
}

export interface ObjectWrite {
  readonly object: StoredObject;
  readonly relations: readonly RelationChange[];
  /** Rows written in the same transaction as the object (an emailed-link token, a queued job). */
  readonly steps?: readonly WriteStep[];
}

/**
 * One more write of a unit of work, made by the store that owns its table (sql-tokens.ts,
 * sql-outbox.ts, sql-jobs.ts) and run inside the transaction it is given: what a write causes
 * is stored if and only if the write is.
 */
export type WriteStep = (tx: SqlExecutor) => Promise<void>;

/** `null` principals means the master key: no permission check. */
export type Principals = readonly string[] | null;

/** What the use cases of src/rest need from storage for one app. */
export interface AppStore {
  insert(className: string, write: ObjectWrite): Promise<void>;
  get(className: string, objectId: string, read: Principals): Promise<StoredObject | null>;
  find(className: string, query: FindQuery): Promise<StoredObject[]>;
  /**
   * Whether `query`'s statements are `template`'s with `values` in place of `sentinels` (numbers
   * nobody sends, rest/query-shapes.ts), so that `findLike` may answer queries of the template's
   * shape from the template's statements.
   */
  sameStatements(className: string, template: FindQuery, query: FindQuery, sentinels: readonly number[], values: readonly number[]): boolean;
  /** `find` of the query that `template` becomes with `values` in place of `sentinels`, once `sameStatements` has said they match. */
  findLike(className: string, template: FindQuery, sentinels: readonly number[], values: readonly number[]): Promise<StoredObject[]>;
  count(className: string, where: WhereNode, hint?: IndexHint): Promise<number>;
  /** `find` and `count` together, as one statement where the backend can (see sql-store.ts); the count reads `query.hint` too. */
  findWithCount(className: string, query: FindQuery, countWhere: WhereNode): Promise<{ objects: StoredObject[]; count: number }>;
  /**
   * The plans of the statements that `find`, `count` or `findWithCount` would run for these
   * arguments (a null `query` counts only, a null `countWhere` finds only), one per statement, in
   * the database's own form; nothing is read. `hint` is the count's when it runs alone.
   */
  explain(className: string, query: FindQuery | null, countWhere: WhereNode | null, hint?: IndexHint): Promise<unknown[]>;
  /** The rows of a pipeline's last level, at most `maxRows` + 1 (sql/aggregate.ts). */
  aggregate(className: string, plan: AggregatePlan, maxRows: number): Promise<AggregateRow[]>;
  /** The distinct values of a field, decoded, at most `maxRows` + 1 (sql/distinct.ts); a boolean may come as 1 or 0. */
  distinct(className: string, query: DistinctQuery, maxRows: number): Promise<unknown[]>;
  /** Reads the object under a write lock, lets `mutate` compute the new state, stores it. */
  update(className: string, objectId: string, write: Principals, mutate: (current: StoredObject) => ObjectWrite): Promise<StoredObject | null>;
  /**
   * The change made by one statement, the row unread (query/in-place.ts): the incremented fields'
   * new values by field, or null when no row was changed (missing, not writable by these
   * principals, an increment of a non-number, near the size limit), which the caller answers by
   * the path that reads the row.
   */
  updateInPlace(className: string, objectId: string, write: Principals, change: InPlaceChange): Promise<Record<string, unknown> | null>;
  /** Deletes the object if these principals may write it and it matches `where` (when given). */
  delete(className: string, objectId: string, write: Principals, where?: WhereNode): Promise<boolean>;
  /** Whether the object exists and these principals may write it. */
  canWrite(className: string, objectId: string, write: Principals): Promise<boolean>;
  relatedIds(className: string, field: string, objectId: string): Promise<string[]>;
  /** Runs writes that belong together (a token and the mail that carries it) in one transaction. */
  runSteps(steps: readonly WriteStep[]): Promise<void>;
  /**
   * Runs `fn` with a store of this app whose every statement runs in one transaction, on one
   * connection (row locks are held until it ends): it commits when `fn` resolves and rolls back
   * when it throws. Within it, use only that store (and services built on it): on SQLite,
   * anything else waits for the unit to end. A unit inside a unit is a savepoint.
   */
  unitOfWork<T>(fn: (unit: AppStore) => Promise<T>): Promise<T>;
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

/** A write broke a unique index; `index` is the name the schema layer gave it (see builtin.ts). */
export class UniqueViolation extends Error {
  constructor(readonly index: string) {
    super(`unique index ${index} violated`);
  }
}

/**
 * A unit of work failed only for meeting another one (a deadlock between two transactions that
 * lock the same rows in another order); nothing of it was written, and it may be run again.
 */
export class WriteConflict extends Error {
  constructor() {
    super('the transaction met another one and was rolled back');
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

/**
 * An aggregate computed a number past the largest double: PostgreSQL refuses the sum, SQLite
 * makes it infinite, and JSON can hold neither.
 */
export class NumberOverflow extends Error {
  constructor() {
    super('an aggregate number overflowed');
  }
}
