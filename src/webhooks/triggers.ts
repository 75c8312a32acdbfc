import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import type { JobStore } from '../storage/sql-jobs.ts';
import type { HookObserver, HookRequest, QueuedObserver } from '../rest/write/hooks.ts';
import { callWebhook } from './caller.ts';
import { userJson, withClassName, type QueuedTriggerCall, type TriggerCallBody } from './payloads.ts';

/** The job type that delivers queued after-hooks (src/queue/jobs/webhook.ts). */
export const WEBHOOK_JOB = 'webhook';

export interface TriggerDeps {
  /** The app's current webhook key (it may be rotated at any time). */
  readonly key: () => Promise<string>;
  readonly timeoutMs: number;
}

/** Fields a beforeSave reply cannot set: the server's own (Parse Server drops the same). */
const NOT_FROM_REPLY = new Set(['objectId', 'createdAt', 'updatedAt', 'className', 'ACL']);

function bodyOf(request: HookRequest, user: Record<string, unknown> | undefined): TriggerCallBody {
  return {
    master: request.master,
    ...(user ? { user } : {}),
    ...(request.installationId ? { installationId: request.installationId } : {}),
    triggerName: request.triggerName,
    object: withClassName(request.object, request.className),
    // "original (on update)": a delete's object is its original already.
    ...(request.original && (request.triggerName === 'beforeSave' || request.triggerName === 'afterSave') ? { original: withClassName(request.original, request.className) } : {}),
  };
}

/**
 * beforeSave and beforeDelete: the call is made before the write, outside any row lock. An
 * `{error}` reply, or a call that fails, refuses the write with 141 (Parse Server's answer for a
 * failed trigger). A beforeSave `{success: object}` gives the fields to save.
 */
export function beforeObserver(url: string, deps: TriggerDeps): HookObserver {
  return async (request) => {
    const body = bodyOf(request, await userJson(request.store, request.user));
    const outcome = await callWebhook(url, body, await deps.key(), { timeoutMs: deps.timeoutMs });
    if (outcome.kind === 'error') throw Errors.scriptFailed(outcome.message);
    if (outcome.kind === 'failed') throw Errors.scriptFailed(`The ${request.triggerName} hook of ${request.className} failed: ${outcome.message}.`);
    if (request.triggerName === 'beforeSave' && isPlainObject(outcome.value)) applyReply(request, outcome.value);
  };
}

/**
 * `{success: object}` on beforeSave: the object is what to save, as in Parse Server. Its fields
 * are written; a field the write would have changed and the reply leaves out keeps its stored
 * value (on a create: is not saved). The pipeline turns the difference into the write.
 */
function applyReply(request: HookRequest, reply: Record<string, unknown>): void {
  const object = request.object;
  for (const [field, value] of Object.entries(reply)) {
    if (!NOT_FROM_REPLY.has(field) && !field.startsWith('_')) object[field] = value;
  }
  for (const field of Object.keys(object)) {
    if (NOT_FROM_REPLY.has(field) || field.startsWith('_') || Object.hasOwn(reply, field)) continue;
    if (request.original && Object.hasOwn(request.original, field)) object[field] = request.original[field];
    else delete object[field];
  }
}

/**
 * afterSave and afterDelete: a job in the write's own transaction, delivered by the queue with
 * its retries (src/queue/jobs/webhook.ts); the write's answer never waits for the receiver.
 */
export function queuedObserver(url: string, jobs: JobStore, timeoutMs: number): QueuedObserver {
  return (request) => {
    const payload: QueuedTriggerCall = { url, timeoutMs, userId: request.user, body: bodyOf(request, undefined) };
    return jobs.enqueueStep({ type: WEBHOOK_JOB, payload }).step;
  };
}
