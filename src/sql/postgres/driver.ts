import type { ClientBase, Pool, PoolClient, QueryConfig } from 'pg';
import type { PoolUse } from '../backend.ts';
import { pg } from './pg-module.ts';
import type { SqlDriver, SqlExecutor, SqlParam, Row, StatementOptions } from '../driver.ts';
import { postgresDialect } from './dialect.ts';
import { LookupBatcher } from '../lookup-batcher.ts';
import { multiRowInsert } from '../multi-row.ts';
import { writesFromValues, writesTogether } from './writes-together.ts';
import { fixedTypes, readsTogether, readTypes } from './reads-together.ts';
import { TurnQueue } from '../turn-queue.ts';
import { OneAtATime } from './one-at-a-time.ts';
import { PostgresSharedSlots } from './shared-slots.ts';
import { Errors } from '../../errors/index.ts';

// int8 (counts) and numeric come back as JS numbers rather than strings.
pg.types.setTypeParser(20, (value) => Number(value));
pg.types.setTypeParser(1700, (value) => Number(value));

const MAX_PREPARED = 500;
/** Multi-row INSERTs and combined writes of at most this many rows are prepared, at most this many texts in all. */
const PREPARED_ROW_COUNTS = 64;
const MAX_PREPARED_COMBINED = 200;
/** Rows of one multi-row INSERT: well below PostgreSQL's 65,535 parameters a statement. */
const MAX_ROWS_PER_INSERT = 500;
/** Writes of one combined statement (writesFromValues, writesTogether); as many as are prepared. */
const MAX_WRITES_TOGETHER = PREPARED_ROW_COUNTS;
/** Combined statements of one text running at once (see writeAll). */
const MAX_WRITES_IN_FLIGHT = 2;
/** A combined statement running longer than this no longer holds back the next (see writeAll). */
const SLOW_WRITE_MS = 20;

/** Runs of one read gathered into one statement (see readTogether), a power of two. */
const MAX_READS_TOGETHER = 64;
/** Names of statements reading together: six sizes (2 to 64) for each of twenty reads. */
const MAX_PREPARED_READS = 120;

interface PendingRead {
  readonly params: readonly SqlParam[];
  readonly resolve: (rows: Row[]) => void;
  readonly reject: (error: unknown) => void;
}

interface PendingInsert {
  readonly params: readonly SqlParam[];
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** The writes of one text waiting for a combined statement, and how many of its statements run. */
interface WriteLine {
  waiting: PendingWrite[];
  running: number;
}

interface PendingWrite {
  readonly params: readonly SqlParam[];
  readonly row: string;
  readonly resolve: (rows: Row[]) => void;
  readonly reject: (error: unknown) => void;
}

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
  private readonly pool: Pool;
  /**
   * Connections for statements planned for their values (`planPerRun`), where PostgreSQL never
   * uses a generic plan (`plan_cache_mode`, a setting of the connection); see `statement`.
   */
  private readonly planned: Pool;
  /** Connections for statements whose one plan serves any values (`planForAnyValues`): PostgreSQL plans them once. */
  private readonly generic: Pool;
  private readonly names = new Map<string, string>();
  private readonly combinedStatements = new Map<string, { readonly name: string; readonly text: string }[]>();
  private combinedNames = 0;
  private readonly inserts = new TurnQueue<string, PendingInsert>((sql, rows) => this.insertAll(sql, rows));
  private readonly writes = new TurnQueue<string, PendingWrite>((sql, writes) => this.writeAll(sql, writes));
  private readonly writeLines = new Map<string, WriteLine>();
  private readonly reads = new TurnQueue<string, PendingRead>((sql, reads) => this.readAll(sql, reads));
  /** By read text: the types its placeholders take where the text decides (see readsTogether). */
  private readonly readShapes = new Map<string, (string | null)[]>();
  /** Read texts (with their values' types) PostgreSQL refused to run together: they go alone. */
  private readonly readsAlone = new Set<string>();
  /** Statements reading together, by read text and types, then by size (see readsStatement). */
  private readonly readStatements = new Map<string, Map<number, { readonly name: string; readonly text: string }>>();
  private readNames = 0;
  private readonly lookups = new LookupBatcher(async (sql, params) => (await this.pool.query<Row>(this.statement(sql, params)).catch(this.cancelled)).rows);
  readonly sharedSlots: PostgresSharedSlots;

