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
 * realtime events register here and nowhere else (STYLE.md 11).
 */
export class WriteHooks {
  private readonly observers = new Map<string, HookObserver[]>();

  on(point: HookPoint, className: string, observer: HookObserver): void {
    const key = keyOf(point, className);
    const list = this.observers.get(key) ?? [];
    list.push(observer);
    this.observers.set(key, list);
  }

  /** The observers of a point for a class, those of every class first. */
  observersOf(point: HookPoint, className: string): readonly HookObserver[] {
    // Spec 2.7: the Session class has no triggers. This is the one place that says so.
    if (className === '_Session' || this.observers.size === 0) return NONE;
    const any = this.observers.get(keyOf(point, ANY_CLASS));
    const own = this.observers.get(keyOf(point, className));
    if (!any) return own ?? NONE;
    return own ? [...any, ...own] : any;
  }
}

function keyOf(point: HookPoint, className: string): string {
  return `${point}\u0000${className}`;
}
