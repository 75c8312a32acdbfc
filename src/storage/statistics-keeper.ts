import type { SqlDriver } from '../sql/driver.ts';

/** Writes to a class in this process between two looks at the database's own count of changes. */
const CHECK_EVERY = 500;
/** A class is analyzed again once this many rows changed, plus a tenth of its rows (autovacuum's default rule). */
const BASE_CHANGES = 1000;
const SHARE = 0.1;
/** At most once a minute per class and process, whatever the counts say. */
const MIN_INTERVAL_MS = 60_000;

interface ClassCount {
  /** Rows this process wrote since it last analyzed the class. */
  written: number;
  /** `written` when the database was last asked. */
  checkedAt: number;
  analyzedAt: number;
}

/**
 * Keeps the planner's statistics and the visibility map of PostgreSQL tables fresh where
 * autovacuum is off or late (docs/architecture.md, "Statistics"): every CHECK_EVERY writes to a
 * class, this process reads how many rows changed since the table was last analyzed (the
 * database's count over every process, or this process's own if that is more: the database's
 * lags by up to a second), and past BASE_CHANGES plus a tenth of the rows runs `VACUUM (ANALYZE,
 * SKIP_LOCKED)` in the background, one table at a time per process.
 */
export class StatisticsKeeper {
  private readonly counts = new Map<string, ClassCount>();
  private running: Promise<void> | null = null;
  private readonly kept: boolean;

  /** `table(className)` names a class table; `driver` runs outside any transaction. */
  constructor(private readonly driver: SqlDriver, private readonly table: (className: string) => string) {
    this.kept = driver.dialect.changesSinceAnalyzeSql() !== null;
  }

  noteWrite(className: string): void {
    if (!this.kept) return;
    let count = this.counts.get(className);
    if (!count) this.counts.set(className, (count = { written: 0, checkedAt: 0, analyzedAt: 0 }));
    count.written += 1;
    if (this.running || count.written - count.checkedAt < CHECK_EVERY || Date.now() - count.analyzedAt < MIN_INTERVAL_MS) return;
    count.checkedAt = count.written;
    // A failure leaves the statistics as they were: the next writes look again.
    this.running = this.check(className, count)
      .catch(() => undefined)
      .finally(() => {
        this.running = null;
      });
  }

  /** Resolves once the look (and the VACUUM) under way, if any, is over. */
  async settled(): Promise<void> {
    await this.running;
  }

  private async check(className: string, count: ClassCount): Promise<void> {
    const d = this.driver.dialect;
    const [row] = await this.driver.all(d.changesSinceAnalyzeSql()!, [this.table(className)]);
    const rows = Math.max(Number(row?.rows ?? 0), 0);
    const changed = Math.max(Number(row?.changed ?? 0), count.written);
    if (changed <= BASE_CHANGES + SHARE * rows) return;
    count.written = 0;
    count.checkedAt = 0;
    count.analyzedAt = Date.now();
    await this.driver.run(d.keepStatisticsSql(this.table(className))!);
  }
}
