import { Errors } from '../errors/index.ts';
import type { Backend } from '../sql/backend.ts';
import type { SystemApp, SystemStore } from '../storage/system-port.ts';
import { SqlAppStore } from '../storage/sql-store.ts';
import { CountMemory } from '../storage/count-memory.ts';
import { AppNamespace } from '../sql/namespace.ts';
import { UnitDriver } from '../storage/unit-driver.ts';
import { SchemaService } from '../schema/service.ts';
import { READER_INDEX_JOB } from '../schema/store.ts';
import type { ClassSchema } from '../schema/types.ts';
import { SessionService, type SessionWrites } from '../auth/sessions.ts';
import { RoleService } from '../auth/roles.ts';
import { WriteConflict, type AppStore } from '../storage/port.ts';
import type { AppHooks, WriteHooks } from '../rest/write/hooks.ts';
import type { WriteTarget } from '../rest/write/pipeline.ts';
import { SqlTokenStore, type TokenStore } from '../storage/sql-tokens.ts';
import { SqlOutboxStore, type OutboxStore } from '../storage/sql-outbox.ts';
import { SqlConfigStore } from '../storage/sql-config.ts';
import { SqlJobStore, type JobStore } from '../storage/sql-jobs.ts';
import { ConfigService } from './config.ts';
import { DEFAULT_SETTINGS, KEY_NAMES, type AppKeys, type AppRecord, type AppSettings } from './types.ts';
import { newHex, newKey } from '../storage/ids.ts';

/** What a request needs of its app: the record, its store and its schema cache. */
export interface AppHandle {
  readonly record: AppRecord;
  readonly store: AppStore;
  readonly schemas: SchemaService;
  readonly sessions: SessionService;
  readonly roles: RoleService;
  /** Single-use tokens of emailed links, and mail kept for the operator (src/mail). */
  readonly tokens: TokenStore;
  readonly outbox: OutboxStore;
  /** The config parameters of spec 2.9, cached. */
  readonly config: ConfigService;
  /** The app's durable job queue (src/queue). */
  readonly jobs: JobStore;
  /** The write pipeline's observers of this app (rest/write/hooks.ts), under those of every app. */
  readonly hooks: WriteHooks;
  /**
   * Runs `fn` with this app as seen from one database transaction, on one connection: its store,
   * schemas, sessions, roles, tokens and config read and write through it. Commits when `fn`
   * resolves, rolls back when it throws. Inside, use only the handle given: on SQLite anything
   * else waits for the transaction to end.
   */
  unitOfWork<T>(fn: (app: AppHandle) => Promise<T>): Promise<T>;
  /**
   * Inside a unit of work: keeps `run` until the unit commits (dropped if it rolls back), so
   * that what observes a write (after-hooks) never sees one that is then undone. Null outside.
   */
  readonly afterCommit: ((run: () => Promise<void>) => void) | null;
}

/**
 * The apps of this installation, read from the system tables and cached per process. Any change
 * is published through the backend so other processes drop their copy.
 */
export class AppRegistry {
  private readonly records = new Map<string, Promise<AppRecord | null>>();
  private readonly handles = new Map<string, Promise<AppHandle>>();
  // The settled values of the two maps above, so the common request finds its app without a
  // promise hop; an entry lives exactly as long as the promise it came from.
  private readonly loadedRecords = new Map<string, AppRecord>();
  private readonly openHandles = new Map<string, AppHandle>();
  /** By app: the classes this process asked reader indexes for, with the schema it had then (`privateRowsOf`). */
  private readonly privateRowsNoted = new Map<string, Map<string, ClassSchema | undefined>>();
  private readonly countMemories = new Map<string, CountMemory>();
  private readonly openers: ((handle: AppHandle) => Promise<void>)[] = [];

  /**
   * `backend` opens the apps' namespaces and carries the invalidation messages; `system` holds the
   * app records. `maxAttemptsOf`: how many attempts a new job of a type gets (its type's own
   * number, or the server's).
   */
  constructor(
    private readonly backend: Backend,
    private readonly system: SystemStore,
    private readonly hooks: AppHooks,
    /** The write pipeline's entry for sessions (rest/write/internal.ts), which src/server.ts hands in. */
    private readonly sessionWrites: (app: WriteTarget) => SessionWrites,
    private readonly maxAttemptsOf: (type: string) => number = () => 8,
    /** How long a large count is remembered (storage/count-memory.ts); 0 remembers none. */
    private readonly countLifetimeMs = 0,
  ) {
    backend.subscribe((message) => {
      if (message.what === 'app') this.forget(message.appId);
      if (message.what === 'schema') void this.handles.get(message.appId)?.then((handle) => handle.schemas.invalidate());
      if (message.what === 'config') void this.handles.get(message.appId)?.then((handle) => handle.config.invalidate());
      if (message.what === 'sessions') void this.handles.get(message.appId)?.then((handle) => handle.sessions.invalidate());
      // A schema change can drop the users or roles relation of _Role, and with it memberships.
      if (message.what === 'roles' || message.what === 'schema') void this.handles.get(message.appId)?.then((handle) => handle.roles.invalidate());
    });
  }

