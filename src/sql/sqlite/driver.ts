import Database from 'better-sqlite3';
import type { SqlDriver, SqlExecutor, SqlParam, Row, StatementOptions } from '../driver.ts';
import { sqliteDialect } from './dialect.ts';
import { LookupBatcher } from '../lookup-batcher.ts';
import { multiRowInsert } from '../multi-row.ts';
import { registerFunctions } from './functions.ts';
import { TIMED_REGEXP } from './regex.ts';
import { TIMED_STATEMENT_LIMIT_MS, regexTimedOut, runWithin } from './timed.ts';
import type { ReadLimit, ReaderPool } from './readers.ts';
import type { Checkpointer } from './checkpointer.ts';

const TIMED_CALL = `${TIMED_REGEXP}(`;

type Statement = Database.Statement<unknown[], Row>;

/** Rows written since the last checkpoint after which the checkpoint thread is asked for another. */
const ROWS_PER_CHECKPOINT = 1000;
/**
 * Frames the WAL may grow to before it is started over. The thread's checkpoint runs while writes
 * go on, so the WAL never ends fully copied and SQLite never starts it over from its first frame:
 * that takes a checkpoint between two commits, here on the writer's connection (64 MB of 4 KB
 * pages). It copies the frames written while the thread's ran: the thread is first asked again at
 * once, up to CATCH_UP_ROUNDS times, until fewer than CATCH_UP_FRAMES are left.
 */
const WAL_FRAMES_KEPT = 16_384;
const CATCH_UP_FRAMES = 1000;
const CATCH_UP_ROUNDS = 4;

/**
 * better-sqlite3 is synchronous, so every statement runs to completion before the event loop
 * moves on. A transaction, however, spans awaits; while one is open, statements from other
 * requests queue behind it so they never run inside it.
 */
export class SqliteDriver implements SqlDriver {
  readonly dialect = sqliteDialect;
  readonly sharedSlots = null;
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Statement>();
  /** By single-row INSERT text, then by row count (see insertRows). */
  private readonly multiRowStatements = new Map<string, Statement[]>();
  private multiRowPrepared = 0;
  private lock: Promise<void> | null = null;
  private pending: PendingWrite[] = [];
  private flushScheduled = false;
  private readonly lookups = new LookupBatcher((sql, params) => this.all(sql, params));
  private readonly control: { readonly begin: Statement; readonly commit: Statement; readonly rollback: Statement };
  /** Rows written since a checkpoint was last asked for, and whether one runs (see committed). */
  private written = 0;
  private checkpointing = false;
  /** The thread's checkpoints asked for at once to catch up with the WAL (see WAL_FRAMES_KEPT). */
  private catchUpRounds = 0;
  private closed = false;

  /** The regex limit on a reader thread: the thread is stopped instead of V8's script timeout. */
  private readonly timedLimit: ReadLimit | undefined;

  /**
   * `readers`: threads that run the statements marked `reader` outside a transaction (finds,
   * counts, aggregates) over their own connections to `path`; without them, every statement runs
   * here on the main thread. `checkpointer`: the thread that copies the WAL back into the file
   * (checkpointer.ts); without it, SQLite does so in the commit that crosses its threshold.
   */
  constructor(
    private readonly path: string,
    private readonly readers: ReaderPool | null = null,
    private readonly checkpointer: Checkpointer | null = null,
  ) {
    this.timedLimit = readers ? { ms: Math.min(TIMED_STATEMENT_LIMIT_MS, readers.limitMs), error: () => regexTimedOut(Math.min(TIMED_STATEMENT_LIMIT_MS, readers.limitMs)) } : undefined;
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    // Checkpoints copy the WAL back into the database file; fewer, larger ones copy a page that
    // many commits rewrote (a table's last leaf, under a stream of creates) once instead of often.
    this.db.pragma(`wal_autocheckpoint = ${checkpointer ? 0 : 4000}`);
    // Prepared once: exec() would parse these statements again on every commit.
    this.control = { begin: this.db.prepare('BEGIN IMMEDIATE'), commit: this.db.prepare('COMMIT'), rollback: this.db.prepare('ROLLBACK') };
    registerFunctions(this.db);
  }

