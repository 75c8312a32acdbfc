import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteDriver } from './driver.ts';
import { AppNamespace } from '../namespace.ts';
import type { Backend, Invalidation, PoolUse } from '../backend.ts';
import { applyMigrations } from '../migrations.ts';
import { APP_MIGRATIONS, SYSTEM_MIGRATIONS } from './migrations.ts';
import { ident } from '../params.ts';
import type { SqlExecutor } from '../driver.ts';
import { ReaderPool } from './readers.ts';
import { Checkpointer } from './checkpointer.ts';
import { Errors } from '../../errors/index.ts';

/** The reader threads of the app files (readers.ts); none runs every statement on the main thread. */
export interface SqliteReaders {
  readonly readers: number;
  readonly readTimeoutMs: number;
}

/** The embedded backend: `basalt.db` for the system tables, `apps/<namespace>.db` per app. */
export class SqliteBackend implements Backend {
  readonly kind = 'sqlite' as const;
  readonly sharedByProcesses = false;
  private readonly jobHandlers: ((appId: string) => void)[] = [];
  readonly system: SqliteDriver;
  private readonly apps = new Map<string, Promise<AppNamespace>>();
  private readonly handlers: ((message: Invalidation) => void)[] = [];
  private exclusiveChain: Promise<void> = Promise.resolve();

  /** Shared by every app file; the system file's reads are small and stay on the main thread. */
  private readonly readers: ReaderPool | null;
  /** Copies the app files' WALs back into them off the main thread, where reads run off it too (checkpointer.ts). */
  private readonly checkpointer: Checkpointer | null;

  private constructor(
    private readonly dataDir: string,
    options: SqliteReaders,
  ) {
    mkdirSync(join(dataDir, 'apps'), { recursive: true });
    this.system = new SqliteDriver(join(dataDir, 'basalt.db'));
    const ms = options.readTimeoutMs;
    this.readers = options.readers > 0 ? new ReaderPool(options.readers, { ms, error: () => Errors.timeout(`The query ran for more than ${ms} ms and was stopped.`) }) : null;
    this.checkpointer = options.readers > 0 ? new Checkpointer() : null;
  }

  static async open(dataDir: string, options: SqliteReaders = { readers: 0, readTimeoutMs: 30_000 }): Promise<SqliteBackend> {
    const backend = new SqliteBackend(dataDir, options);
    await backend.system.transaction((tx) => applyMigrations(tx, SYSTEM_MIGRATIONS, ident, ident('_migrations')));
    return backend;
  }

  systemTable(name: string): string {
    return ident(name);
  }

  openApp(namespace: string): Promise<AppNamespace> {
    let opened = this.apps.get(namespace);
    if (!opened) {
      opened = (async () => {
        const driver = new SqliteDriver(this.appFile(namespace), this.readers, this.checkpointer);
        await driver.transaction((tx) => applyMigrations(tx, APP_MIGRATIONS, ident, ident('_MIGRATIONS')));
        return new AppNamespace(driver, null);
      })();
      opened.catch(() => this.apps.delete(namespace));
      this.apps.set(namespace, opened);
    }
    return opened;
  }

  async dropApp(namespace: string): Promise<void> {
    const opened = this.apps.get(namespace);
    this.apps.delete(namespace);
    if (opened) await (await opened).driver.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(this.appFile(namespace) + suffix, { force: true });
  }

  private appFile(namespace: string): string {
    return join(this.dataDir, 'apps', `${namespace}.db`);
  }

  async publish(message: Invalidation): Promise<void> {
    for (const handler of this.handlers) handler(message);
  }

  subscribe(handler: (message: Invalidation) => void): void {
    this.handlers.push(handler);
  }

  /**
   * One process owns the data directory, so the news stays in it. It may arrive before the
   * enqueuing transaction commits: the worker's claim then waits for the app's transaction lock
   * (sqlite/driver.ts) and finds the job, or finds nothing after a rollback.
   */
  async announceJobs(_tx: SqlExecutor | null, appId: string): Promise<void> {
    setImmediate(() => {
      for (const handler of this.jobHandlers) handler(appId);
    });
  }

  onJobs(handler: (appId: string) => void): void {
    this.jobHandlers.push(handler);
  }

  /** In one process, waiting for the lock blocks no statement: it always runs. */
  async exclusiveIfFree(name: string, fn: () => Promise<void>): Promise<boolean> {
    await this.exclusive(name, fn);
    return true;
  }

  /** One process owns a SQLite data directory, so an in-process lock is enough. */
  async exclusive<T>(_name: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.exclusiveChain;
    let release!: () => void;
    this.exclusiveChain = new Promise<void>((resolve) => (release = resolve));
    await previous;
    try {
      return await fn();
    } finally {
      release();
    }
  }

  poolUse(): readonly PoolUse[] {
    return [];
  }

  openAppCount(): number {
    return this.apps.size;
  }

  async ping(): Promise<void> {
    await this.system.all('SELECT 1');
  }

  async close(): Promise<void> {
    for (const opened of this.apps.values()) await (await opened).driver.close();
    this.apps.clear();
    await this.readers?.close();
    await this.checkpointer?.close();
    await this.system.close();
  }
}
