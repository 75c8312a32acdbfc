import type { Dialect } from './dialect.ts';
import type { Row, SqlParam } from './params.ts';

// Defined beside the SQL that binds them (params.ts); re-exported for the drivers and stores.
export type { Row, SqlParam };

/**
 * What the SQL storage needs from a database connection. Two implementations exist:
 * sqlite/driver.ts (better-sqlite3, one connection per app file) and postgres/driver.ts (a pg
 * pool shared by every app schema). Nothing outside those two folders imports a database driver.
 */
/** How a statement is run, where a database makes a difference. */
export interface StatementOptions {
  /**
   * The statement's best plan depends on its values (how wide a range is, how many objects the
   * caller may read): the database plans it for the values of each run instead of reusing a plan
   * made for any values.
   */
  readonly planPerRun?: boolean;
  /**
   * The statement's best plan is the same for any values (a walk of one index in its order): the
   * database plans it once and reuses that plan on every run, planning being most of the work of
   * a page. PostgreSQL runs it on connections that always use a generic plan.
   */
  readonly planForAnyValues?: boolean;
  /**
   * The statement commits without waiting for its log to reach the disk: should the database
   * server itself crash in the next moment, its effect may be lost (never half applied). Only
   * for bookkeeping whose loss is harmless (the job queue's claims and completions: a lost one
   * makes a job run again, which at-least-once delivery allows). SQLite in WAL mode with
   * `synchronous = NORMAL` already commits so.
   */
  readonly unflushedCommit?: boolean;
  /**
   * A read that may take long (a find, a count, an aggregate): outside a transaction, SQLite runs
   * it on a reader thread with its own connection (sqlite/readers.ts), so it holds up no other
   * request; it sees every commit made before the call. Inside a transaction, and on PostgreSQL
   * (where every statement already runs on the server), it changes nothing.
   */
  readonly reader?: boolean;
}

export interface SqlExecutor {
  readonly dialect: Dialect;
  all(sql: string, params?: readonly SqlParam[], options?: StatementOptions): Promise<Row[]>;
  run(sql: string, params?: readonly SqlParam[], options?: StatementOptions): Promise<number>;
}

export interface SqlDriver extends SqlExecutor {
  /**
   * A single-row `INSERT … VALUES (…)` outside a transaction, which the driver may send together
   * with others of the same text made at the same moment: the rows then share one statement and
   * one commit. Each caller still gets its own outcome (a unique violation fails only its row).
   */
  insertRow(sql: string, params: readonly SqlParam[]): Promise<void>;
  /**
   * A write with `RETURNING` outside a transaction, whose rows the caller reads. A driver may
   * have it share a commit with the other writes of the same moment (SQLite, where a commit
   * costs several statements; PostgreSQL, for writes of the same text that name their `row`); the
   * caller is answered after that commit. `row` names the one row the write changes: writes of
   * the same row are never sent together, and writes without it are always sent alone.
   */
  writeRows(sql: string, params: readonly SqlParam[], row?: string): Promise<Row[]>;
  /**
   * A lookup of one row by key, outside a transaction: `sql` takes the key as its only parameter.
   * A driver may answer the lookups of one moment with one statement: `batched()` is that
   * statement, whose only parameter is the list of keys, and `column` names the key in its rows.
   */
  lookupRow(sql: string, key: string, batched: () => string, column: string): Promise<Row | undefined>;
  /**
   * The rows of `explain(<statement>)` showing the plan a statement marked `planForAnyValues` runs
   * by: the one plan made for any values, not a plan for these. Absent where a driver has no such
   * plans (SQLite plans every run alike); the caller then explains the statement as it is.
   */
  explainForAnyValues?(explain: (statement: string) => string, sql: string, params: readonly SqlParam[]): Promise<Row[]>;
  /** The name of the unique index a failed statement violated, or null for any other error. */
  uniqueViolation(error: unknown): string | null;
  /** Whether a statement failed for naming a column (or a hinted index) its table does not have. */
  missingColumn(error: unknown): boolean;
  /** Whether a statement failed for computing a number its type cannot hold (a sum past the largest double). */
  outOfRange(error: unknown): boolean;
  /**
   * Whether a transaction failed only for meeting another one (a deadlock, a serialization
   * failure): run again, it may well succeed.
   */
  conflict(error: unknown): boolean;
  /** Runs fn in one transaction; a throw rolls back. Statements outside wait until it ends. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** Slots every process on the database shares; null where one process owns the database (SQLite). */
  readonly sharedSlots: SharedSlots | null;
  close(): Promise<void>;
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
