import type { SqlDriver, SqlExecutor, SqlParam, Row, StatementOptions } from '../sql/driver.ts';

/**
 * A driver whose every statement runs in one open transaction, on its one connection: the stores
 * of a unit of work (AppStore.unitOfWork) are built over it, so that any code handed such a store
 * (schemas, sessions, the write pipeline) writes inside the unit and sees its own writes. Nothing
 * is gathered with other requests' statements, and a transaction inside is a savepoint, so that
 * its failure undoes only its own statements, as the same code would see outside a unit.
 */
export class UnitDriver implements SqlDriver {
  private savepoints = 0;
  private ended = false;

  constructor(
    private readonly tx: SqlExecutor,
    private readonly base: SqlDriver,
  ) {}

  get dialect() {
    return this.tx.dialect;
  }

  get sharedSlots() {
    return this.base.sharedSlots;
  }

  /**
   * Called once the transaction has ended: its connection may already serve another request's
   * transaction (PostgreSQL) or run outside the driver's lock (SQLite), so work still holding a
   * store of the unit fails instead of running there.
   */
  end(): void {
    this.ended = true;
  }

  private get open(): SqlExecutor {
    if (this.ended) throw new Error('a statement on a unit of work that has ended');
    return this.tx;
  }

  async all(sql: string, params: readonly SqlParam[] = [], options?: StatementOptions): Promise<Row[]> {
    return this.open.all(sql, params, options);
  }

  async run(sql: string, params: readonly SqlParam[] = []): Promise<number> {
    return this.open.run(sql, params);
  }

  async insertRow(sql: string, params: readonly SqlParam[]): Promise<void> {
    await this.open.run(sql, params);
  }

  writeRows(sql: string, params: readonly SqlParam[]): Promise<Row[]> {
    return this.open.all(sql, params);
  }

  async lookupRow(sql: string, key: string): Promise<Row | undefined> {
    return (await this.open.all(sql, [key]))[0];
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const name = `basalt_unit_${++this.savepoints}`;
    await this.open.run(`SAVEPOINT ${name}`);
    try {
      const result = await fn(this.tx);
      await this.tx.run(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (error) {
      await this.tx.run(`ROLLBACK TO SAVEPOINT ${name}`);
      await this.tx.run(`RELEASE SAVEPOINT ${name}`);
      throw error;
    }
  }

  uniqueViolation(error: unknown): string | null {
    return this.base.uniqueViolation(error);
  }

  missingColumn(error: unknown): boolean {
    return this.base.missingColumn(error);
  }

  conflict(error: unknown): boolean {
    return this.base.conflict(error);
  }

  outOfRange(error: unknown): boolean {
    return this.base.outOfRange(error);
  }

  /** The unit's transaction ends with it, not here. */
  async close(): Promise<void> {}
}
