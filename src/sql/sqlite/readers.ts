import { Worker } from 'node:worker_threads';
import { Errors } from '../../errors/index.ts';
import { workerScript, workerSource } from './worker-script.ts';

/** One read of a batch. */
export interface ReaderRead {
  readonly id: number;
  readonly file: string;
  readonly sql: string;
  readonly params: readonly unknown[];
}

/** What the main thread asks a reader thread (reader-worker.ts). */
export type ReaderRequest =
  /** Reads run one after another; `sentAt` (Date.now()) is what the progress record counts from. */
  | { readonly kind: 'reads'; readonly reads: readonly ReaderRead[]; readonly sentAt: number }
  /** The app's file is going away (a dropped app): close its connection. */
  | { readonly kind: 'forget'; readonly file: string };

/** A reader's answer to one read: the rows as arrays, in the order of `columns`, or the statement's error. */
export type ReadAnswer = (
  | { readonly id: number; readonly columns: readonly string[]; readonly rows: unknown[][] }
  | { readonly id: number; readonly error: { readonly code: string | undefined; readonly message: string } }
) & {
  /** How long the read ran, in milliseconds. */
  readonly ms: number;
};

export type ReaderReply =
  /** The thread has loaded its script: the time limit of a read counts from its dispatch after this. */
  | { readonly ready: true }
  /** The answers to a whole batch, in its order. */
  | { readonly answers: readonly ReadAnswer[] };

/**
 * Where a thread is in its batch, shared with it: the index of the read it runs, and when that
 * read began, in milliseconds after the batch's `sentAt`. Written by the thread before each read
 * (no message, no system call), read by the pool when a limit may have passed or the thread died.
 */
export const PROGRESS_INDEX = 0;
export const PROGRESS_STARTED = 1;

export interface ReadRows {
  readonly columns: readonly string[];
  readonly rows: unknown[][];
}

/** How long one read may run on its thread, and the error that answers it past that. */
export interface ReadLimit {
  readonly ms: number;
  readonly error: () => Error;
}

interface Job {
  readonly read: ReaderRead;
  readonly limit: ReadLimit;
  readonly resolve: (rows: ReadRows) => void;
  readonly reject: (error: unknown) => void;
}

interface Reader {
  readonly worker: Worker;
  readonly progress: Int32Array;
  /** The reads sent and not yet answered, in the order the thread runs them. */
  batch: Job[] | null;
  sentAt: number;
  timer: NodeJS.Timeout | null;
  /** Stopped on purpose (a read past its limit, or close): its exit is no crash. */
  retired: boolean;
  ready: boolean;
}

/**
 * Reads sent to a thread in one message at most. Each message costs a wake-up of the thread and
 * one of the main thread for the answer, system calls that cost more than a read by index does:
 * under load, reads waiting together go together (docs/architecture.md, "SQLite reader threads").
 */
const MAX_BATCH = 8;
/**
 * A statement whose last run took longer, or that has not run yet, is sent alone: the reads of a
 * batch run one after another, and none may wait behind a scan.
 */
const FAST_MS = 2;
/** Statement texts whose speed is remembered; past this, the record starts again. */
const TEXTS_KEPT = 2000;

/**
 * A few threads that run SQLite reads (finds, counts, aggregates) beside the main thread, each
 * with its own read-only connections (reader-worker.ts). better-sqlite3 is synchronous: on the
 * main thread a scan holds every other request of every app until it ends; here it holds only
 * its thread, and the second core works. A read that runs past its limit cannot be interrupted
 * inside SQLite (better-sqlite3 offers no sqlite3_interrupt), so its thread is terminated and a
 * fresh one takes its place; the caller is answered at once, and the other reads of its batch
 * are sent again.
 */
export class ReaderPool {
  private readonly readers: Reader[] = [];
  private readonly queue: Job[] = [];
  private nextId = 0;
  private closed = false;
  /** Statement texts whose last run was quick (FAST_MS): only these share a batch. */
  private readonly quick = new Map<string, boolean>();

  /**
   * Threads start as reads arrive, up to `size`: a server whose app never scans keeps no idle
   * thread (each costs about 6 MB of memory).
   */
  constructor(
    private readonly size: number,
    private readonly defaultLimit: ReadLimit,
    /** The thread's script; tests give one that can crash on demand. */
    private readonly script: URL = defaultScript(),
  ) {}

  /** How long a read may run, unless its call says otherwise. */
  get limitMs(): number {
    return this.defaultLimit.ms;
  }

  read(file: string, sql: string, params: readonly unknown[], limit: ReadLimit = this.defaultLimit): Promise<ReadRows> {
    if (this.closed) return Promise.reject(new Error('the SQLite readers are closed'));
    return new Promise<ReadRows>((resolve, reject) => {
      this.queue.push({ read: { id: ++this.nextId, file, sql, params }, limit, resolve, reject });
      this.grow();
      this.pump();
    });
  }

