import type { Row, SqlParam } from './driver.ts';

interface Waiting {
  readonly key: string;
  readonly resolve: (row: Row | undefined) => void;
  readonly reject: (error: unknown) => void;
}

interface Group {
  readonly batched: () => string;
  readonly column: string;
  readonly waiting: Waiting[];
}

/**
 * Gathers the one-row lookups by key made in one event-loop turn and answers those of one
 * statement with one statement over the list of keys: one round trip on PostgreSQL, one read
 * lock and one statement run on SQLite, for all of them. A lone lookup runs its own statement.
 */
export class LookupBatcher {
  private groups = new Map<string, Group>();
  private scheduled = false;

  /** `run` is the driver's own way of running a statement outside a transaction. */
  constructor(private readonly run: (sql: string, params: readonly SqlParam[]) => Promise<Row[]>) {}

  lookup(sql: string, key: string, batched: () => string, column: string): Promise<Row | undefined> {
    return new Promise<Row | undefined>((resolve, reject) => {
      let group = this.groups.get(sql);
      if (!group) this.groups.set(sql, (group = { batched, column, waiting: [] }));
      group.waiting.push({ key, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const groups = this.groups;
    this.groups = new Map();
    for (const [sql, group] of groups) void this.answer(sql, group);
  }

  private async answer(sql: string, group: Group): Promise<void> {
    const { waiting } = group;
    try {
      if (waiting.length === 1) {
        const only = waiting[0]!;
        only.resolve((await this.run(sql, [only.key]))[0]);
        return;
      }
      const keys = [...new Set(waiting.map((lookup) => lookup.key))];
      const rows = await this.run(group.batched(), [keys]);
      const byKey = new Map(rows.map((row) => [String(row[group.column]), row]));
      const handedOut = new Set<string>();
      for (const lookup of waiting) {
        const row = byKey.get(lookup.key);
        // Two requests for one key each get their own copy: a caller may change what it is given.
        lookup.resolve(row && handedOut.has(lookup.key) ? structuredClone(row) : row);
        handedOut.add(lookup.key);
      }
    } catch (error) {
      for (const lookup of waiting) lookup.reject(error);
    }
  }
}
