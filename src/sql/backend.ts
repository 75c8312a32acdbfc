import type { SqlDriver, SqlExecutor } from './driver.ts';
import type { AppNamespace } from './namespace.ts';

/** A message that tells every server process to drop a cached value. */
export interface Invalidation {
  readonly appId: string;
  readonly what: 'app' | 'schema' | 'config' | 'sessions' | 'roles' | 'hooks';
}

/**
 * Where the databases are: the system tables, and one namespace per app. The SQLite backend keeps
 * files under the data directory; the PostgreSQL backend keeps schemas in one database and
 * spreads cache invalidations to other processes with LISTEN/NOTIFY.
 */
export interface Backend {
  readonly kind: 'sqlite' | 'postgres';
  readonly system: SqlDriver;
  systemTable(name: string): string;
  /** Opens (creating and migrating when needed) an app's namespace. */
  openApp(namespace: string): Promise<AppNamespace>;
  dropApp(namespace: string): Promise<void>;
  publish(message: Invalidation): Promise<void>;
  subscribe(handler: (message: Invalidation) => void): void;
  /**
   * Tells the job workers of every process that this app has jobs to take. Given the enqueuing
   * transaction, the news goes out when it commits (and not at all if it rolls back).
   */
  announceJobs(tx: SqlExecutor | null, appId: string): Promise<void>;
  onJobs(handler: (appId: string) => void): void;
  /** Whether several server processes may use this database at once (PostgreSQL), or one owns it (SQLite). */
  readonly sharedByProcesses: boolean;
  /** Runs fn while holding a lock that every process sharing this database respects. */
  exclusive<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** Runs fn under the same kind of lock if no other holder has it now; false, without running it, if one has. */
  exclusiveIfFree(name: string, fn: () => Promise<void>): Promise<boolean>;
  ping(): Promise<void>;
  /** The connection pools in use now (PostgreSQL); none for SQLite, whose files are opened once. */
  poolUse(): readonly PoolUse[];
  /** App databases (SQLite files) or namespaces (PostgreSQL schemas) this process has open. */
  openAppCount(): number;
  close(): Promise<void>;
}

/** One pool's connections, read for GET /metrics. */
export interface PoolUse {
  readonly pool: string;
  readonly total: number;
  readonly idle: number;
  /** Callers queued for a connection. */
  readonly waiting: number;
}
