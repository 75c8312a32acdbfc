import type { AppNamespace } from '../sql/namespace.ts';
import type { SqlExecutor, Row } from '../sql/driver.ts';
import type { WriteStep } from './port.ts';
import { newObjectId } from './ids.ts';
import { TurnQueue } from '../sql/turn-queue.ts';

export type JobStatus = 'pending' | 'running' | 'dead';
export const JOB_STATUSES: readonly JobStatus[] = ['pending', 'running', 'dead'];

/** A job as stored in the app's `_Jobs` table. Times in milliseconds since 1970. */
export interface JobRecord {
  readonly id: string;
  readonly type: string;
  readonly payload: unknown;
  readonly status: JobStatus;
  /** Attempts started, the running one included. */
  readonly attempts: number;
  readonly maxAttempts: number;
  /** When the job is (or was) due to run. */
  readonly runAt: number;
  readonly lockedBy: string | null;
  readonly lockedUntil: number | null;
  readonly lastError: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface NewJob {
  readonly type: string;
  readonly payload: unknown;
  /** Absent: the job type's own maximum, or the server's (--queue-max-attempts). */
  readonly maxAttempts?: number;
  /** Absent: now. */
  readonly runAt?: number;
}

export interface JobPage {
  readonly status?: JobStatus;
  readonly limit: number;
  readonly skip: number;
}

/**
 * The durable queue of one app. A job is written by a step of the unit of work that causes it,
 * which also announces it (PostgreSQL: pg_notify in the same transaction, delivered at commit;
 * SQLite: a signal in this process). Workers take jobs under a lease in `lockedBy`/`lockedUntil`;
 * every change they make is conditional on still holding it, so a process whose lease ran out
 * (it was stopped, or it died) changes nothing another process has taken since.
 */
export interface JobStore {
  enqueueStep(jobs: NewJob | readonly NewJob[]): { readonly ids: readonly string[]; readonly step: WriteStep };
  /** Takes up to `limit` due jobs for `owner` until `lockedUntil`. */
  claim(owner: string, limit: number, now: number, lockedUntil: number): Promise<JobRecord[]>;
  /** Done: the job is removed. */
  complete(id: string, owner: string): Promise<void>;
  /** Failed, to be tried again at `runAt`. */
  reschedule(id: string, owner: string, runAt: number, error: string): Promise<void>;
  /** Failed for the last time: kept as dead with its error, and `steps` written with it. */
  bury(id: string, owner: string, error: string, steps: readonly WriteStep[]): Promise<void>;
  /** Extends the leases `owner` holds in this app. */
  renew(owner: string, lockedUntil: number): Promise<void>;
  /** Gives back the running jobs of `owner` (on shutdown), due at once and without the attempt counted. */
  release(owner: string, now: number): Promise<number>;
  /** Makes every running job of another owner due at once: where one process owns the database, they belong to a process that is gone. */
  recoverOrphans(owner: string, now: number): Promise<number>;
  /** When the next job becomes takeable (a due retry, a lease that runs out), or null when none will. */
  nextDue(): Promise<number | null>;
  list(page: JobPage): Promise<JobRecord[]>;
  count(status?: JobStatus): Promise<number>;
  /** Pending jobs (due or not), and when the longest-waiting due one became due (null: none is due). */
  pendingSummary(now: number): Promise<{ readonly pending: number; readonly oldestDue: number | null }>;
  get(id: string): Promise<JobRecord | null>;
  /** A pending or dead job becomes pending and due now, with its attempts reset; null when there is no such job. */
  retry(id: string, now: number): Promise<JobRecord | null>;
}

/** Tells the workers of every process that an app has jobs; inside a transaction, once it commits. */
export type AnnounceJobs = (tx: SqlExecutor | null) => Promise<void>;

/** Claims, completions, lease renewals and retries are bookkeeping that at-least-once delivery can lose (driver.ts). */
const UNFLUSHED = { unflushedCommit: true } as const;

const COLUMNS = `"id", "type", "payload", "status", "attempts", "maxAttempts", "runAt", "lockedBy", "lockedUntil", "lastError", "createdAt", "updatedAt"`;

export class SqlJobStore implements JobStore {
  constructor(
    private readonly ns: AppNamespace,
    private readonly announce: AnnounceJobs,
    private readonly maxAttemptsOf: (type: string) => number,
  ) {}

  private get table(): string {
    return this.ns.table('_Jobs');
  }

  private get d() {
    return this.ns.driver.dialect;
  }

  /** SQLite's placeholders are positional: each value is bound once, in the order of its placeholder. */
  private p(n: number): string {
    return this.d.placeholder(n);
  }