  /**
   * `statementTimeout`: milliseconds any statement of the pools may run before PostgreSQL cancels
   * it (`statement_timeout`, set on each connection as it opens); 0 for no limit. A cancelled
   * statement answers 124; the connection stays open and usable. The LISTEN connection and the
   * shared-slot connection are opened apart and have no limit; schema changes and migrations lift
   * it for their own transaction (`SqlCompiler.unlimitedStatementsSql`).
   */
  constructor(private readonly url: string, poolSize: number, private readonly statementTimeout = 0) {
    // Connections are kept, not closed after idling: the idle timer the pool would arm and clear
    // around every query was a visible share of a primary-key read.
    // The three pools share the pool size, each with at least one connection: half for the rest,
    // the other half for statements planned per run and those planned for any values.
    const generic = Math.max(1, Math.floor(poolSize / 4));
    const planned = Math.max(1, Math.floor(poolSize / 2) - generic);
    this.sharedSlots = new PostgresSharedSlots(url);
    const limit = statementTimeout > 0 ? `SET statement_timeout = ${Math.floor(statementTimeout)}` : null;
    // Connections are set up on connecting rather than through `options`, which a database URL
    // may replace. `onConnect` runs before the pool hands the connection out, so a SET is never
    // queued behind on a busy client.
    const open = (max: number, planCacheMode: string | null): Pool => {
      const pool = new pg.Pool({
        connectionString: url,
        max,
        options: CONNECTION_OPTIONS,
        idleTimeoutMillis: 0,
        onConnect: async (client: ClientBase) => {
          if (planCacheMode) await client.query(`SET plan_cache_mode = ${planCacheMode}`).catch(() => {});
          if (limit) await client.query(limit);
        },
      });
      // An idle client that loses its connection must not crash the process; the pool replaces it.
      pool.on('error', () => {});
      return pool;
    };
    this.pool = open(Math.max(1, poolSize - planned - generic), null);
    // On these connections a named statement must never switch to a generic plan.
    this.planned = open(planned, 'force_custom_plan');
    // PostgreSQL's own choice would plan these anew on every run (see planForAnyValues).
    this.generic = open(generic, 'force_generic_plan');
  }

  async all(sql: string, params: readonly SqlParam[] = [], options?: StatementOptions): Promise<Row[]> {
    if (options?.unflushedCommit) return (await this.unflushed(sql, params)).rows;
    if (options?.planForAnyValues && options.reader && params.length > 0) return this.readTogether(sql, params);
    const pool = options?.planForAnyValues ? this.generic : options?.planPerRun ? this.planned : this.pool;
    return (await pool.query<Row>(this.statement(sql, params)).catch(this.cancelled)).rows;
  }

  /**
   * Runs of one read planned for any values (`planForAnyValues`: a page whose one plan serves every
   * value) made in the same event-loop turn go to PostgreSQL as one statement (readsTogether): one
   * round trip, one execution and one reply for all, where each statement otherwise costs both
   * processes more than its page (a message each way, waking the other process, starting and
   * ending the statement). The plan is as generic as the runs' own. Should that statement fail,
   * each run is sent again alone, so that every caller gets its own answer.
   */
  private readTogether(sql: string, params: readonly SqlParam[]): Promise<Row[]> {
    return new Promise<Row[]>((resolve, reject) => this.reads.add(sql, { params, resolve, reject }));
  }

  private readAlone(sql: string, read: PendingRead): Promise<void> {
    return this.generic
      .query<Row>(this.statement(sql, read.params))
      .catch(this.cancelled)
      .then(({ rows }) => read.resolve(rows), read.reject);
  }

  private readAll(sql: string, reads: readonly PendingRead[]): void {
    for (let start = 0; start < reads.length; start += MAX_READS_TOGETHER) void this.readChunk(sql, reads.slice(start, start + MAX_READS_TOGETHER));
  }

