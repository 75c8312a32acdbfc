import { Worker } from 'node:worker_threads';
import { workerScript, workerSource } from './worker-script.ts';

/** What the main thread asks the checkpoint thread (checkpoint-worker.ts). */
export type CheckpointRequest =
  /** A PASSIVE checkpoint of the file's WAL. */
  | { readonly kind: 'checkpoint'; readonly id: number; readonly file: string }
  /** The app's file is going away (a dropped app, a closed driver): close its connection. */
  | { readonly kind: 'forget'; readonly id: number; readonly file: string }
  /** The server is closing: close every connection (the last to close a file ends its WAL) and end. */
  | { readonly kind: 'close' };

export type CheckpointReply =
  /** `log`: frames in the WAL; `checkpointed`: how many of them are now in the database file. */
  | { readonly id: number; readonly log: number; readonly checkpointed: number }
  | { readonly id: number; readonly error: string }
  /** The connection to the file is closed. */
  | { readonly id: number; readonly forgotten: true };

/** How long a closing thread may take to close its connections before it is stopped. */
const CLOSE_WAIT_MS = 5000;

/** How far a checkpoint got: frames in the WAL, and how many of them are in the database file. */
export interface CheckpointResult {
  readonly log: number;
  readonly checkpointed: number;
}

/**
 * One thread that copies the WAL of the app files back into them (a checkpoint), beside the main
 * thread. SQLite's own checkpoint runs in the commit that crosses its threshold, on the writer's
 * connection: with better-sqlite3 that is the main thread, and copying a few thousand pages
 * scattered over a file, then syncing it, held every request for a quarter of a second, several
 * times a second under a stream of updates, and took more than half of the thread's time in
 * them. Here the thread does the copying on its own connection, in PASSIVE mode, which never
 * waits for the writer; see SqliteDriver for when it is asked.
 */
export class Checkpointer {
  private worker: Worker | null = null;
  private nextId = 0;
  private readonly waiting = new Map<number, (result: CheckpointResult | null) => void>();
  private closed = false;

  constructor(private readonly script: URL = workerScript('checkpoint-worker')) {}

  /** Resolves with how far the checkpoint got, or null when the thread failed or is closed. */
  checkpoint(file: string): Promise<CheckpointResult | null> {
    if (this.closed) return Promise.resolve(null);
    const id = ++this.nextId;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.thread().postMessage({ kind: 'checkpoint', id, file } satisfies CheckpointRequest);
    });
  }

  /**
   * Closes the thread's connection to the file, before the driver closes its own: the last
   * connection to close a file copies the rest of its WAL and deletes it.
   */
  async forget(file: string): Promise<void> {
    if (!this.worker) return;
    const id = ++this.nextId;
    await new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.worker!.postMessage({ kind: 'forget', id, file } satisfies CheckpointRequest);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    this.failWaiting();
    if (!worker) return;
    const ended = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ kind: 'close' } satisfies CheckpointRequest);
    const stop = setTimeout(() => void worker.terminate(), CLOSE_WAIT_MS);
    await ended;
    clearTimeout(stop);
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const { source, eval: evaluated } = workerSource(this.script);
    const worker = new Worker(source, { eval: evaluated });
    // An idle thread does not keep the process alive; the server's socket does.
    worker.unref();
    worker.on('message', (reply: CheckpointReply) => {
      const resolve = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      resolve?.('error' in reply || 'forgotten' in reply ? null : { log: reply.log, checkpointed: reply.checkpointed });
    });
    // An uncaught error ends the thread; 'exit' follows. The next checkpoint starts a new one.
    worker.on('error', () => {});
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = null;
      this.failWaiting();
    });
    this.worker = worker;
    return worker;
  }

  private failWaiting(): void {
    for (const resolve of this.waiting.values()) resolve(null);
    this.waiting.clear();
  }
}
