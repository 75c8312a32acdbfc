import { Errors, isApiError } from '../../errors/index.ts';
import type { Acl } from '../../encoding/acl.ts';
import type { SchemaService } from '../../schema/service.ts';
import type { WhereNode } from '../../query/ast.ts';
import type { InPlaceChange } from '../../query/in-place.ts';
import type { AppStore, ObjectWrite, Principals, StoredObject } from '../../storage/port.ts';
import { applyPlan, planWrite, type WritePlan } from '../write-plan.ts';
import type { RequestContext } from '../context.ts';
import { plainHeaders } from '../plain-headers.ts';
import type { CallerDetails, HookObserver, HookPoint, HookRequest, QueuedObserver, WriteHooks } from './hooks.ts';

/**
 * The one write pipeline (DESIGN.md "Writes"): every create, update and delete of Basalt, from
 * any endpoint or from Basalt itself, runs these steps in this order.
 *
 * 1. decode       the body is checked and read (write-plan.ts `planWrite`, or a class's own reader);
 * 2. plan         the change to make, as a function of the stored object (operators included);
 * 3. permissions  class-level permissions, restricted sessions, key privileges; the ACL again under the lock;
 * 4. beforeHooks  observers may await I/O, change fields or refuse; no row lock is held;
 * 5. apply        one unit of work: the row is locked, the plan re-applied to it (operators stay
 *                 atomic), the observers' changes laid over it;
 * 6. afterHooks   observers see what was written; their failures do not undo it;
 * 7. enqueue      the write's `steps` (storage/port.ts WriteStep: a queued job such as a mail, a
 *                 link token), and those of the queued after-observers (hooks.ts QueuedObserver:
 *                 webhook deliveries), run by the store inside the write's own transaction.
 *
 * Steps 1–3 belong to the endpoint and its class (objects.ts for any class, users/, roles.ts,
 * installations.ts, sessions.ts), which hand the pipeline a planned write; steps 4–7 are here.
 */
export const WRITE_STEPS = ['decode', 'plan', 'permissions', 'beforeHooks', 'apply', 'afterHooks', 'enqueue'] as const;
export type PipelineStep = (typeof WRITE_STEPS)[number];

/** What the pipeline needs of an app: its store (or the store of a unit of work), schemas and observers. */
export interface WriteTarget {
  readonly store: AppStore;
  readonly schemas: SchemaService;
  readonly hooks: WriteHooks;
  /** Within a unit of work (a transactional batch): keeps the after-hooks until it commits. */
  readonly afterCommit?: ((run: () => Promise<void>) => void) | null;
}

/** Who writes, as the observers see it. */
export interface Caller {
  readonly user: string | null;
  readonly master: boolean;
  readonly installationId: string | null;
  /** The request's token, address and headers, computed only when an observer asks. */
  readonly via?: () => CallerDetails;
}

/** A write Basalt makes on its own behalf (sessions, lockout counters, verification flags). */
export const INTERNAL: Caller = Object.freeze({ user: null, master: true, installationId: null });

export function callerOf(ctx: RequestContext): Caller {
  return {
    user: ctx.auth.userId,
    master: ctx.auth.isMaster,
    installationId: ctx.auth.installationId,
    via: () => ({ sessionToken: ctx.auth.session?.token ?? null, ip: ctx.clientIp, headers: plainHeaders(ctx.headers) }),
  };
}

/**
 * Receives the fields the before-hooks set, changed or removed, as a write body (a removed field
 * is `{"__op": "Delete"}`), once the write is made: Parse Server answers them beside the write's
 * own answer, so an SDK's object shows what a trigger did without a fetch.
 */
export type EditsListener = (edits: Readonly<Record<string, unknown>>) => void;

export interface PlannedCreate {
  readonly className: string;
  readonly write: ObjectWrite;
  readonly edited?: EditsListener;
}

export interface PlannedUpdate {
  readonly className: string;
  readonly objectId: string;
  /** Who may write the row (its write ACL); null: anyone (master key, internal writes). */
  readonly write: Principals;
  /**
   * The change as a function of the stored object: run on the object as read for the
   * before-observers, then again on the locked row, where operators such as Increment apply to
   * the value as it is at that moment. It may throw to refuse (a class-level user field).
   */
  readonly change: (current: StoredObject) => ObjectWrite;
  readonly edited?: EditsListener;
}

export interface PlannedDelete {
  readonly className: string;
  readonly objectId: string;
  readonly write: Principals;
  /** The row must also match this (a class-level user field). */
  readonly where?: WhereNode;
}

