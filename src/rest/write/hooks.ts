import type { AppStore, WriteStep } from '../../storage/port.ts';
import { RequestTriggers } from '../request-triggers.ts';

/** The named points of the write pipeline (pipeline.ts) where observers attach. */
export type HookPoint = 'beforeSave' | 'afterSave' | 'beforeDelete' | 'afterDelete';

/**
 * What an observer receives: the shape of Parse Server's trigger request, which cloud code will
 * receive too. A before-observer may change `object` (its changes are written) or throw to refuse
 * the write; an after-observer sees what was written.
 */
export interface HookRequest {
  readonly triggerName: HookPoint;
  readonly className: string;
  /** The object after the planned change (before a delete: the object as it is). */
  object: Record<string, unknown>;
  /** The object as read before the change; null on a create. */
  readonly original: Record<string, unknown> | null;
  /** The caller's user id; null without a session (and for internal writes). */
  readonly user: string | null;
  /** The master key, or a write Basalt makes on its own behalf (lockout counters, verification flags). */
  readonly master: boolean;
  readonly installationId: string | null;
  /** Shared by the before- and after-observers of one write. */
  readonly context: Record<string, unknown>;
  /**
   * The store the write runs on (a unit of work's inside a transactional batch): what an observer
   * reads, it reads here. Not enumerable, so copies of the request leave it out.
   */
  readonly store: AppStore;
  /**
   * The request the write came from, for observers that hand it on (cloud code's request.user
   * token, ip, headers); null for Basalt's own writes. Not enumerable, like `store`.
   */
  readonly via: (() => CallerDetails) | null;
}

/** What a write's request adds to its caller, read only by observers that need it. */
export interface CallerDetails {
  readonly sessionToken: string | null;
  readonly ip: string;
  readonly headers: Readonly<Record<string, string>>;
}

export type HookObserver = (request: HookRequest) => void | Promise<void>;

/** The points whose work may be queued: it is stored with the write, in its transaction. */
export type QueuedPoint = 'afterSave' | 'afterDelete';

/**
 * An after-observer whose work outlives the request: given the request as the after-observers
 * would see it, it returns a write (a queued job) that the pipeline runs in the write's own
 * transaction, so the work exists if and only if the write does. It must not await: on an update
 * it runs under the row lock.
 */
export type QueuedObserver = (request: HookRequest) => WriteStep;

/** Any class: an observer registered for every class. */
export const ANY_CLASS = '*';

const NONE: readonly HookObserver[] = Object.freeze([]);
const NONE_QUEUED: readonly QueuedObserver[] = Object.freeze([]);

/**
 * The observers of the write pipeline, by point and class: cloud code triggers, webhooks and
 * realtime events register here and nowhere else (STYLE.md 11). Each app has its own registry
 * (`AppHooks`), so an app without observers never pays for another app's; observers of every app
 * (`--test-write-observer`) live in the shared parent and run first.
 */
export class WriteHooks {
  private readonly observers = new Map<string, HookObserver[]>();
  private readonly queued = new Map<string, QueuedObserver[]>();
  /** The app's triggers of logins, logouts and queries, which are no writes but are the app's hooks too. */
  readonly requests = new RequestTriggers();

  constructor(private readonly shared: WriteHooks | null = null) {}

  on(point: HookPoint, className: string, observer: HookObserver): void {
    const key = keyOf(point, className);
    this.observers.set(key, [...(this.observers.get(key) ?? []), observer]);
  }

  /** Removes one observer given to `on` (webhooks re-register when their definitions change). */
  off(point: HookPoint, className: string, observer: HookObserver): void {
    remove(this.observers, keyOf(point, className), observer);
  }

  /** Adds a queued after-observer (see QueuedObserver); the shared parent holds none. */
  onQueued(point: QueuedPoint, className: string, observer: QueuedObserver): void {
    const key = keyOf(point, className);
    this.queued.set(key, [...(this.queued.get(key) ?? []), observer]);
  }

  offQueued(point: QueuedPoint, className: string, observer: QueuedObserver): void {
    remove(this.queued, keyOf(point, className), observer);
  }

  /** The queued after-observers of a point for a class; none for _Session, as for every observer. */
  queuedOf(point: QueuedPoint, className: string): readonly QueuedObserver[] {
    if (this.queued.size === 0 || className === '_Session') return NONE_QUEUED;
    return this.queued.get(keyOf(point, className)) ?? NONE_QUEUED;
  }

  /** Removes every observer this registry holds (not the shared parent's): cloud code reloads this way. */
  clear(): void {
    this.observers.clear();
    this.queued.clear();
  }

  /** The observers of a point for a class: the shared parent's first, then those of every class, then the class's own. */
  observersOf(point: HookPoint, className: string): readonly HookObserver[] {
    // Spec 2.7: the Session class has no triggers. This is the one place that says so.
    if (className === '_Session') return NONE;
    const mine = this.ownObserversOf(point, className);
    if (!this.shared) return mine;
    const shared = this.shared.observersOf(point, className);
    if (shared.length === 0) return mine;
    return mine.length === 0 ? shared : [...shared, ...mine];
  }

  private ownObserversOf(point: HookPoint, className: string): readonly HookObserver[] {
    if (this.observers.size === 0) return NONE;
    const any = this.observers.get(keyOf(point, ANY_CLASS));
    const own = this.observers.get(keyOf(point, className));
    if (!any) return own ?? NONE;
    return own ? [...any, ...own] : any;
  }
}

/** One observer registry per app, each under the process's shared one. */
export class AppHooks {
  private readonly byApp = new Map<string, WriteHooks>();

  constructor(readonly shared: WriteHooks = new WriteHooks()) {}

  /** The registry of an app, made on first use. */
  of(applicationId: string): WriteHooks {
    let hooks = this.byApp.get(applicationId);
    if (!hooks) {
      hooks = new WriteHooks(this.shared);
      this.byApp.set(applicationId, hooks);
    }
    return hooks;
  }
}

/** Lists are replaced, never changed in place: a write running the old list keeps it whole. */
function remove<T>(map: Map<string, T[]>, key: string, item: T): void {
  const list = map.get(key);
  if (!list) return;
  const kept = list.filter((one) => one !== item);
  if (kept.length === 0) map.delete(key);
  else map.set(key, kept);
}

function keyOf(point: HookPoint, className: string): string {
  return `${point}\u0000${className}`;
}
