import type { EventCount, EventCountQuery, EventStore, TrackedEvent } from './port.ts';
import type { AppNamespace } from '../sql/namespace.ts';
import type { Params } from '../sql/params.ts';

const HOUR_MS = 3_600_000;
const LOG = '_Events';
const COUNTS = '_EventCounts';
/**
 * Bucket lengths in hours. Days are counted as events arrive rather than summed from hours when
 * read: a day split by a dimension of 50 values then reads 50 rows instead of 1,200.
 */
const SPANS = { hour: 1, day: 24 } as const;
/**
 * Dimension and value of the count rows that count every event of a name, whatever its
 * dimensions. Dimension keys are never empty (rest/events.ts), so no real pair can land on them.
 */
const ALL = '';

/**
 * Analytics events of one app (app migration 7). An append adds the event to the `_Events` log
 * and one to each of its rows in `_EventCounts` (for its hour and its day: the name's row, and
 * one per dimension pair) as one atomic write. The counts grow by INSERT … ON CONFLICT DO UPDATE,
 * which adds under the row's lock without reading it first, so concurrent appends lose no count.
 * Reads use the counts only, whose size follows buckets and distinct values, not events.
 */
export class SqlEventStore implements EventStore {
  constructor(private readonly ns: AppNamespace) {}

  async append(event: TrackedEvent): Promise<void> {
    const { driver } = this.ns;
    const d = driver.dialect;
    if (d.supportsWritableCte) {
      // One round trip, and the count rows stay locked only while the statement commits. The
      // WITH part runs to completion although nothing reads from it.
      const params = d.params();
      await driver.run(`WITH "logged" AS (${this.logSql(event, params)}) ${this.countSql(event, params)}`, params.values);
      return;
    }
    await driver.transaction(async (tx) => {
      const log = d.params();
      await tx.run(this.logSql(event, log), log.values);
      const counts = d.params();
      await tx.run(this.countSql(event, counts), counts.values);
    });
  }

  private logSql(event: TrackedEvent, params: Params): string {
    // JSON text rather than the document type: jsonb would not keep the order the pairs came in.
    const dimensions = JSON.stringify(Object.fromEntries(event.dimensions));
    const values = [params.add(event.name), params.add(new Date(event.at).toISOString()), params.add(dimensions)];
    return `INSERT INTO ${this.ns.table(LOG)} ("name", "at", "dimensions") VALUES (${values.join(', ')})`;
  }

  private countSql(event: TrackedEvent, params: Params): string {
    const hour = Math.floor(event.at / HOUR_MS);
    // Rows are locked in the order of the VALUES list. Sorting by dimension, then span, puts the
    // rows any two appends share in one order, so they never wait for each other in a cycle.
    const pairs: (readonly [string, string])[] = [[ALL, ALL], ...[...event.dimensions].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))];
    const rows = pairs.flatMap(([key, value]) =>
      Object.values(SPANS).map((span) => {
        const start = hour - (hour % span);
        return `(${params.add(event.name)}, ${params.add(key)}, ${params.add(span)}, ${params.add(start)}, ${params.add(value)}, 1)`;
      }),
    );
    return `INSERT INTO ${this.ns.table(COUNTS)} AS "c" ("name", "dimension", "span", "hour", "value", "count") VALUES ${rows.join(', ')} ON CONFLICT ("name", "dimension", "span", "hour", "value") DO UPDATE SET "count" = "c"."count" + excluded."count"`;
  }

  async counts(query: EventCountQuery): Promise<EventCount[]> {
    const d = this.ns.driver.dialect;
    const params = d.params();
    const split = query.dimension !== undefined;
    const conditions = [`"name" = ${params.add(query.name)}`, `"dimension" = ${params.add(query.dimension ?? ALL)}`, `"span" = ${params.add(SPANS[query.interval])}`];
    if (!split) conditions.push(`"value" = ${params.add(ALL)}`);
    conditions.push(`"hour" >= ${params.add(query.fromHour)}`, `"hour" < ${params.add(query.toHour)}`);
    const value = split ? ', "value"' : '';
    // The key's order: no sort step.
    const sql = `SELECT "hour"${value}, "count" FROM ${this.ns.table(COUNTS)} WHERE ${conditions.join(' AND ')} ORDER BY "hour"${value} LIMIT ${params.add(query.limit)}`;
    const rows = await this.ns.driver.all(sql, params.values);
    return rows.map((row) => (split ? { hour: Number(row.hour), value: String(row.value), count: Number(row.count) } : { hour: Number(row.hour), count: Number(row.count) }));
  }
}