  private async readChunk(sql: string, reads: readonly PendingRead[]): Promise<void> {
    const combined = reads.length > 1 ? this.readsStatement(sql, reads) : null;
    if (combined === null) {
      await Promise.all(reads.map((read) => this.readAlone(sql, read)));
      return;
    }
    let rows: Row[];
    try {
      rows = (await this.generic.query<Row>(combined.statement)).rows;
    } catch (error) {
      // A statement cancelled past its limit fails every run: each alone could only fail again.
      if ((error as { code?: unknown }).code === '57014') {
        for (const read of reads) read.reject(this.timedOut());
        return;
      }
      if (this.readsAlone.size >= MAX_PREPARED) this.readsAlone.clear();
      this.readsAlone.add(combined.key);
      await Promise.all(reads.map((read) => this.readAlone(sql, read)));
      return;
    }
    const answers = reads.map((): Row[] => []);
    for (const row of rows) {
      const { _i: run, ...rest } = row;
      answers[run as number]!.push(rest);
    }
    reads.forEach((read, i) => read.resolve(answers[i]!));
  }

  /**
   * The statement reading `reads` together (readsTogether), named, for the next power of two of
   * their number: under load the same few sizes come back, each parsed and planned once per
   * connection. Null where they go alone: their values' types disagree, PostgreSQL refused the
   * text before, or the names for reads together are all taken (MAX_PREPARED_READS), where an
   * unnamed statement would be planned on every run.
   */
  private readsStatement(sql: string, reads: readonly PendingRead[]): { key: string; statement: QueryConfig } | null {
    const numbered = reads[0]!.params.length;
    const values = reads.flatMap((read) => read.params);
    let fixed = this.readShapes.get(sql);
    if (fixed === undefined) {
      fixed = fixedTypes(sql, numbered);
      if (this.readShapes.size >= MAX_PREPARED) this.readShapes.clear();
      this.readShapes.set(sql, fixed);
    }
    const types = readTypes(fixed, reads.length, values);
    if (types === null) return null;
    const key = `${sql}\u0000${types.join(',')}`;
    if (this.readsAlone.has(key)) return null;
    const size = Math.min(MAX_READS_TOGETHER, 2 ** Math.ceil(Math.log2(reads.length)));
    let forSizes = this.readStatements.get(key);
    let named = forSizes?.get(size);
    if (named === undefined) {
      if (this.readNames >= MAX_PREPARED_READS) return null;
      named = { name: `basalt_reads_${this.readNames++}`, text: readsTogether(sql, size, types) };
      if (forSizes === undefined) this.readStatements.set(key, (forSizes = new Map()));
      forSizes.set(size, named);
    }
    for (let pad = reads.length; pad < size; pad++) values.push(...reads[0]!.params);
    values.push(reads.length);
    return { key, statement: { ...named, values } };
  }

  async run(sql: string, params: readonly SqlParam[] = [], options?: StatementOptions): Promise<number> {
    if (options?.unflushedCommit) return (await this.unflushed(sql, params)).rowCount ?? 0;
    return (await this.pool.query(this.statement(sql, params)).catch(this.cancelled)).rowCount ?? 0;
  }

  /** A statement PostgreSQL cancelled (57014, query_canceled: past `statement_timeout`) answers 124. */
  private readonly cancelled = (error: unknown): never => {
    if ((error as { code?: unknown }).code === '57014') throw this.timedOut();
    throw error;
  };

  private timedOut(): Error {
    return Errors.timeout(`A database statement ran past the limit of ${this.statementTimeout} ms (--statement-timeout) and was cancelled.`);
  }

  /**
   * Waiting for the log flush of each commit cost 4 ms a statement on the test machine's disk,
   * far more than the statement; `SET LOCAL` limits the setting to this one transaction, and the
   * extra round trips cost a few hundredths of a millisecond each.
   */
  private unflushed(sql: string, params: readonly SqlParam[]): Promise<{ rows: Row[]; rowCount: number | null }> {
    return this.inTransaction(async (client) => {
      await client.query('SET LOCAL synchronous_commit = off');
      return client.query<Row>(this.statement(sql, params));
    });
  }