  /** Closes every reader's connection to the file (before it is deleted). */
  forget(file: string): void {
    for (const reader of this.readers) reader.worker.postMessage({ kind: 'forget', file } satisfies ReaderRequest);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('the SQLite readers are closed'));
    await Promise.all(
      this.readers.map((reader) => {
        for (const job of this.takeBatch(reader)) job.reject(new Error('the SQLite readers are closed'));
        return this.stop(reader);
      }),
    );
  }

  /** One more thread when every thread (starting ones included) has reads and the pool is not full. */
  private grow(): void {
    if (this.readers.length >= this.size || this.readers.some((reader) => !reader.batch && !reader.retired)) return;
    this.readers.push(this.spawn());
  }

  /**
   * The waiting reads, shared out among the idle threads, each share one message. A read not
   * known to be quick goes alone, and a share ends before it.
   */
  private pump(): void {
    if (this.queue.length === 0) return;
    const idle = this.readers.filter((reader) => !reader.batch && !reader.retired && reader.ready);
    for (let i = 0; i < idle.length && this.queue.length > 0; i++) {
      const share = Math.min(MAX_BATCH, Math.ceil(this.queue.length / (idle.length - i)));
      let taken = 1;
      if (this.quick.get(this.queue[0]!.read.sql)) {
        while (taken < share && taken < this.queue.length && this.quick.get(this.queue[taken]!.read.sql)) taken++;
      }
      this.send(idle[i]!, this.queue.splice(0, taken));
    }
  }

  private send(reader: Reader, batch: Job[]): void {
    reader.batch = batch;
    reader.sentAt = Date.now();
    Atomics.store(reader.progress, PROGRESS_INDEX, 0);
    Atomics.store(reader.progress, PROGRESS_STARTED, 0);
    this.arm(reader);
    reader.worker.postMessage({ kind: 'reads', reads: batch.map((job) => job.read), sentAt: reader.sentAt } satisfies ReaderRequest);
  }

  /** The read under way in a reader's batch, and when it began. */
  private current(reader: Reader): { index: number; startedAt: number } {
    const index = Math.min(Atomics.load(reader.progress, PROGRESS_INDEX), (reader.batch?.length ?? 1) - 1);
    return { index, startedAt: reader.sentAt + Atomics.load(reader.progress, PROGRESS_STARTED) };
  }

  /** A timer for the limit of the read under way; when it fires, the thread may have gone on to another. */
  private arm(reader: Reader): void {
    const batch = reader.batch;
    if (!batch) return;
    const { index, startedAt } = this.current(reader);
    const due = Math.max(0, startedAt + batch[index]!.limit.ms - Date.now());
    reader.timer = setTimeout(() => {
      reader.timer = null;
      const now = this.current(reader);
      if (now.index === index && now.startedAt === startedAt) this.expire(reader, index);
      else this.arm(reader);
    }, due);
  }

  private spawn(): Reader {
    const progress = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
    const { source, eval: evaluated } = workerSource(this.script);
    const worker = new Worker(source, { eval: evaluated, workerData: { progress } });
    // Idle readers do not keep the process alive; the server's socket does.
    worker.unref();
    const reader: Reader = { worker, progress, batch: null, sentAt: 0, timer: null, retired: false, ready: false };
    worker.on('message', (reply: ReaderReply) => this.answer(reader, reply));
    // An uncaught error ends the thread; 'exit' follows and replaces it.
    worker.on('error', () => {});
    worker.on('exit', () => this.crashed(reader));
    return reader;
  }

  private answer(reader: Reader, reply: ReaderReply): void {
    if ('ready' in reply) {
      reader.ready = true;
      this.pump();
      return;
    }
    const batch = reader.batch;
    if (!batch || reply.answers.length !== batch.length || reply.answers[0]?.id !== batch[0]!.read.id) return;
    this.takeBatch(reader);
    if (this.quick.size > TEXTS_KEPT) this.quick.clear();
    reply.answers.forEach((answer, i) => {
      const job = batch[i]!;
      this.quick.set(job.read.sql, answer.ms <= FAST_MS);
      if ('error' in answer) job.reject(Object.assign(new Error(answer.error.message), { code: answer.error.code }));
      else job.resolve({ columns: answer.columns, rows: answer.rows });
    });
    this.pump();
  }

  /** The reader's batch, which it no longer has, and its timer stopped. */
  private takeBatch(reader: Reader): Job[] {
    if (reader.timer) clearTimeout(reader.timer);
    reader.timer = null;
    const batch = reader.batch ?? [];
    reader.batch = null;
    return batch;
  }

  /**
   * The read at `index` failed with `error`; the others of the batch go back to the front of the
   * queue (those before it were run, but their answers died with the thread).
   */
  private failOne(reader: Reader, index: number, error: Error): void {
    const batch = this.takeBatch(reader);
    const failed = batch[index];
    this.queue.unshift(...batch.filter((job) => job !== failed));
    failed?.reject(error);
  }

  private expire(reader: Reader, index: number): void {
    const batch = reader.batch;
    if (!batch) return;
    reader.retired = true;
    this.failOne(reader, index, batch[index]!.limit.error());
    void this.stop(reader);
    this.replace(reader);
  }

  private crashed(reader: Reader): void {
    if (reader.retired) return;
    reader.retired = true;
    if (reader.batch) this.failOne(reader, this.current(reader).index, Errors.internalServerError('The thread running this query stopped unexpectedly.'));
    if (reader.ready) {
      this.replace(reader);
      return;
    }
    // It died loading its script: the next would too. The reads waiting fail now, not never, and
    // a new thread is tried a moment later.
    for (const waiting of this.queue.splice(0)) waiting.reject(Errors.internalServerError('The SQLite reader threads cannot start.'));
    setTimeout(() => this.replace(reader), RESTART_DELAY_MS).unref();
  }

  private async stop(reader: Reader): Promise<void> {
    reader.retired = true;
    await reader.worker.terminate();
  }

  private replace(reader: Reader): void {
    const at = this.readers.indexOf(reader);
    if (at < 0 || this.closed) return;
    this.readers[at] = this.spawn();
    this.pump();
  }
}

/** Before a thread that failed to start is tried again. */
const RESTART_DELAY_MS = 1000;

function defaultScript(): URL {
  return workerScript('reader-worker');
}