  async all(sql: string, params: readonly SqlParam[] = [], options?: StatementOptions): Promise<Row[]> {
    // A reader sees the last commit, never an open transaction's writes: it need not wait for one.
    if (options?.reader && this.readers) return this.readElsewhere(this.readers, sql, params);
    while (this.lock) await this.lock;
    return this.allNow(sql, params);
  }

  private async readElsewhere(readers: ReaderPool, sql: string, params: readonly SqlParam[]): Promise<Row[]> {
    const { columns, rows } = await readers.read(this.path, sql, params.map(toSqlite), sql.includes(TIMED_CALL) ? this.timedLimit : undefined);
    return objectsOf(columns, rows, true);
  }

  /**
   * A write outside a transaction joins the writes of the same event-loop turn: they commit
   * together, one savepoint each, so one failing statement does not undo the others. A commit
   * costs far more than a statement in WAL mode (about 5× here), so concurrent creates share it.
   * Each caller is answered only after the commit.
   */
  async run(sql: string, params: readonly SqlParam[] = []): Promise<number> {
    while (this.lock) await this.lock;
    return this.enqueue(sql, params, false) as Promise<number>;
  }

  /** Joins the writes of the turn, as run does; answered with its RETURNING rows after their commit. */
  async writeRows(sql: string, params: readonly SqlParam[]): Promise<Row[]> {
    while (this.lock) await this.lock;
    return this.enqueue(sql, params, false, true) as Promise<Row[]>;
  }