  /** BEGIN, `fn` on one pooled connection, then COMMIT, or ROLLBACK when it throws. */
  private async inTransaction<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
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
   * (ten times the work of the plan made for the values). Such statements (`planPerRun`) go to
   * the connections that plan every run for its values, named there too: PostgreSQL then parses
   * and analyses each text once per connection, and the benchmark's range page costs it 0.10 ms
   * a run instead of 0.20. Inside a transaction, on a connection of the other pool, they run
   * unnamed.
   */
  private statement(text: string, params: readonly SqlParam[], options?: StatementOptions): QueryConfig {
    const values = params as unknown[];
    if (options?.planPerRun) return { text, values };
    let name = this.names.get(text);
    if (name === undefined && params.length > 0 && this.names.size < MAX_PREPARED && /^\(?(SELECT|INSERT|UPDATE|DELETE|WITH)\b/.test(text)) {
      name = `basalt_${this.names.size}`;
      this.names.set(text, name);
    }
    return name ? { name, text, values } : { text, values };
  }

  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.inTransaction((client) => {
      // A use case may start two statements of its transaction at once; they take turns.
      const line = new OneAtATime();
      return fn({
        dialect: this.dialect,
        all: (sql, params = [], options) => line.run(async () => (await client.query<Row>(this.statement(sql, params, options)).catch(this.cancelled)).rows),
        run: (sql, params = []) => line.run(async () => (await client.query(this.statement(sql, params)).catch(this.cancelled)).rowCount ?? 0),
      });
    });
  }


  /**
   * Creates made in the same event-loop turn go to PostgreSQL as one multi-row INSERT per
   * statement text (per class): one parse, one round trip and one commit for all of them, where
   * each commit otherwise costs more than the row. Should that statement fail (one row breaks a
   * unique index), nothing of it was written, and each row is sent again alone so that every
   * caller gets its own answer.
   */
  insertRow(sql: string, params: readonly SqlParam[]): Promise<void> {
    return new Promise<void>((resolve, reject) => this.inserts.add(sql, { params, resolve, reject }));
  }

  /**
   * Writes of one text made at the same moment (one event-loop turn, or while earlier ones run:
   * see writeAll), each of its own row, go to PostgreSQL as one statement (writesFromValues for an
   * in-place update of objects, else writesTogether): one
   * round trip, one snapshot and one commit for all, where a commit and the round trips around it
   * cost PostgreSQL more than a one-row update does. Should
   * that statement fail, nothing of it was written, and each write is sent again alone so that
   * every caller gets its own answer.
   */
  writeRows(sql: string, params: readonly SqlParam[], row?: string): Promise<Row[]> {
    if (row === undefined) return this.writeAlone(sql, params);
    return new Promise<Row[]>((resolve, reject) => this.writes.add(sql, { params, row, resolve, reject }));
  }

  private async writeAlone(sql: string, params: readonly SqlParam[]): Promise<Row[]> {
    return (await this.pool.query<Row>(this.statement(sql, params)).catch(this.cancelled)).rows;
  }

  /**
   * Writes of one text wait while MAX_WRITES_IN_FLIGHT combined statements of it run: those that
   * arrive meanwhile go out together when one ends, so under load each commit carries more
   * writes, and a lone write still leaves at once. A statement that runs past
   * SLOW_WRITE_MS (waiting for a row another transaction holds) stops counting, so that it
   * cannot hold up the writes of other rows.
   */
  private writeAll(sql: string, writes: readonly PendingWrite[]): void {
    let line = this.writeLines.get(sql);
    if (!line) this.writeLines.set(sql, (line = { waiting: [], running: 0 }));
    line.waiting.push(...writes);
    this.sendWrites(sql, line);
  }

  /**
   * Each statement takes different rows, in the order of their keys, so two statements running
   * at once wait for each other's row locks in one order and never deadlock.
   */
  private sendWrites(sql: string, line: WriteLine): void {
    while (line.waiting.length > 0 && line.running < MAX_WRITES_IN_FLIGHT) {
      const together: PendingWrite[] = [];
      const later: PendingWrite[] = [];
      const rows = new Set<string>();
      for (const write of line.waiting) {
        if (together.length < MAX_WRITES_TOGETHER && !rows.has(write.row)) {
          rows.add(write.row);
          together.push(write);
        } else later.push(write);
      }
      line.waiting = later;
      together.sort((a, b) => (a.row < b.row ? -1 : a.row > b.row ? 1 : 0));
      line.running += 1;
      let counted = true;
      const done = () => {
        if (!counted) return;
        counted = false;
        line.running -= 1;
        this.sendWrites(sql, line);
      };
      const slow = setTimeout(done, SLOW_WRITE_MS);
      void this.writeTogether(sql, together).finally(() => {
        clearTimeout(slow);
        done();
      });
    }
    if (line.waiting.length === 0 && line.running === 0 && this.writeLines.get(sql) === line) this.writeLines.delete(sql);
  }

