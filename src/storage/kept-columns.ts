import type { SqlExecutor } from '../sql/driver.ts';
import type { KeptColumnsSql, KeptReading } from '../sql/kept-columns.ts';
import type { AppNamespace } from '../sql/namespace.ts';
import { objectName, PUBLIC_COLUMN } from '../sql/params.ts';

/** Rows per backfill batch: each its own short transaction, so writes of the class go on between them. */
export const BACKFILL_BATCH = 5000;
/** A brief table lock is all adding a column takes, but waiting behind a long transaction would stop every write queued after it. */
const LOCK_WAIT_MS = 2000;
const LOCK_ATTEMPTS = 5;

/** The reading of whether "*" may read the row, which every index over stored columns carries. */
export const PUBLIC_READING: KeptReading = { column: PUBLIC_COLUMN, path: null, as: 'boolean' };

/**
 * Columns kept equal to a reading of the document by a row trigger (docs/architecture.md,
 * "Automatic indexes"): unlike a generated column, adding one does not rewrite the table, so an
 * index over such columns is built while the class is read and written. The table has one
 * trigger function computing every kept column, written from the catalog (each column records
 * its reading in its comment), so any change of the set, by this process or another, makes it
 * again from what the table holds.
 */
export class KeptColumns {
  constructor(private readonly ns: AppNamespace, private readonly sql: KeptColumnsSql) {}

  /**
   * Adds the readings' columns (those not there, kept or generated, already) and makes the
   * trigger compute them, in one short transaction under the class's schema lock. A wait for the
   * table lock gives up soon and is tried again a few times: ALTER TABLE waits behind every open
   * transaction on the table, and every write queued behind it would wait too.
   */
  async add(className: string, readings: readonly KeptReading[], classLock: (tx: SqlExecutor) => Promise<void>): Promise<void> {
    const table = this.ns.table(className);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.ns.driver.transaction(async (tx) => {
          await tx.run(this.sql.lockTimeout(LOCK_WAIT_MS));
          await classLock(tx);
          const existing = await this.columns(tx, className);
          const added = readings.filter((reading) => !existing.has(reading.column));
          for (const reading of added) {
            await tx.run(this.sql.addColumn(table, reading));
            await tx.run(this.sql.describe(table, reading));
          }
          await this.remake(tx, className);
        });
        return;
      } catch (error) {
        if (!this.sql.lockTimedOut(error) || attempt >= LOCK_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, attempt * 500));
      }
    }
  }

  /**
   * Gives every row the readings it lacks, in batches by objectId, each its own transaction.
   * Rows written meanwhile already have them (the trigger came first); a row updated while its
   * batch runs is updated again from its newest version (READ COMMITTED). Run again after a
   * failure, it changes only the rows still different.
   */
  async backfill(className: string, readings: readonly KeptReading[]): Promise<void> {
    const kept = await this.columns(null, className);
    const own = readings.filter((reading) => kept.get(reading.column));
    if (own.length === 0) return;
    const table = this.ns.table(className);
    const update = this.sql.backfill(table, own);
    for (let after = ''; ; ) {
      const [row] = await this.ns.driver.all(this.sql.batchEnd(table), [after, BACKFILL_BATCH]);
      if (row?.last === null || row?.last === undefined) return;
      await this.ns.driver.run(update, [after, String(row.last)]);
      after = String(row.last);
    }
  }

  /** Makes the trigger again from the columns the table has now (after some were dropped, in the dropping transaction). */
  async remake(tx: SqlExecutor, className: string): Promise<void> {
    const readings = [...(await this.columns(tx, className)).values()].filter((reading): reading is KeptReading => reading !== null);
    for (const statement of this.sql.trigger(this.ns.table(className), this.ns.table(objectName(className, 'kept')), readings)) await tx.run(statement);
  }

  /** Drops the trigger function left by a dropped table. */
  async dropFunction(tx: SqlExecutor, className: string): Promise<void> {
    await tx.run(this.sql.trigger(this.ns.table(className), this.ns.table(objectName(className, 'kept')), [])[1]!);
  }

  /** The kept columns of the first top-level field `field` reads, for dropping with the field. */
  async ofField(tx: SqlExecutor, className: string, field: string): Promise<string[]> {
    const columns = await this.columns(tx, className);
    return [...columns.values()].filter((reading): reading is KeptReading => reading?.path?.[0] === field).map((reading) => reading.column);
  }

  /** The table's reading columns: column → its reading when kept by the trigger, null when generated. */
  private async columns(tx: SqlExecutor | null, className: string): Promise<Map<string, KeptReading | null>> {
    const rows = await (tx ?? this.ns.driver).all(this.sql.columnsSql, [this.ns.table(className)]);
    return new Map(rows.map((row) => [String(row.column), row.generated === true ? null : this.sql.readingOf(String(row.column), row.note === null ? null : String(row.note))]));
  }
}