  private enqueue(sql: string, params: readonly SqlParam[], row: boolean, returning = false): Promise<number | Row[]> {
    return new Promise<number | Row[]>((resolve, reject) => {
      this.pending.push({ sql, params, row, returning, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * Reads by id of one turn share one statement: each statement takes and drops the file's read
   * lock (system calls) and runs the engine once, which costs more than one row.
   */
  lookupRow(sql: string, key: string, batched: () => string, column: string): Promise<Row | undefined> {
    return this.lookups.lookup(sql, key, batched, column);
  }

  /** Writes of one event-loop turn already share a commit here (see run); inserts also a statement (see flush). */
  async insertRow(sql: string, params: readonly SqlParam[]): Promise<void> {
    while (this.lock) await this.lock;
    await this.enqueue(sql, params, true);
  }

  private flush(): void {
    // A transaction that began meanwhile owns the connection: commit after it.
    if (this.lock) {
      void this.lock.then(() => this.flush());
      return;
    }
    this.flushScheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    if (batch.length === 1) {
      const [only] = batch;
      try {
        only!.resolve(only!.returning ? this.allNow(only!.sql, only!.params) : this.runNow(only!.sql, only!.params));
      } catch (error) {
        only!.reject(error);
      }
      this.committed(1);
      return;
    }
    const outcomes: ({ changes: number } | { rows: Row[] } | { error: unknown })[] = [];
    try {
      this.control.begin.run();
      for (let start = 0; start < batch.length; ) {
        const end = rowsTogether(batch, start);
        // A statement that fails on a constraint is undone alone and the transaction goes on
        // (SQLite's ABORT), so no savepoint is needed around each write. An error that ends
        // the transaction instead (I/O, a full disk) fails every write of the batch.
        if (end - start > 1) {
          try {
            this.insertRows(batch, start, end);
            for (; start < end; start++) outcomes.push(ONE_ROW);
            continue;
          } catch (error) {
            // Nothing of it was written: each row alone below, so each caller gets its own answer.
            if (!this.db.inTransaction) throw error;
          }
        }
        for (; start < end; start++) {
          const write = batch[start]!;
          try {
            outcomes.push(write.returning ? { rows: this.allNow(write.sql, write.params) } : { changes: this.runNow(write.sql, write.params) });
          } catch (error) {
            if (!this.db.inTransaction) throw error;
            outcomes.push({ error });
          }
        }
      }
      this.control.commit.run();
    } catch (error) {
      if (this.db.inTransaction) this.control.rollback.run();
      for (const write of batch) write.reject(error);
      return;
    }
    this.committed(batch.length);
    batch.forEach((write, i) => {
      const outcome = outcomes[i]!;
      if ('error' in outcome) write.reject(outcome.error);
      else write.resolve('rows' in outcome ? outcome.rows : outcome.changes);
    });
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    while (this.lock) await this.lock;
    let release!: () => void;
    this.lock = new Promise<void>((resolve) => (release = resolve));
    const tx: SqlExecutor = {
      dialect: this.dialect,
      all: async (sql, params = []) => this.allNow(sql, params),
      run: async (sql, params = []) => this.runNow(sql, params),
    };
    this.control.begin.run();
    try {
      const result = await fn(tx);
      this.control.commit.run();
      this.committed(1);
      return result;
    } catch (error) {
      if (this.db.inTransaction) this.control.rollback.run();
      throw error;
    } finally {
      this.lock = null;
      release();
    }
  }

  uniqueViolation(error: unknown): string | null {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (code !== 'SQLITE_CONSTRAINT_UNIQUE' && code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') return null;
    return /index '([^']+)'/.exec(String(message))?.[1] ?? 'PRIMARY';
  }

  conflict(): boolean {
    // One connection per file, and its transactions one after another (the transaction lock).
    return false;
  }

  outOfRange(): boolean {
    // SQLite's arithmetic on reals overflows to infinity rather than failing.
    return false;
  }

  missingColumn(error: unknown): boolean {
    const { code, message } = error as { code?: unknown; message?: unknown };
    // A hinted index (INDEXED BY) that a schema change has just dropped fails the same way.
    return code === 'SQLITE_ERROR' && (String(message).startsWith('no such column') || String(message).startsWith('no such index'));
  }

  async close(): Promise<void> {
    this.readers?.forget(this.path);
    // No checkpoint is asked for from now on, and the thread's connection closes first.
    this.closed = true;
    await this.checkpointer?.forget(this.path);
    while (this.lock) await this.lock;
    if (this.pending.length > 0) this.flush();
    this.db.close();
  }

  /**
   * After a commit of `rows` writes: once ROWS_PER_CHECKPOINT rows were written since the last,
   * the checkpoint thread is asked for a checkpoint, one at a time. Should the thread fail, the
   * checkpoint runs here as SQLite's own would have.
   */
  private committed(rows: number): void {
    if (!this.checkpointer || this.closed) return;
    this.written += rows;
    if (this.written < ROWS_PER_CHECKPOINT || this.checkpointing) return;
    this.checkpointing = true;
    this.written = 0;
    void this.checkpointer.checkpoint(this.path).then((result) => {
      this.checkpointing = false;
      if (this.closed) return;
      const long = result === null || result.log >= WAL_FRAMES_KEPT;
      if (long && result !== null && result.log - result.checkpointed > CATCH_UP_FRAMES && this.catchUpRounds < CATCH_UP_ROUNDS) {
        this.catchUpRounds += 1;
        this.written = ROWS_PER_CHECKPOINT;
      } else if (long) {
        this.catchUpRounds = 0;
        try {
          if (!this.db.inTransaction) this.db.pragma('wal_checkpoint(PASSIVE)');
        } catch {
          // Left for the next: a checkpoint that cannot run now loses nothing.
        }
      }
      this.committed(0);
    });
  }

  private prepare(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql) as Statement;
      if (statement.reader) rawRows(statement);
      if (this.statements.size > 2000) this.statements.clear();
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Consecutive inserts of one text, as one multi-row INSERT: SQLite then prepares, steps and
   * resets one statement for all of them, which costs a fifth of a row each time (a stream of
   * creates, where every row of a commit is one).
   */
  private insertRows(batch: readonly PendingWrite[], start: number, end: number): void {
    const { sql } = batch[start]!;
    const count = end - start;
    let forCounts = this.multiRowStatements.get(sql);
    let statement = forCounts?.[count];
    if (statement === undefined) {
      statement = this.db.prepare(multiRowInsert(sql, count)) as Statement;
      if (this.multiRowPrepared >= MULTI_ROW_STATEMENTS_KEPT) {
        this.multiRowStatements.clear();
        this.multiRowPrepared = 0;
        forCounts = undefined;
      }
      if (forCounts === undefined) this.multiRowStatements.set(sql, (forCounts = []));
      forCounts[count] = statement;
      this.multiRowPrepared++;
    }
    const args: unknown[] = [];
    for (let i = start; i < end; i++) for (const param of batch[i]!.params) args.push(toSqlite(param));
    statement.run(...args);
  }

  private allNow(sql: string, params: readonly SqlParam[]): Row[] {
    const statement = this.prepare(sql);
    const args = params.map(toSqlite);
    if (!statement.reader) {
      statement.run(...args);
      return [];
    }
    if (sql.includes(TIMED_CALL)) return runWithin(() => rowsOf(statement, statement.all(...args) as unknown as unknown[][]));
    return rowsOf(statement, statement.all(...args) as unknown as unknown[][]);
  }

  private runNow(sql: string, params: readonly SqlParam[]): number {
    const statement = this.prepare(sql);
    if (statement.reader) return statement.all(...params.map(toSqlite)).length;
    return statement.run(...params.map(toSqlite)).changes;
  }
}

/** The column names of statements that return rows as arrays (see rawRows). */
const columnNames = new WeakMap<Statement, readonly string[]>();

/**
 * Has a reading statement return each row as an array, made into an object by rowsOf. For each
 * row of an object, better-sqlite3 (on Node 20) looks every column name up in V8's string table
 * and sets it through V8's generic property path; from an array, JavaScript builds the same
 * object for about 0.4 µs less per row of a lookup (measured alone, six columns).
 */
function rawRows(statement: Statement): void {
  statement.raw(true);
  columnNames.set(statement, statement.columns().map((column) => column.name));
}

function rowsOf(statement: Statement, raw: unknown[][]): Row[] {
  return objectsOf(columnNames.get(statement)!, raw, false);
}

/** `cloned`: the rows crossed from a reader thread, where a blob arrives as a plain Uint8Array. */
function objectsOf(names: readonly string[], raw: unknown[][], cloned: boolean): Row[] {
  const rows: Row[] = new Array(raw.length);
  for (let r = 0; r < raw.length; r++) {
    const values = raw[r]!;
    const row: Row = {};
    // As better-sqlite3's own objects: a later column of the same name wins.
    for (let i = 0; i < names.length; i++) {
      const value = values[i];
      row[names[i]!] = cloned && value instanceof Uint8Array ? Buffer.from(value.buffer, value.byteOffset, value.byteLength) : value;
    }
    rows[r] = row;
  }
  return rows;
}

interface PendingWrite {
  readonly sql: string;
  readonly params: readonly SqlParam[];
  /** A single-row INSERT … VALUES (…) of Basalt's own, which may share a statement (insertRow). */
  readonly row: boolean;
  /** Answered with its RETURNING rows (writeRows) rather than the count of rows changed. */
  readonly returning: boolean;
  readonly resolve: (outcome: number | Row[]) => void;
  readonly reject: (error: unknown) => void;
}

const ONE_ROW = { changes: 1 } as const;
/** Multi-row statements kept prepared, over all INSERT texts and row counts. */
const MULTI_ROW_STATEMENTS_KEPT = 256;
/** Rows of one multi-row INSERT, and its parameters: within SQLite's oldest limit of 999. */
const MAX_ROWS_TOGETHER = 64;
const MAX_PARAMS_TOGETHER = 999;

/** The end of the run of inserts from `start` that can go as one statement (start + 1 if none). */
function rowsTogether(batch: readonly PendingWrite[], start: number): number {
  const first = batch[start]!;
  if (!first.row) return start + 1;
  const most = Math.min(MAX_ROWS_TOGETHER, Math.floor(MAX_PARAMS_TOGETHER / Math.max(1, first.params.length)));
  let end = start + 1;
  while (end < batch.length && end - start < most && batch[end]!.row && batch[end]!.sql === first.sql) end++;
  return end;
}

function toSqlite(value: SqlParam): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (Array.isArray(value)) {
    // The permission list of most objects: encoded once rather than for every write.
    if (value.length === 1 && value[0] === '*') return PUBLIC_PERMS;
    return JSON.stringify(value);
  }
  return value;
}

const PUBLIC_PERMS = JSON.stringify(['*']);