  enqueueStep(jobs: NewJob | readonly NewJob[]): { readonly ids: readonly string[]; readonly step: WriteStep } {
    const list: readonly NewJob[] = Array.isArray(jobs) ? jobs : [jobs as NewJob];
    const now = Date.now();
    const iso = new Date(now).toISOString();
    const rows = list.map((job) => {
      const runAt = job.runAt ?? now;
      return [newObjectId(), job.type, JSON.stringify(job.payload ?? null), 'pending', 0, job.maxAttempts ?? this.maxAttemptsOf(job.type), runAt, runAt, iso, iso];
    });
    const sql = `INSERT INTO ${this.table} ("id", "type", "payload", "status", "attempts", "maxAttempts", "runAt", "due", "createdAt", "updatedAt") VALUES (${Array.from({ length: 10 }, (_, i) => this.p(i + 1)).join(', ')})`;
    const step: WriteStep = async (tx) => {
      for (const row of rows) await tx.run(sql, row as (string | number)[]);
      if (rows.length > 0) await this.announce(tx);
    };
    return { ids: rows.map((row) => String(row[0])), step };
  }

  async claim(owner: string, limit: number, now: number, lockedUntil: number): Promise<JobRecord[]> {
    // PostgreSQL: rows another process is taking at this moment are skipped, not waited for, so
    // workers of several processes take disjoint sets. SQLite has one writer and no row locks.
    const skipLocked = this.d.lockClause ? `${this.d.lockClause} SKIP LOCKED` : '';
    const rows = await this.ns.driver.all(
      `UPDATE ${this.table} SET "status" = 'running', "attempts" = "attempts" + 1, "lockedBy" = ${this.p(1)}, "lockedUntil" = ${this.p(2)}, "due" = ${this.p(3)}, "updatedAt" = ${this.p(4)} ` +
        `WHERE "id" IN (SELECT "id" FROM ${this.table} WHERE "due" <= ${this.p(5)} ORDER BY "due" LIMIT ${this.p(6)}${skipLocked}) RETURNING ${COLUMNS}`,
      [owner, lockedUntil, lockedUntil, new Date(now).toISOString(), now, limit],
      UNFLUSHED,
    );
    return rows.map(toJob).sort((a, b) => a.runAt - b.runAt);
  }

  /**
   * The jobs of one owner done in the same event-loop turn are deleted by one statement: a batch
   * of short jobs ends together, and each statement is a round trip on PostgreSQL.
   */
  complete(id: string, owner: string): Promise<void> {
    return new Promise((resolve, reject) => this.completions.add(owner, { id, resolve, reject }));
  }

  private readonly completions = new TurnQueue<string, { readonly id: string; readonly resolve: () => void; readonly reject: (error: unknown) => void }>((owner, done) => {
    const table = this.table;
    const ids = this.d.selectByKeys(`${table}."id"`, table, 'id', this.p(2));
    this.ns.driver.run(`DELETE FROM ${table} WHERE "lockedBy" = ${this.p(1)} AND "id" IN (${ids})`, [owner, done.map((job) => job.id)], UNFLUSHED).then(
      () => done.forEach((job) => job.resolve()),
      (error: unknown) => done.forEach((job) => job.reject(error)),
    );
  });

  async reschedule(id: string, owner: string, runAt: number, error: string): Promise<void> {
    await this.ns.driver.run(
      `UPDATE ${this.table} SET "status" = 'pending', "runAt" = ${this.p(1)}, "due" = ${this.p(2)}, "lockedBy" = NULL, "lockedUntil" = NULL, "lastError" = ${this.p(3)}, "updatedAt" = ${this.p(4)} WHERE "id" = ${this.p(5)} AND "lockedBy" = ${this.p(6)}`,
      [runAt, runAt, error, new Date().toISOString(), id, owner],
      UNFLUSHED,
    );
  }

  async bury(id: string, owner: string, error: string, steps: readonly WriteStep[]): Promise<void> {
    await this.ns.driver.transaction(async (tx) => {
      const changed = await tx.run(
        `UPDATE ${this.table} SET "status" = 'dead', "due" = NULL, "lockedBy" = NULL, "lockedUntil" = NULL, "lastError" = ${this.p(1)}, "updatedAt" = ${this.p(2)} WHERE "id" = ${this.p(3)} AND "lockedBy" = ${this.p(4)}`,
        [error, new Date().toISOString(), id, owner],
      );
      // Another process took the job over (this one's lease ran out): the outcome is its to record.
      if (changed === 0) return;
      for (const step of steps) await step(tx);
    });
  }

