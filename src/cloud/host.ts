import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { ApiError } from '../errors/index.ts';
import { cloudError } from './errors.ts';
import { LogRing } from './log-ring.ts';
import type { FromWorker, Registered, ToWorker, WorkerCall, WorkerSetup } from './protocol.ts';

export interface HostLimits {
  readonly memoryMb: number;
  readonly timeoutMs: number;
}

interface Pending {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: ApiError) => void;
  readonly label: string;
  timer: NodeJS.Timeout | null;
  /** A job's status messages. */
  readonly onMessage?: ((message: string) => void) | undefined;
}

function labelOf(call: WorkerCall): string {
  if (call.t === 'function') return `function "${call.name}"`;
  if (call.t === 'job') return `job "${call.name}"`;
  return `${call.name} trigger of ${call.request.className}`;
}

/**
 * Built, the worker is dist's JavaScript. Run from source (tests, `node --import tsx`), it is this
 * folder's TypeScript, and a worker does not inherit the main thread's tsx loader: a two-line
 * script registers it there first.
 */
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const WORKER_URL = new URL(FROM_SOURCE ? './worker/main.ts' : './worker/main.js', import.meta.url);
const WORKER_SCRIPT = FROM_SOURCE
  ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER_URL.href)}); });`
  : null;

const LOAD_LIMIT_MS = 30_000;

/** 141 (SCRIPT_FAILED): what every call on a worker that stopped answers. */
const SCRIPT_FAILED = 141;

/** One worker thread running one app's code, and the calls it has in flight. */
class Generation {
  readonly worker: Worker;
  readonly ready: Promise<Registered>;
  readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** Why it stopped; null while it runs. */
  stopped: string | null = null;
  /** Its code loaded: only such a worker is restarted when it stops (a load failure would only repeat). */
  loaded = false;
  /** Called once when it stops on its own (a crash, out of memory, process.exit, a call past its time). */
  onStop: (reason: string) => void = () => {};

  constructor(setup: WorkerSetup, private readonly limits: HostLimits, private readonly onLog: (message: Extract<FromWorker, { t: 'log' }>) => void) {
    const options = { workerData: setup, resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb }, stdout: false, stderr: false };
    this.worker = WORKER_SCRIPT ? new Worker(WORKER_SCRIPT, { ...options, eval: true }) : new Worker(WORKER_URL, options);
    this.worker.unref();
    this.ready = new Promise((resolve, reject) => {
      // Code that never finishes loading (a loop or a hanging await at the top level) would hold
      // the app's first request for ever: loading has a time limit too, never shorter than 30 s
      // (a cold start on a busy machine) nor than a call's.
      const loadLimitMs = Math.max(limits.timeoutMs, LOAD_LIMIT_MS);
      const loading = setTimeout(() => {
        reject(new Error(`cloud code did not load within ${loadLimitMs} ms`));
        this.stop('did not load in time');
      }, loadLimitMs);
      this.worker.on('message', (message: FromWorker) => {
        if (message.t === 'ready') {
          clearTimeout(loading);
          this.loaded = true;
          resolve(message.registered);
        } else if (message.t === 'loadFailed') {
          clearTimeout(loading);
          reject(new Error(`cloud code failed to load: ${message.message}`));
          this.stop('failed to load');
        } else this.receive(message);
      });
      this.worker.on('error', (error: Error & { code?: string }) => {
        clearTimeout(loading);
        const reason = error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `ran out of memory (limit ${limits.memoryMb} MB)` : `threw ${error.message}`;
        reject(new Error(`cloud code failed to load: ${error.message}`));
        this.stop(reason);
      });
      this.worker.on('exit', (code) => {
        clearTimeout(loading);
        reject(new Error(`cloud code exited while loading (code ${code})`));
        this.stop(`called process.exit(${code})`);
      });
    });
    // A load failure is the caller's to report; this keeps it from being an unhandled rejection too.
    this.ready.catch(() => {});
  }

  call(call: WorkerCall, onMessage?: (message: string) => void): Promise<unknown> {
    const id = this.nextId++;
    const label = labelOf(call);
    return new Promise((resolve, reject) => {
      if (this.stopped) {
        reject(cloudError(SCRIPT_FAILED, `Cloud code ${label} failed: the app's cloud code ${this.stopped}`));
        return;
      }
      const pending: Pending = { resolve, reject, label, timer: null, onMessage };
      // Jobs have no time limit (issue 17): they are the place for work longer than a request.
      if (call.t !== 'job') pending.timer = setTimeout(() => {
        this.pending.delete(id);
        reject(cloudError(SCRIPT_FAILED, `Cloud code ${label} did not finish within ${this.limits.timeoutMs} ms; the app's worker is restarted`));
        this.stop(`was restarted after ${label} ran past ${this.limits.timeoutMs} ms`);
      }, this.limits.timeoutMs);
      this.pending.set(id, pending);
      this.worker.postMessage({ ...call, id } as ToWorker);
    });
  }

  post(message: ToWorker): void {
    if (!this.stopped) this.worker.postMessage(message);
  }

  /** Ends the worker; the calls it still has fail with the reason. */
  stop(reason: string, expected = false): void {
    if (this.stopped) return;
    this.stopped = reason;
    for (const [id, pending] of this.pending) {
      this.pending.delete(id);
      if (pending.timer) clearTimeout(pending.timer);
      pending.reject(cloudError(SCRIPT_FAILED, `Cloud code ${pending.label} failed: the app's cloud code ${reason}`));
    }
    void this.worker.terminate();
    if (!expected) this.onStop(reason);
  }

  private receive(message: FromWorker): void {
    if (message.t === 'log') {
      this.onLog(message);
      return;
    }
    if (message.t === 'ready' || message.t === 'loadFailed') return;
    const pending = this.pending.get(message.id);
    if (!pending) return;
    if (message.t === 'jobMessage') {
      pending.onMessage?.(message.message);
      return;
    }
    this.pending.delete(message.id);
    if (pending.timer) clearTimeout(pending.timer);
    if (message.t === 'done') pending.resolve(message.value);
    else pending.reject(cloudError(message.code, message.message));
  }
}

