import pg from 'pg';
import type { SqlDriver, SqlExecutor, SqlParam, Row, StatementOptions } from '../driver.ts';
import { postgresDialect } from '../../sql/postgres/dialect.ts';

// int8 (counts) and numeric come back as JS numbers rather than strings.
pg.types.setTypeParser(20, (value) => Number(value));
pg.types.setTypeParser(1700, (value) => Number(value));

const MAX_PREPARED = 500;

/**
 * Planner settings of Basalt's own connections (a database URL that sets `options` replaces
 * them). PostgreSQL's default random_page_cost of 4 prices a page read out of order like a seek on
 * a spinning disk. An app's working set sits in memory or on SSD, where such a read costs about
 * what a read in order does; at 4 the planner answers a user's `score ≥ X order -score limit 20`
 * by reading that user's whole entry of the `_rperm` GIN index and sorting, where walking the score
 * index and checking each row's ACL stops after a few hundred rows and costs a fifth as much.
 */
const CONNECTION_OPTIONS = '-c random_page_cost=1.1';

export class PostgresDriver implements SqlDriver {
  readonly dialect = postgresDialect;
  private readonly pool: pg.Pool;
  private readonly names = new Map<string, string>();

  constructor(private readonly url: string, poolSize: number) {
    // Connections are kept, not closed after idling: the idle timer the pool would arm and clear
    // around every query was a visible share of a primary-key read.
    this.pool = new pg.Pool({ connectionString: url, max: poolSize, options: CONNECTION_OPTIONS, idleTimeoutMillis: 0 });
    // An idle client that loses its connection must not crash the process; the pool replaces it.
    this.pool.on('error', () => {});
  }

  async all(sql: string, params: readonly SqlParam[] = [], options?: StatementOptions): Promise<Row[]> {
    return (await this.pool.query<Row>(this.statement(sql, params, options))).rows;
  }

  async run(sql: string, params: readonly SqlParam[] = []): Promise<number> {
    return (await this.pool.query(this.statement(sql, params))).rowCount ?? 0;
  }

  /**
   * Statements are prepared by name, once per connection: planning a primary-key lookup costs
   * PostgreSQL several times what running it does. The set of names is bounded; statements past
   * it (queries are built per request and vary) run unnamed.
   *
   * A named statement runs on a generic plan after five runs when that plan looks no dearer than
   * the plans made for the actual values; for a query whose selectivity depends on its values
   * that is a trap. `_rperm && $1` then counts as matching 1% of the rows, so a query that
   * anyone may read answers a range of a thousand objects by reading the whole `_rperm` GIN index
   * (ten times the work of the plan made for the values). Such statements (`planPerRun`) run
   * unnamed, planned for their values every time.
   */
  private statement(text: string, params: readonly SqlParam[], options?: StatementOptions): pg.QueryConfig {
    const values = params as unknown[];
    if (options?.planPerRun) return { text, values };
    let name = this.names.get(text);
    if (name === undefined && params.length > 0 && this.names.size < MAX_PREPARED && /^(SELECT|INSERT|UPDATE|DELETE|WITH)\b/.test(text)) {
      name = `basalt_${this.names.size}`;
      this.names.set(text, name);
    }
    return name ? { name, text, values } : { text, values };
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    const tx: SqlExecutor = {
      dialect: this.dialect,
      all: async (sql, params = [], options) => (await client.query<Row>(this.statement(sql, params, options))).rows,
      run: async (sql, params = []) => (await client.query(this.statement(sql, params))).rowCount ?? 0,
    };
    try {
      await client.query('BEGIN');
      const result = await fn(tx);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  uniqueViolation(error: unknown): string | null {
    const { code, constraint } = error as { code?: unknown; constraint?: unknown };
    return code === '23505' ? String(constraint ?? 'PRIMARY') : null;
  }

  /** Holds a session-level advisory lock on one pooled connection while fn runs. */
  async withSessionLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
      try {
        return await fn();
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
      }
    } finally {
      client.release();
    }
  }

  /** A dedicated connection for LISTEN; the returned function stops listening. */
  async listen(channel: string, onMessage: (payload: string) => void): Promise<() => Promise<void>> {
    const client = new pg.Client({ connectionString: this.url });
    client.on('error', () => {});
    await client.connect();
    client.on('notification', (message) => {
      if (message.channel === channel) onMessage(message.payload ?? '');
    });
    await client.query(`LISTEN ${channel}`);
    return async () => {
      await client.end().catch(() => {});
    };
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