/** Creates an object; the store's own errors (a unique index) pass through. */
export async function writeCreate(app: WriteTarget, caller: Caller, planned: PlannedCreate): Promise<StoredObject> {
  const { className } = planned;
  const before = app.hooks.observersOf('beforeSave', className);
  const after = app.hooks.observersOf('afterSave', className);
  const queued = app.hooks.queuedOf('afterSave', className);
  // The common create: nothing observes the class; the store's insert is steps 5 and 7.
  if (before.length === 0 && after.length === 0 && queued.length === 0) {
    await app.store.insert(className, planned.write);
    return planned.write.object;
  }
  const context: Record<string, unknown> = {};
  let write = planned.write;
  let edits: Record<string, unknown> | null = null;
  if (before.length > 0) {
    const changed = await beforeHooks(app, before, requestOf(app, 'beforeSave', className, caller, write.object, null, context));
    if (changed) {
      write = withOverlay(changed.overlay, write);
      edits = changed.edits;
    }
  }
  if (queued.length > 0) write = withQueued(write, queued, requestOf(app, 'afterSave', className, caller, write.object, null, context));
  await app.store.insert(className, write);
  if (edits) planned.edited?.(edits);
  if (after.length > 0) await afterHooks(app, after, requestOf(app, 'afterSave', className, caller, write.object, null, context));
  return write.object;
}

/** Updates an object; null when it is missing or the caller may not write it. */
export async function writeUpdate(app: WriteTarget, caller: Caller, planned: PlannedUpdate): Promise<StoredObject | null> {
  const { className, objectId, write, change } = planned;
  const before = app.hooks.observersOf('beforeSave', className);
  const after = app.hooks.observersOf('afterSave', className);
  const queued = app.hooks.queuedOf('afterSave', className);
  if (before.length === 0 && after.length === 0 && queued.length === 0) return app.store.update(className, objectId, write, change);
  const context: Record<string, unknown> = {};
  // Only observed classes pay for the read before the lock.
  const original = await app.store.get(className, objectId, null);
  if (!original || !mayWrite(original, write)) return null;
  let mutate = change;
  let edits: Record<string, unknown> | null = null;
  if (before.length > 0) {
    const next = change(original);
    const changed = await beforeHooks(app, before, requestOf(app, 'beforeSave', className, caller, next.object, original, context));
    if (changed) {
      mutate = (current) => withOverlay(changed.overlay, change(current));
      edits = changed.edits;
    }
  }
  if (queued.length > 0) {
    const planned = mutate;
    // Under the row lock: the queued work sees the object exactly as it is written.
    mutate = (current) => {
      const next = planned(current);
      return withQueued(next, queued, requestOf(app, 'afterSave', className, caller, next.object, original, context));
    };
  }
  const updated = await app.store.update(className, objectId, write, mutate);
  if (updated && edits) planned.edited?.(edits);
  if (updated && after.length > 0) await afterHooks(app, after, requestOf(app, 'afterSave', className, caller, updated, original, context));
  return updated;
}

/**
 * Steps 5–7 as one statement, where nothing observes the class (no before-hook needs the row,
 * no after-hook or queued work the object written): the incremented fields' new values, or
 * null when the change was not made, for the caller to take writeUpdate instead. Relations,
 * steps and hooks have no place here; query/in-place.ts says what the change may hold.
 */
export async function writeInPlace(app: WriteTarget, planned: InPlaceUpdate): Promise<Record<string, unknown> | null> {
  const { className } = planned;
  if (app.hooks.observersOf('beforeSave', className).length > 0 || app.hooks.observersOf('afterSave', className).length > 0 || app.hooks.queuedOf('afterSave', className).length > 0) return null;
  return app.store.updateInPlace(className, planned.objectId, planned.write, planned.change);
}

export interface InPlaceUpdate {
  readonly className: string;
  readonly objectId: string;
  readonly write: Principals;
  readonly change: InPlaceChange;
}

/** Deletes an object (its relation rows with it); false when it is missing or not the caller's to delete. */
export async function writeDelete(app: WriteTarget, caller: Caller, planned: PlannedDelete): Promise<boolean> {
  const { className, objectId, write } = planned;
  const before = app.hooks.observersOf('beforeDelete', className);
  const after = app.hooks.observersOf('afterDelete', className);
  const queued = app.hooks.queuedOf('afterDelete', className);
  const context: Record<string, unknown> = {};
  let original: StoredObject | null = null;
  if (before.length > 0 || after.length > 0 || queued.length > 0) {
    original = await app.store.get(className, objectId, null);
    if (!original || !mayWrite(original, write)) return false;
  }
  if (before.length > 0) await beforeHooks(app, before, requestOf(app, 'beforeDelete', className, caller, original!, original, context));
  let deleted: boolean;
  if (queued.length === 0) deleted = await app.store.delete(className, objectId, write, planned.where);
  else {
    // The store's delete takes no steps: the delete and its queued work share one unit of work instead.
    const steps = queued.map((observer) => observer(requestOf(app, 'afterDelete', className, caller, original!, original, context)));
    deleted = await app.store.unitOfWork(async (unit) => {
      const gone = await unit.delete(className, objectId, write, planned.where);
      if (gone) await unit.runSteps(steps);
      return gone;
    });
  }
  if (deleted && after.length > 0) await afterHooks(app, after, requestOf(app, 'afterDelete', className, caller, original!, original, context));
  return deleted;
}