/**
 * The worker of one app's cloud code: started on demand, restarted when it stops on its own,
 * replaced on reload (calls in flight finish on the old one, new calls go to the new one).
 */
export class AppWorker {
  readonly log = new LogRing();
  private current: Generation | null = null;
  private serverUrl: string | null = null;
  /** Why the code last failed to load; calls answer it until a reload loads the code. */
  private loadError: string | null = null;
  restarts = 0;
  /** What the code registered when it last loaded. */
  registered: Registered = { functions: [], jobs: [], triggers: [] };
  /** Its function names, for the lookup every call makes. */
  functions: ReadonlySet<string> = new Set();

  constructor(
    private readonly setup: Omit<WorkerSetup, 'serverUrl'>,
    private readonly limits: HostLimits,
    private readonly logger: Logger,
    private readonly onRestart: () => void,
    /** Called with what a (re)loaded worker registered. */
    private readonly onLoaded: (registered: Registered) => void,
  ) {}

  /**
   * Starts a worker (the first, a restart's or a reload's). Without a running worker, calls wait
   * for this one; on a reload, the old one keeps taking calls until the new one has loaded, and
   * stays when the new code fails to load.
   */
  async start(): Promise<void> {
    const next = new Generation({ ...this.setup, serverUrl: this.serverUrl }, this.limits, (message) => this.write(message.level, message.kind, message.name, message.message));
    next.onStop = (reason) => this.stopped(next, reason);
    const previous = this.current;
    if (!previous) this.current = next;
    try {
      this.registered = await next.ready;
    } catch (error) {
      this.loadError = (error as Error).message;
      this.write('error', 'load', '', this.loadError);
      if (this.current === next) this.current = null;
      throw error;
    }
    this.loadError = null;
    this.functions = new Set(this.registered.functions);
    // What was current meanwhile (the previous worker, or one a crash restarted) ends once idle.
    const replaced = this.current;
    this.current = next;
    this.onLoaded(this.registered);
    for (const old of new Set([previous, replaced])) if (old && old !== next) retire(old);
  }

  /** Runs one call on the current worker; fails with the call's own error, or 141 when the worker stops. */
  async call(call: WorkerCall, onMessage?: (message: string) => void): Promise<unknown> {
    let generation: Generation;
    try {
      if (!this.current) {
        if (this.loadError) throw new Error(this.loadError);
        await this.start();
      }
      generation = this.current!;
      await generation.ready;
    } catch (error) {
      throw cloudError(SCRIPT_FAILED, `The app's ${(error as Error).message}`);
    }
    try {
      return await generation.call(call, onMessage);
    } catch (error) {
      const [kind, name] = call.t === 'trigger' ? [call.name, call.request.className] : [call.t, call.name];
      const what = call.t === 'function' ? 'cloud function' : call.t === 'job' ? 'job' : `${kind} trigger of`;
      this.write('error', kind, name, `Failed running ${what} ${name}: ${(error as Error).message}`);
      throw error;
    }
  }

  /** What the code registered, once its worker has loaded (null when it cannot load). */
  async loadedRegistration(): Promise<Registered | null> {
    try {
      if (!this.current) {
        if (this.loadError) return null;
        await this.start();
      }
      return await this.current!.ready;
    } catch {
      return null;
    }
  }

  /** The code failed to load and no worker runs: every call answers why. */
  get broken(): boolean {
    return this.loadError !== null && this.current === null;
  }

  setServerUrl(url: string): void {
    this.serverUrl = url;
    this.current?.post({ t: 'serverUrl', url });
  }

  close(): void {
    this.current?.stop('was stopped with the server', true);
    this.current = null;
  }

  private stopped(generation: Generation, reason: string): void {
    // One that never loaded is start()'s to report (a reload keeps the worker it meant to replace).
    if (this.current !== generation || !generation.loaded) return;
    this.write('error', 'worker', '', `cloud code worker ${reason}; restarting it`);
    this.current = null;
    this.restarts++;
    this.onRestart();
    // A worker that cannot load is not restarted in a loop: the next call tries again.
    this.start().catch(() => {});
  }

  private write(level: 'error' | 'warn' | 'info' | 'debug', kind: string, name: string, message: string): void {
    this.logger[level]({ app: this.setup.applicationId, kind, name }, message);
    this.log.push({ level, message, timestamp: new Date().toISOString() });
  }
}

/** A replaced worker ends once its calls in flight have answered. */
function retire(generation: Generation): void {
  const check = () => {
    if (generation.pending.size === 0) generation.stop('was replaced by a reload', true);
    else setTimeout(check, 50).unref();
  };
  check();
}