  /**
   * Runs `open` on every app handle as it opens, before any request gets it: a module that keeps
   * per-app state for the write pipeline (webhooks register their observers) has it in place
   * before the first write. A failure fails the opening, which the next request tries again.
   */
  whenOpened(open: (handle: AppHandle) => Promise<void>): void {
    this.openers.push(open);
  }

  find(applicationId: string): Promise<AppRecord | null> {
    let record = this.records.get(applicationId);
    if (!record) {
      const loading = this.load(applicationId);
      record = loading;
      // Only apps that exist are remembered: caching misses would let random ids grow memory.
      loading.then(
        (found) => {
          if (this.records.get(applicationId) !== loading) return;
          if (found) this.loadedRecords.set(applicationId, found);
          else this.records.delete(applicationId);
        },
        () => this.records.delete(applicationId),
      );
      this.records.set(applicationId, record);
    }
    return record;
  }

  /** The app's record when it is cached already: the hot path of every request. */
  findLoaded(applicationId: string): AppRecord | undefined {
    return this.loadedRecords.get(applicationId);
  }

  /** The app's open handle for this very record, when there is one. */
  handleLoaded(record: AppRecord): AppHandle | undefined {
    const handle = this.openHandles.get(record.applicationId);
    return handle?.record === record ? handle : undefined;
  }

  private forget(applicationId: string): void {
    this.records.delete(applicationId);
    this.loadedRecords.delete(applicationId);
  }

  private async load(applicationId: string): Promise<AppRecord | null> {
    // No app id holds NUL (it is never created with one), and PostgreSQL refuses the character
    // in a text parameter: such an id, from a decoded path (/files/%00/…), is no app.
    if (applicationId.includes('\u0000')) return null;
    const found = await this.system.apps.find(applicationId);
    return found ? toRecord(found) : null;
  }

  /** Every app, or those an account owns or collaborates on, in creation order. */
  async list(accountId?: string): Promise<AppRecord[]> {
    return (await this.system.apps.list(accountId)).map(toRecord);
  }

  /**
   * The services of an app over one namespace: the app's own, or that of a unit of work, whose
   * services have caches of their own (what they would cache may be rolled back). `outer` is the
   * app's own schema service, dropped as well when a schema changes inside a unit.
   */
  private services(record: AppRecord, ns: AppNamespace, outer: SchemaService | null, committed: (() => Promise<void>)[] | null = null): AppHandle {
    const publish = (what: 'schema' | 'sessions' | 'roles' | 'config') => () => this.backend.publish({ appId: record.applicationId, what });
    const counts = this.countMemoryOf(record.applicationId);
    const store = new SqlAppStore(ns, undefined, counts, undefined, this.privateRowsOf(record.applicationId));
    const onSchemaChange = outer
      ? async () => {
          outer.invalidate();
          await publish('schema')();
        }
      : publish('schema');
    const schemas = new SchemaService(store.schemas, onSchemaChange);
    const registry = this;
    return {
      record,
      store,
      schemas,
      sessions: new SessionService(store, schemas, publish('sessions'), this.sessionWrites({ store, schemas, hooks: this.hooks.of(record.applicationId) })),
      roles: new RoleService(store, schemas, publish('roles')),
      config: new ConfigService(new SqlConfigStore(ns), publish('config')),
      tokens: new SqlTokenStore(ns),
      outbox: new SqlOutboxStore(ns),
      jobs: new SqlJobStore(ns, (tx) => this.backend.announceJobs(tx, record.applicationId), this.maxAttemptsOf),
      hooks: this.hooks.of(record.applicationId),
      unitOfWork<T>(this: AppHandle, fn: (app: AppHandle) => Promise<T>): Promise<T> {
        // A unit inside a unit: a savepoint on the outer one's connection, with its services.
        if (ns.driver instanceof UnitDriver) return ns.driver.transaction(() => fn(this));
        return (async () => {
          const pending: (() => Promise<void>)[] = [];
          let result: T;
          let unit: UnitDriver | null = null;
          try {
            result = await ns.driver.transaction((tx) => fn(registry.services(this.record, new AppNamespace((unit = new UnitDriver(tx, ns.driver)), ns.schema), outer ?? schemas, pending)));
          } catch (error) {
            throw ns.driver.conflict(error) ? new WriteConflict() : error;
          } finally {
            (unit as UnitDriver | null)?.end();
            // Committed or rolled back: counts taken while the unit was open are forgotten.
            counts.written();
          }
          for (const run of pending) await run();
          return result;
        })();
      },
      afterCommit: committed && ((run) => committed.push(run)),
    };
  }

