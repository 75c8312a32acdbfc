import type { HookObserver, HookPoint, HookRequest, WriteHooks } from '../rest/write/hooks.ts';
import type { RequestPoint } from '../rest/request-triggers.ts';
import type { AppWorker } from './host.ts';
import type { Registered, TriggerRequestData, TriggerResult } from './protocol.ts';

const WRITE_POINTS: ReadonlySet<string> = new Set<HookPoint>(['beforeSave', 'afterSave', 'beforeDelete', 'afterDelete']);
const REQUEST_POINTS: ReadonlySet<string> = new Set<RequestPoint>([
  'beforeLogin', 'afterLogin', 'afterLogout', 'beforeFind', 'afterFind',
  'beforeSaveFile', 'afterSaveFile', 'beforeDeleteFile', 'afterDeleteFile',
]);
const FIXED = ['objectId', 'createdAt', 'updatedAt'];

/**
 * Attaches an app's save and delete triggers to its write pipeline observers (rest/write/hooks.ts).
 * One observer per point and class, added the first time the code defines that trigger and kept
 * across reloads: it asks whichever worker is current, and a trigger a reload dropped does nothing.
 * The triggers of logins, logouts, queries and files attach to the app's request triggers
 * (rest/request-triggers.ts) the same way.
 */
export class TriggerAttachment {
  private readonly attached = new Set<string>();

  /** `hookWins`: a trigger hook (src/webhooks) of the same class and name runs instead of the code's, as in Parse Server. */
  constructor(
    private readonly hooks: WriteHooks,
    private readonly worker: AppWorker,
    private readonly hookWins: (className: string, triggerName: string) => boolean = () => false,
  ) {}

  attach(registered: Registered): void {
    for (const { triggerName, className } of registered.triggers) {
      const write = WRITE_POINTS.has(triggerName);
      if (!write && !REQUEST_POINTS.has(triggerName)) continue;
      const key = `${triggerName}.${className}`;
      if (this.attached.has(key)) continue;
      this.attached.add(key);
      if (write) this.hooks.on(triggerName as HookPoint, className, this.observer(triggerName as HookPoint));
      else this.hooks.requests.on(triggerName as RequestPoint, className, (call) => this.worker.call({ t: 'request', name: triggerName, request: call }));
    }
  }

  private observer(point: HookPoint): HookObserver {
    return async (request: HookRequest) => {
      if (this.hookWins(request.className, point)) return;
      const result = (await this.worker.call({ t: 'trigger', name: point, request: dataOf(point, request) })) as TriggerResult;
      // Carried to the after trigger of the same write (Parse Server's request.context).
      Object.assign(request.context, result.context);
      if (!result.changes) return;
      for (const [key, value] of Object.entries(result.changes)) {
        if (isDelete(value)) delete request.object[key];
        else request.object[key] = value;
      }
    };
  }
}

function dataOf(point: HookPoint, request: HookRequest): TriggerRequestData {
  let object = request.object;
  // A create's beforeSave sees a new object: no id yet, as in Parse Server (`object.isNew()`).
  if (point === 'beforeSave' && request.original === null) {
    object = { ...object };
    for (const key of FIXED) delete object[key];
  }
  const via = request.via?.();
  return { className: request.className, object, original: request.original, user: request.user, master: request.master, installationId: request.installationId, context: request.context, ...(via ?? {}) };
}

function isDelete(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { __op?: unknown }).__op === 'Delete';
}
