import { Worker } from 'node:worker_threads';
import { Errors } from '../../errors/index.ts';

/** What the main thread asks a reader thread (reader-worker.ts). */
export type ReaderRequest =
  | { readonly kind: 'read'; readonly id: number; readonly file: string; readonly sql: string; readonly params: readonly unknown[] }
  /** The app's file is going away (a dropped app): close its connection. */
  | { readonly kind: 'forget'; readonly file: string };

/** A reader's answer: the rows as arrays, in the order of `columns`, or the statement's error. */
export type ReaderReply =
  /** The thread has loaded its script: the time limit of a read counts from its dispatch after this. */
  | { readonly ready: true }
  | { readonly id: number; readonly columns: readonly string[]; readonly rows: unknown[][] }
  | { readonly id: number; readonly error: { readonly code: string | undefined; readonly message: string } };

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
  readonly request: Extract<ReaderRequest, { kind: 'read' }>;
  readonly limit: ReadLimit;
  readonly resolve: (rows: ReadRows) => void;
  readonly reject: (error: unknown) => void;
}

interface Reader {
  readonly worker: Worker;
  job: Job | null;
  timer: NodeJS.Timeout | null;
  /** Stopped on purpose (a read past its limit, or close): its exit is no crash. */
  retired: boolean;
  ready: boolean;
}

/**
 * A few threads that run SQLite reads (finds, counts, aggregates) beside the main thread, each
 * with its own read-only connections (reader-worker.ts). better-sqlite3 is synchronous: on the
 * main thread a scan holds every other request of every app until it ends; here it holds only
 * its thread, and the second core works. A read that runs past its limit cannot be interrupted
 * inside SQLite (better-sqlite3 offers no sqlite3_interrupt), so its thread is terminated and a
 * fresh one takes its place; the caller is answered at once.
 */
export class ReaderPool {
  private readonly readers: Reader[] = [];
  private readonly queue: Job[] = [];
  private nextId = 0;
  private closed = false;

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
      this.queue.push({ request: { kind: 'read', id: ++this.nextId, file, sql, params }, limit, resolve, reject });
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
    await Promise.all(this.readers.map((reader) => this.retire(reader, new Error('the SQLite readers are closed'))));
  }

  /** One more thread when every thread (starting ones included) has a read and the pool is not full. */
  private grow(): void {
    if (this.readers.length >= this.size || this.readers.some((reader) => !reader.job && !reader.retired)) return;
    this.readers.push(this.spawn());
  }

  private pump(): void {
    for (const reader of this.readers) {
      if (this.queue.length === 0) return;
      if (reader.job || reader.retired || !reader.ready) continue;
      const job = this.queue.shift()!;
      reader.job = job;
      reader.timer = setTimeout(() => this.expire(reader), job.limit.ms);
      reader.worker.postMessage(job.request);
    }
  }

  private spawn(): Reader {
    const worker = new Worker(this.script.pathname.endsWith('.ts') ? tsBootstrap(this.script) : this.script, { eval: this.script.pathname.endsWith('.ts') });
    // Idle readers do not keep the process alive; the server's socket does.
    worker.unref();
    const reader: Reader = { worker, job: null, timer: null, retired: false, ready: false };
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
    const job = reader.job;
    if (!job || job.request.id !== reply.id) return;
    this.finish(reader);
    if ('error' in reply) job.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
    else job.resolve({ columns: reply.columns, rows: reply.rows });
    this.pump();
  }

  private finish(reader: Reader): void {
    if (reader.timer) clearTimeout(reader.timer);
    reader.timer = null;
    reader.job = null;
  }

  private expire(reader: Reader): void {
    const job = reader.job;
    if (!job) return;
    void this.retire(reader, job.limit.error());
    this.replace(reader);
  }

  private crashed(reader: Reader): void {
    if (reader.retired) return;
    reader.retired = true;
    const job = reader.job;
    this.finish(reader);
    job?.reject(Errors.internalServerError('The thread running this query stopped unexpectedly.'));
    if (reader.ready) {
      this.replace(reader);
      return;
    }
    // It died loading its script: the next would too. The reads waiting fail now, not never, and
    // a new thread is tried a moment later.
    for (const waiting of this.queue.splice(0)) waiting.reject(Errors.internalServerError('The SQLite reader threads cannot start.'));
    setTimeout(() => this.replace(reader), RESTART_DELAY_MS).unref();
  }

  /** Stops a reader's thread; its read, if any, is answered with `error`. */
  private async retire(reader: Reader, error: Error): Promise<void> {
    reader.retired = true;
    const job = reader.job;
    this.finish(reader);
    job?.reject(error);
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
  // Built (dist/), the thread runs the compiled .js beside this file; from source, the .ts.
  return new URL(import.meta.url.endsWith('.ts') ? './reader-worker.ts' : './reader-worker.js', import.meta.url);
}

/**
 * Run from source (tests, `node --import tsx`), a thread does not inherit tsx's loader on
 * Node 20: it registers it before importing the script.
 */
function tsBootstrap(script: URL): string {
  const tsx = import.meta.resolve('tsx/esm/api');
  return `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(script.href)}); });`;
}