  /**
   * Told of each write leaving a row "*" may not read: such a write to a class whose schema is not
   * marked for it (schema/types.ts, `privateRows`) queues the job making its reader indexes, once
   * per class and schema as this process has it cached (a class dropped and made again is asked
   * for anew); the job decides afresh.
   */
  private privateRowsOf(applicationId: string): (className: string) => void {
    let noted = this.privateRowsNoted.get(applicationId);
    if (!noted) this.privateRowsNoted.set(applicationId, (noted = new Map()));
    const asked = noted;
    return (className) => {
      const app = this.openHandles.get(applicationId);
      const schema = app?.schemas.loaded(className);
      if (!app || schema?.privateRows || (asked.has(className) && asked.get(className) === schema)) return;
      asked.set(className, schema);
      const { step } = app.jobs.enqueueStep({ type: READER_INDEX_JOB, payload: { className } });
      app.store.runSteps([step]).catch(() => asked.delete(className));
    };
  }

  /** The app's remembered counts, shared by its store and the stores of its units of work. */
  private countMemoryOf(applicationId: string): CountMemory {
    let memory = this.countMemories.get(applicationId);
    if (!memory) this.countMemories.set(applicationId, (memory = new CountMemory(this.countLifetimeMs)));
    return memory;
  }

  /** Up to `limit` of the apps this process has open, without opening any. */
  openedHandles(limit: number): AppHandle[] {
    const found: AppHandle[] = [];
    for (const handle of this.openHandles.values()) {
      if (found.length >= limit) break;
      found.push(handle);
    }
    return found;
  }

  /** The store and schema cache of an app, opened (and migrated) on first use. */
  handle(record: AppRecord): Promise<AppHandle> {
    let handle = this.handles.get(record.applicationId);
    if (!handle) {
      handle = this.backend.openApp(record.namespace).then(async (ns) => {
        const opened = this.services(record, ns, null);
        for (const open of this.openers) await open(opened);
        this.openHandles.set(record.applicationId, opened);
        return opened;
      });
      handle.catch(() => this.handles.delete(record.applicationId));
      this.handles.set(record.applicationId, handle);
    }
    return handle.then((h) => {
      if (h.record === record) return h;
      const current = { ...h, record };
      this.openHandles.set(record.applicationId, current);
      return current;
    });
  }

  async create(input: { appName: string; applicationId?: string; ownerId: string | null; keys?: Partial<AppKeys>; settings?: Partial<AppSettings> }): Promise<AppRecord> {
    const now = new Date().toISOString();
    const keys = Object.fromEntries(KEY_NAMES.map((name) => [name, input.keys?.[name] ?? newKey()])) as AppKeys;
    const record: AppRecord = {
      applicationId: input.applicationId ?? newKey(),
      appName: input.appName,
      namespace: newHex(8),
      ownerId: input.ownerId,
      keys,
      settings: { ...DEFAULT_SETTINGS, ...input.settings },
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.system.apps.insert(record);
    } catch (error) {
      if (await this.load(record.applicationId)) throw Errors.duplicateValue(`An app with the id ${record.applicationId} exists already.`);
      throw error;
    }
    this.forget(record.applicationId);
    await this.backend.openApp(record.namespace);
    return record;
  }

  async update(applicationId: string, change: { appName?: string; keys?: Partial<AppKeys>; settings?: Partial<AppSettings> }): Promise<AppRecord> {
    const current = await this.load(applicationId);
    if (!current) throw Errors.objectNotFound(`No app with id ${applicationId}.`);
    const next: AppRecord = {
      ...current,
      appName: change.appName ?? current.appName,
      keys: { ...current.keys, ...stripUndefined(change.keys ?? {}) },
      settings: { ...current.settings, ...stripUndefined(change.settings ?? {}) },
      updatedAt: new Date().toISOString(),
    };
    await this.system.apps.update(applicationId, next);
    this.forget(applicationId);
    await this.backend.publish({ appId: applicationId, what: 'app' });
    return next;
  }

  count(): Promise<number> {
    return this.system.apps.count();
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** A stored app as the rest of Basalt sees it: settings never written take their defaults. */
function toRecord(app: SystemApp): AppRecord {
  return { ...app, keys: app.keys as AppKeys, settings: { ...DEFAULT_SETTINGS, ...app.settings } };
}