  private async writeTogether(sql: string, writes: readonly PendingWrite[]): Promise<void> {
    if (writes.length > 1) {
      try {
        const values = writes.flatMap((write) => write.params);
        const first = writes[0]!.params;
        const combine = (text: string, count: number, numbered: number) => writesFromValues(text, count, numbered, first) ?? writesTogether(text, count, numbered);
        const { rows } = await this.pool.query<Row>(this.combinedStatement(sql, first.length, writes.length, values, combine));
        const answers = writes.map((): Row[] => []);
        for (const { _i: step, ...row } of rows) answers[step as number]!.push(row);
        writes.forEach((write, i) => write.resolve(answers[i]!));
        return;
      } catch {
        // Each write alone below: the failing one gets its own error, the others are written.
      }
    }
    await Promise.all(writes.map((write) => this.writeAlone(sql, write.params).then(write.resolve, write.reject)));
  }

  private insertAll(sql: string, rows: readonly PendingInsert[]): void {
    for (let start = 0; start < rows.length; start += MAX_ROWS_PER_INSERT) void this.insertTogether(sql, rows.slice(start, start + MAX_ROWS_PER_INSERT));
  }

  /**
   * `count` rows of a single-row INSERT (`combine`: multiRowInsert), or `count` writes of one text
   * (writesTogether), as a prepared statement: under a steady stream of creates
   * the same few counts come back again and again, and PostgreSQL parses and plans each text once
   * per connection instead of for every batch (half its work on a create). Only the counts up to
   * PREPARED_ROW_COUNTS are kept and named, within a budget of their own, so that bursts of every
   * size cannot crowd out the statements of reads (see statement).
   */
  private combinedStatement(sql: string, perRow: number, count: number, values: unknown[], combine: (sql: string, count: number, perRow: number) => string): QueryConfig {
    if (count > PREPARED_ROW_COUNTS) return { text: combine(sql, count, perRow), values };
    let forCounts = this.combinedStatements.get(sql);
    let statement = forCounts?.[count];
    if (statement === undefined) {
      const text = combine(sql, count, perRow);
      // Names are never reused: a connection keeps the text it prepared under a name.
      if (this.combinedNames >= MAX_PREPARED_COMBINED) return { text, values };
      statement = { name: `basalt_rows_${this.combinedNames++}`, text };
      if (forCounts === undefined) this.combinedStatements.set(sql, (forCounts = []));
      forCounts[count] = statement;
    }
    return { ...statement, values };
  }

  private async insertTogether(sql: string, rows: readonly PendingInsert[]): Promise<void> {
    if (rows.length > 1) {
      try {
        const values = rows.flatMap((row) => row.params);
        await this.pool.query(this.combinedStatement(sql, rows[0]!.params.length, rows.length, values, multiRowInsert));
        for (const row of rows) row.resolve();
        return;
      } catch {
        // Each row alone below: the failing one gets its own error, the others are written.
      }
    }
    await Promise.all(
      rows.map((row) =>
        this.pool.query(this.statement(sql, row.params)).then(
          () => row.resolve(),
          (error: unknown) => row.reject(error),
        ),
      ),
    );
  }

  /**
   * Primary-key reads made in the same event-loop turn go to PostgreSQL as one statement per
   * table, `WHERE "objectId" = ANY($1)`: one round trip, one execution and one reply for all.
   */
  lookupRow(sql: string, key: string, batched: () => string, column: string): Promise<Row | undefined> {
    return this.lookups.lookup(sql, key, batched, column);
  }