function mayWrite(object: StoredObject, write: Principals): boolean {
  return write === null || object.wperm.some((principal) => write.includes(principal));
}

/**
 * Step 4. The observers run one after another on one request; what they changed in `object`
 * becomes a plan of its own (checked as a client's body would be) laid over the planned change.
 * A plain error refuses the write with 141, as Parse Server answers a failed trigger; an API
 * error keeps its own code.
 */
async function beforeHooks(app: WriteTarget, observers: readonly HookObserver[], request: HookRequest): Promise<{ overlay: WritePlan; edits: Record<string, unknown> } | null> {
  const seen = structuredClone(request.object);
  for (const observer of observers) {
    try {
      await observer(request);
    } catch (error) {
      if (isApiError(error)) throw error;
      throw Errors.scriptFailed(error instanceof Error ? error.message : String(error));
    }
  }
  if (request.triggerName === 'beforeDelete') return null;
  const edits = editsOf(seen, request.object);
  if (!edits) return null;
  const overlay = planWrite(edits);
  await app.schemas.ensureFields(request.className, overlay.types, { mayCreateClass: false });
  return { overlay, edits };
}

/**
 * Step 6: the write stands whatever an observer does. Inside a unit of work the observers run
 * once it commits: a later command of a transactional batch may still undo this write.
 */
async function afterHooks(app: WriteTarget, observers: readonly HookObserver[], request: HookRequest): Promise<void> {
  if (app.afterCommit) {
    app.afterCommit(() => runAfter(observers, request));
    return;
  }
  await runAfter(observers, request);
}

async function runAfter(observers: readonly HookObserver[], request: HookRequest): Promise<void> {
  for (const observer of observers) {
    try {
      await observer(request);
    } catch {
      // Parse Server logs and ignores an after-trigger's failure; the answer is the write's.
    }
  }
}

function requestOf(app: WriteTarget, triggerName: HookPoint, className: string, caller: Caller, object: StoredObject, original: StoredObject | null, context: Record<string, unknown>): HookRequest {
  const request = { triggerName, className, object: view(object), original: original && view(original), user: caller.user, master: caller.master, installationId: caller.installationId, context };
  // Not enumerable: a request is copied (JSON, structuredClone to a worker) without the store.
  Object.defineProperty(request, 'via', { value: caller.via ?? null, enumerable: false });
  return Object.defineProperty(request, 'store', { value: app.store, enumerable: false }) as HookRequest;
}

/** Step 7 for the queued after-observers: their writes join the write's own steps. */
function withQueued(write: ObjectWrite, queued: readonly QueuedObserver[], request: HookRequest): ObjectWrite {
  return { ...write, steps: [...(write.steps ?? []), ...queued.map((observer) => observer(request))] };
}

/** Fields an observer sees and may change: not the built-in columns, not the server's own `_` fields. */
const FIXED = new Set(['objectId', 'createdAt', 'updatedAt', 'ACL']);

/** An object as observers see it: the built-in columns and the fields, without the server's own (`_hashed_password`…). */
function view(object: StoredObject): Record<string, unknown> {
  const out: Record<string, unknown> = { objectId: object.objectId, createdAt: object.createdAt, updatedAt: object.updatedAt };
  for (const [key, value] of Object.entries(object.data)) if (!key.startsWith('_')) out[key] = structuredClone(value);
  return out;
}

/** The fields an observer set, changed or removed, as a write body; null for none. */
function editsOf(seen: Record<string, unknown>, now: Record<string, unknown>): Record<string, unknown> | null {
  const edits: Record<string, unknown> = {};
  let any = false;
  for (const key of Object.keys(now)) {
    if (FIXED.has(key) || key.startsWith('_')) continue;
    if (Object.hasOwn(seen, key) && JSON.stringify(seen[key]) === JSON.stringify(now[key])) continue;
    edits[key] = now[key] === undefined ? { __op: 'Delete' } : now[key];
    any = true;
  }
  for (const key of Object.keys(seen)) {
    if (FIXED.has(key) || key.startsWith('_') || Object.hasOwn(now, key)) continue;
    edits[key] = { __op: 'Delete' };
    any = true;
  }
  return any ? edits : null;
}

function withOverlay(overlay: WritePlan, write: ObjectWrite): ObjectWrite {
  const { object } = write;
  const permissions = { acl: (object.data.ACL as Acl | undefined) ?? null, rperm: object.rperm, wperm: object.wperm };
  const applied = applyPlan(overlay, object.data, permissions);
  // The write's own steps (queued jobs, tokens) stay with it.
  return { ...write, object: { ...object, data: applied.data }, relations: [...write.relations, ...applied.relations] };
}