  async renew(owner: string, lockedUntil: number): Promise<void> {
    await this.ns.driver.run(`UPDATE ${this.table} SET "lockedUntil" = ${this.p(1)}, "due" = ${this.p(2)} WHERE "lockedBy" = ${this.p(3)} AND "status" = 'running'`, [lockedUntil, lockedUntil, owner], UNFLUSHED);
  }

  async release(owner: string, now: number): Promise<number> {
    const released = await this.ns.driver.run(
      `UPDATE ${this.table} SET "status" = 'pending', "attempts" = "attempts" - 1, "due" = ${this.p(1)}, "lockedBy" = NULL, "lockedUntil" = NULL, "updatedAt" = ${this.p(2)} WHERE "lockedBy" = ${this.p(3)} AND "status" = 'running'`,
      [now, new Date(now).toISOString(), owner],
    );
    if (released > 0) await this.announce(null);
    return released;
  }

  async recoverOrphans(owner: string, now: number): Promise<number> {
    return this.ns.driver.run(
      `UPDATE ${this.table} SET "status" = 'pending', "due" = ${this.p(1)}, "lockedBy" = NULL, "lockedUntil" = NULL, "updatedAt" = ${this.p(2)} WHERE "status" = 'running' AND "lockedBy" <> ${this.p(3)}`,
      [now, new Date(now).toISOString(), owner],
    );
  }

  async nextDue(): Promise<number | null> {
    const rows = await this.ns.driver.all(`SELECT min("due") AS "next" FROM ${this.table}`);
    const next = rows[0]?.next;
    return next === null || next === undefined ? null : Number(next);
  }

  async list(page: JobPage): Promise<JobRecord[]> {
    const where = page.status ? `WHERE "status" = ${this.p(1)} ` : '';
    const params: (string | number)[] = page.status ? [page.status] : [];
    const n = params.length;
    const rows = await this.ns.driver.all(`SELECT ${COLUMNS} FROM ${this.table} ${where}ORDER BY "createdAt", "id" LIMIT ${this.p(n + 1)} OFFSET ${this.p(n + 2)}`, [...params, page.limit, page.skip]);
    return rows.map(toJob);
  }

  async count(status?: JobStatus): Promise<number> {
    const rows = status
      ? await this.ns.driver.all(`SELECT count(*) AS "n" FROM ${this.table} WHERE "status" = ${this.p(1)}`, [status])
      : await this.ns.driver.all(`SELECT count(*) AS "n" FROM ${this.table}`);
    return Number(rows[0]?.n ?? 0);
  }

  async pendingSummary(now: number): Promise<{ readonly pending: number; readonly oldestDue: number | null }> {
    const rows = await this.ns.driver.all(
      `SELECT count(*) AS "n", min(CASE WHEN "due" <= ${this.p(1)} THEN "due" END) AS "oldest" FROM ${this.table} WHERE "status" = 'pending'`,
      [now],
    );
    const oldest = rows[0]?.oldest;
    return { pending: Number(rows[0]?.n ?? 0), oldestDue: oldest === null || oldest === undefined ? null : Number(oldest) };
  }

  async get(id: string): Promise<JobRecord | null> {
    const rows = await this.ns.driver.all(`SELECT ${COLUMNS} FROM ${this.table} WHERE "id" = ${this.p(1)}`, [id]);
    return rows[0] ? toJob(rows[0]) : null;
  }

  async retry(id: string, now: number): Promise<JobRecord | null> {
    const rows = await this.ns.driver.all(
      `UPDATE ${this.table} SET "status" = 'pending', "attempts" = 0, "runAt" = ${this.p(1)}, "due" = ${this.p(2)}, "updatedAt" = ${this.p(3)} WHERE "id" = ${this.p(4)} AND "status" <> 'running' RETURNING ${COLUMNS}`,
      [now, now, new Date(now).toISOString(), id],
    );
    if (!rows[0]) return null;
    await this.announce(null);
    return toJob(rows[0]);
  }
}

function toJob(row: Row): JobRecord {
  return {
    id: String(row.id),
    type: String(row.type),
    payload: JSON.parse(String(row.payload)) as unknown,
    status: row.status as JobStatus,
    attempts: Number(row.attempts),
    maxAttempts: Number(row.maxAttempts),
    runAt: Number(row.runAt),
    lockedBy: row.lockedBy == null ? null : String(row.lockedBy),
    lockedUntil: row.lockedUntil == null ? null : Number(row.lockedUntil),
    lastError: row.lastError == null ? null : String(row.lastError),
    createdAt: String(row.createdAt),
    updatedAt: String(row.updatedAt),
  };
}
