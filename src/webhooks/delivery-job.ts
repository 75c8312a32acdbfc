import { PermanentJobError, type JobType } from '../queue/types.ts';
import { callWebhook } from './caller.ts';
import { parseQueuedCall, userJson, type QueuedTriggerCall } from './payloads.ts';

/**
 * The queue's job type `webhook` (WEBHOOK_JOB). It lives here, not in src/queue/jobs/, and
 * server.ts adds it to the queue's job types: src/rest/queue.ts reads the queue's list, and this
 * module uses src/rest, so a listing in src/queue would close an import cycle.
 *
 * Delivers an afterSave or afterDelete hook call, queued in the transaction of the write
 * (src/webhooks/triggers.ts). The user is read and the call signed when it is delivered, so a
 * retry carries a fresh timestamp and the current webhook key. The receiver's `{error}` reply is
 * an answer (decisions.md: the reply of an after-hook is ignored); a call that fails (unreachable,
 * timed out, an HTTP error status) is retried with the queue's back-off, and is dead after the
 * last attempt. Delivery is at least once: a receiver may see a call twice.
 */
export const webhookJob: JobType<QueuedTriggerCall> = {
  parse(payload) {
    const call = parseQueuedCall(payload);
    if (!call) throw new PermanentJobError('webhook: the payload must have url, timeoutMs, userId and a trigger body');
    return call;
  },
  async run(call, { app, log }) {
    const user = await userJson(app.store, call.userId);
    const body = { ...call.body, ...(user ? { user } : {}) };
    const outcome = await callWebhook(call.url, body, app.record.keys.webhookKey, { timeoutMs: call.timeoutMs });
    if (outcome.kind === 'failed') throw new Error(`${call.body.triggerName} hook of ${String(call.body.object.className)}: ${outcome.message}`);
    if (outcome.kind === 'error') {
      if (outcome.status < 200 || outcome.status >= 300) throw new Error(`${call.body.triggerName} hook of ${String(call.body.object.className)}: HTTP ${outcome.status}: ${outcome.message}`);
      log.warn({ url: call.url, triggerName: call.body.triggerName, error: outcome.message }, 'an after-hook answered an error');
    }
  },
};
