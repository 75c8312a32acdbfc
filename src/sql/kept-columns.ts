import type { ValueKind } from '../query/ast.ts';

/** A column holding the document's reading at `path` as `as`; null path: whether "*" may read the row. */
export interface KeptReading {
  readonly column: string;
  readonly path: readonly string[] | null;
  readonly as: ValueKind;
}

/**
 * The SQL of columns kept equal to a reading of the document by a row trigger, not computed by
 * the database as a generated column: adding one changes only the catalog, where adding a
 * generated column rewrites the table under an exclusive lock (storage/kept-columns.ts).
 */
export interface KeptColumnsSql {
  /** A plain nullable column for the reading, added without touching the rows. */
  addColumn(table: string, reading: KeptReading): string;
  /** Records the reading on the column itself, so that the trigger can be written from the catalog alone. */
  describe(table: string, reading: KeptReading): string;
  /**
   * Rows `column`, `note` (the recorded reading) and `generated` for the class's columns that
   * are kept or generated readings; parameter: the qualified table name.
   */
  readonly columnsSql: string;
  /** Reads a note written by `describe` back, or null for a column that is not kept. */
  readingOf(column: string, note: string | null): KeptReading | null;
  /** Statements (re)making the table's trigger for exactly these readings, or dropping it when there are none. */
  trigger(table: string, fn: string, readings: readonly KeptReading[]): string[];
  /** The last objectId of the batch after `$1` of at most `$2` rows (in `last`, null past the end). */
  batchEnd(table: string): string;
  /** Gives the rows with `$1` < objectId <= `$2` the readings where they differ. */
  backfill(table: string, readings: readonly KeptReading[]): string;
  /** Makes waits for a table lock in this transaction give up after `ms`. */
  lockTimeout(ms: number): string;
  /** Whether `error` is such a wait given up. */
  lockTimedOut(error: unknown): boolean;
}
