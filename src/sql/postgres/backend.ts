import { PostgresDriver } from './driver.ts';
import { AppNamespace } from '../namespace.ts';
import type { Backend, Invalidation, PoolUse } from '../backend.ts';
import { applyMigrations } from '../migrations.ts';
import { APP_MIGRATIONS, SYSTEM_MIGRATIONS } from './migrations.ts';
import { ident } from '../params.ts';
import type { SqlExecutor } from '../driver.ts';

const SYSTEM_SCHEMA = 'basalt';
const CHANNEL = 'basalt_invalidate';
/** Job announcements: the payload is the application id (see src/queue). */
const JOBS_CHANNEL = 'basalt_jobs';

/** PostgreSQL: system tables in schema `basalt`, each app in a schema of its own. */
export class PostgresBackend implements Backend {
  readonly kind = 'postgres' as const;
  readonly sharedByProcesses = true;
  private readonly jobHandlers: ((appId: string) => void)[] = [];
  private readonly apps = new Map<string, Promise<AppNamespace>>();
  private readonly handlers: ((message: Invalidation) => void)[] = [];
  private stopListening: (() => Promise<void>) | null = null;

  private constructor(readonly system: PostgresDriver) {}

  /** `statementTimeout`: ms a statement of the pools may run (PostgresDriver); 0 for no limit. */
  static async open(url: string, poolSize: number, statementTimeout = 0): Promise<PostgresBackend> {
    const backend = new PostgresBackend(new PostgresDriver(url, poolSize, statementTimeout));
    await backend.system.transaction(async (tx) => {
      // Migrations may rewrite big tables: no time limit.
      await tx.run(tx.dialect.unlimitedStatementsSql()!);
      await tx.run(`SELECT pg_advisory_xact_lock(hashtext('basalt:migrations'))`);
      await tx.run(`CREATE SCHEMA IF NOT EXISTS ${ident(SYSTEM_SCHEMA)}`);
      await applyMigrations(tx, SYSTEM_MIGRATIONS, (name) => backend.systemTable(name), backend.systemTable('_migrations'));
    });
    backend.stopListening = await backend.system.listen({
      [CHANNEL]: (payload) => {
        try {
          backend.deliver(JSON.parse(payload) as Invalidation);
        } catch {
          // A malformed notification is not ours to act on.
        }
      },
      [JOBS_CHANNEL]: (appId) => {
        for (const handler of backend.jobHandlers) handler(appId);
      },
    });
    return backend;
  }

  systemTable(name: string): string {
    return `${ident(SYSTEM_SCHEMA)}.${ident(name)}`;
  }

  openApp(namespace: string): Promise<AppNamespace> {
    let opened = this.apps.get(namespace);
    if (!opened) {
      opened = (async () => {
        const ns = new AppNamespace(this.system, `app_${namespace}`);
        await this.system.transaction(async (tx) => {
          await tx.run(tx.dialect.unlimitedStatementsSql()!);
          await tx.run(`SELECT pg_advisory_xact_lock(hashtext(${tx.dialect.placeholder(1)}))`, [`basalt:app:${namespace}`]);
          await tx.run(`CREATE SCHEMA IF NOT EXISTS ${ident(ns.schema!)}`);
          await applyMigrations(tx, APP_MIGRATIONS, (name) => ns.table(name), ns.table('_MIGRATIONS'));
        });
        return ns;
      })();
      opened.catch(() => this.apps.delete(namespace));
      this.apps.set(namespace, opened);
    }
    return opened;
  }

  async dropApp(namespace: string): Promise<void> {
    this.apps.delete(namespace);
    await this.system.run(`DROP SCHEMA IF EXISTS ${ident(`app_${namespace}`)} CASCADE`);
  }

  async publish(message: Invalidation): Promise<void> {
    this.deliver(message);
    await this.system.run(`SELECT pg_notify($1, $2)`, [CHANNEL, JSON.stringify(message)]);
  }

  subscribe(handler: (message: Invalidation) => void): void {
    this.handlers.push(handler);
  }

  async announceJobs(tx: SqlExecutor | null, appId: string): Promise<void> {
    // Inside the enqueuing transaction, PostgreSQL holds the notification until the commit and
    // drops it on a rollback; identical ones of one transaction are sent once.
    await (tx ?? this.system).run(`SELECT pg_notify($1, $2)`, [JOBS_CHANNEL, appId]);
  }

  onJobs(handler: (appId: string) => void): void {
    this.jobHandlers.push(handler);
  }

  private deliver(message: Invalidation): void {
    for (const handler of this.handlers) handler(message);
  }

  exclusive<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return this.system.withSessionLock(`basalt:${name}`, fn);
  }

  exclusiveIfFree(name: string, fn: () => Promise<void>): Promise<boolean> {
    return this.system.withSessionLockIfFree(`basalt:${name}`, fn);
  }

  poolUse(): readonly PoolUse[] {
    return this.system.poolUse();
  }

  openAppCount(): number {
    return this.apps.size;
  }

  async ping(): Promise<void> {
    await this.system.all('SELECT 1');
  }

  async close(): Promise<void> {
    await this.stopListening?.();
    await this.system.close();
  }
}
