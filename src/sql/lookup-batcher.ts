import type { Row, SqlParam } from './driver.ts';
import { TurnQueue } from './turn-queue.ts';

interface Lookup {
  readonly key: string;
  readonly batched: () => string;
  readonly column: string;
  readonly resolve: (row: Row | undefined) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Gathers the one-row lookups by key made in one event-loop turn and answers those of one
 * statement with one statement over the list of keys: one round trip on PostgreSQL, one read
 * lock and one statement run on SQLite, for all of them. A lone lookup runs its own statement.
 */
export class LookupBatcher {
  private readonly queue = new TurnQueue<string, Lookup>((sql, lookups) => void this.answer(sql, lookups));

  /** `run` is the driver's own way of running a statement outside a transaction. */
  constructor(private readonly run: (sql: string, params: readonly SqlParam[]) => Promise<Row[]>) {}

  lookup(sql: string, key: string, batched: () => string, column: string): Promise<Row | undefined> {
    return new Promise<Row | undefined>((resolve, reject) => this.queue.add(sql, { key, batched, column, resolve, reject }));
  }

  private async answer(sql: string, lookups: readonly Lookup[]): Promise<void> {
    try {
      if (lookups.length === 1) {
        const only = lookups[0]!;
        only.resolve((await this.run(sql, [only.key]))[0]);
        return;
      }
      const { batched, column } = lookups[0]!;
      const keys = [...new Set(lookups.map((lookup) => lookup.key))];
      const rows = await this.run(batched(), [keys]);
      const byKey = new Map(rows.map((row) => [String(row[column]), row]));
      const handedOut = new Set<string>();
      for (const lookup of lookups) {
        const row = byKey.get(lookup.key);
        // Two requests for one key each get their own copy: a caller may change what it is given.
        lookup.resolve(row && handedOut.has(lookup.key) ? (copyValue(row) as Row) : row);
        handedOut.add(lookup.key);
      }
    } catch (error) {
      for (const lookup of lookups) lookup.reject(error);
    }
  }
}

/**
 * A deep copy of a row. Rows hold strings, numbers, arrays and parsed JSON, which are copied
 * here directly: concurrent requests for the same page ask for the same objects at the same
 * moment, and structuredClone, which serializes every value, cost about seven times as much per
 * row. Anything else (a Date, a Buffer) still goes through structuredClone.
 */
function copyValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copyValue);
  if (Object.getPrototypeOf(value) !== Object.prototype) return structuredClone(value);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = copyValue((value as Record<string, unknown>)[key]);
    // JSON.parse makes "__proto__" an own key; assigning it would set the copy's prototype.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  return copy;
}
