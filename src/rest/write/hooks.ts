import type { AppStore } from '../../storage/port.ts';

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
}

export type HookObserver = (request: HookRequest) => void | Promise<void>;

/** Any class: an observer registered for every class. */
export const ANY_CLASS = '*';

const NONE: readonly HookObserver[] = Object.freeze([]);

/**
 * The observers of the write pipeline, by point and class: cloud code triggers, webhooks and
 * realtime events register here and nowhere else (STYLE.md 11). Each app has its own registry
 * (`AppHooks`), so an app without observers never pays for another app's; observers of every app
 * (`--test-write-observer`) live in the shared parent and run first.
 */
export class WriteHooks {
  private readonly observers = new Map<string, HookObserver[]>();

  constructor(private readonly shared: WriteHooks | null = null) {}

  on(point: HookPoint, className: string, observer: HookObserver): void {
    const key = keyOf(point, className);
    const list = this.observers.get(key) ?? [];
    list.push(observer);
    this.observers.set(key, list);
  }

  /** Removes every observer this registry holds (not the shared parent's): cloud code reloads this way. */
  clear(): void {
    this.observers.clear();
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

function keyOf(point: HookPoint, className: string): string {
  return `${point}\u0000${className}`;
}