  /**
   * PostgreSQL 15 plans an EXPLAIN of a statement with bound values for those values, whatever
   * `plan_cache_mode` says (16's `EXPLAIN (GENERIC_PLAN)` takes no values). So on a connection of
   * the generic pool the statement is prepared, `EXPLAIN … EXECUTE` shows the plan that prepared
   * statement runs by, and it is deallocated again. EXECUTE takes its values as SQL literals.
   */
  async explainForAnyValues(explain: (statement: string) => string, sql: string, params: readonly SqlParam[]): Promise<Row[]> {
    const client = await this.generic.connect();
    try {
      await client.query(`PREPARE "basalt_explain" AS ${sql}`);
      const values = params.length ? `(${params.map(sqlLiteral).join(', ')})` : '';
      return (await client.query<Row>(explain(`EXECUTE "basalt_explain"${values}`)).catch(this.cancelled)).rows;
    } finally {
      await client.query('DEALLOCATE "basalt_explain"').catch(() => {});
      client.release();
    }
  }

  uniqueViolation(error: unknown): string | null {
    const { code, constraint } = error as { code?: unknown; constraint?: unknown };
    return code === '23505' ? String(constraint ?? 'PRIMARY') : null;
  }

  conflict(error: unknown): boolean {
    const { code } = error as { code?: unknown };
    return code === '40P01' || code === '40001';
  }

  missingColumn(error: unknown): boolean {
    return (error as { code?: unknown }).code === '42703';
  }

  outOfRange(error: unknown): boolean {
    return (error as { code?: unknown }).code === '22003';
  }

  /** Holds a session-level advisory lock on one pooled connection while fn runs. */
  async withSessionLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      // Waiting for the lock is no statement to cut short (several processes starting at once).
      if (this.statementTimeout > 0) await client.query('SET statement_timeout = 0');
      await client.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
      try {
        return await fn();
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
      }
    } finally {
      // Back to the pool's limit; a connection that cannot take it is not given back.
      const restored = this.statementTimeout > 0 ? await client.query(`SET statement_timeout = ${Math.floor(this.statementTimeout)}`).then(() => true, () => false) : true;
      client.release(!restored);
    }
  }

  /**
   * Runs fn holding a session-level advisory lock, or returns false at once when another session
   * holds it. A waiting `pg_advisory_lock` is a running statement with a snapshot, which a
   * CREATE INDEX CONCURRENTLY under the lock would wait for in turn: one must not wait.
   */
  async withSessionLockIfFree(key: string, fn: () => Promise<void>): Promise<boolean> {
    const client = await this.pool.connect();
    try {
      const { rows } = await client.query('SELECT pg_try_advisory_lock(hashtext($1)) AS "taken"', [key]);
      if (rows[0]?.taken !== true) return false;
      try {
        await fn();
        return true;
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
      }
    } finally {
      client.release();
    }
  }

  /** One dedicated connection that LISTENs on every channel given; the returned function stops listening. */
  async listen(channels: Readonly<Record<string, (payload: string) => void>>): Promise<() => Promise<void>> {
    const client = new pg.Client({ connectionString: this.url });
    client.on('error', () => {});
    await client.connect();
    client.on('notification', (message) => {
      channels[message.channel]?.(message.payload ?? '');
    });
    for (const channel of Object.keys(channels)) await client.query(`LISTEN ${channel}`);
    return async () => {
      await client.end().catch(() => {});
    };
  }

  /** Read at scrape time by GET /metrics: pg keeps these counts, so reading them costs nothing. */
  poolUse(): readonly PoolUse[] {
    return [
      { pool: 'main', total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount },
      { pool: 'planned', total: this.planned.totalCount, idle: this.planned.idleCount, waiting: this.planned.waitingCount },
      { pool: 'generic', total: this.generic.totalCount, idle: this.generic.idleCount, waiting: this.generic.waitingCount },
    ];
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.end(), this.planned.end(), this.generic.end(), this.sharedSlots.close()]);
  }
}

/**
 * A value written as an SQL literal, for EXECUTE (explainForAnyValues): text in the E'' form,
 * which reads the same whatever `standard_conforming_strings` is; a list as the text of an array;
 * bytes as bytea's hex text. PostgreSQL casts each to the type of its parameter.
 */
function sqlLiteral(value: SqlParam): string {
  const text = (raw: string) => `E'${raw.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
  if (value === null) return 'NULL';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : text(String(value));
  if (Buffer.isBuffer(value)) return text(`\\x${value.toString('hex')}`);
  if (Array.isArray(value)) return text(`{${value.map((element) => `"${element.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`);
  return text(value as string);
}
