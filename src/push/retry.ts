import type { AppHandle } from '../apps/registry.ts';
import { parseQuery } from '../query/parse.ts';
import type { StoredObject } from '../storage/port.ts';
import { audienceOf, change, expiredOutcome, MAX_DELIVERY_ATTEMPTS, messageOf, retryJob, type PipelineOptions, type RetryPayload } from './pipeline.ts';
import { sendPage, type SendLog } from './send.ts';
import { batchOf, recordRetry, PUSH_STATUS } from './status.ts';

/**
 * Another delivery attempt for the devices of one page that a network answered with 429 or 5xx
 * (docs/push.md "Retries"). They are read again (an installation deleted, moved out of the
 * audience or without its token since is left out) and sent; those still refused as busy get the
 * next attempt, until the last, which counts them failed. Each device is counted once: the record
 * of an attempt happens once (recordRetry), and the page's first record left them out.
 */
export async function runRetry(app: AppHandle, payload: RetryPayload, options: PipelineOptions, log: SendLog): Promise<void> {
  const status = await app.store.get(PUSH_STATUS, payload.pushStatusId, null);
  const entry = status ? batchOf(status, payload.batch)?.retry?.[payload.key] : undefined;
  if (!status || !entry || entry.attempt !== payload.attempt) return;
  const devices = await readDevices(app, status, payload, entry.ids);
  const offset = payload.zones ? payload.batch : null;
  const { pushStatusId, batch, key, attempt } = payload;
  if (payload.expiresAt !== null && Date.now() >= payload.expiresAt) {
    // Too late for another attempt: the devices count as failed, with the reason.
    const failedPerType: Record<string, number> = {};
    for (const device of devices) failedPerType[typeOf(device)] = (failedPerType[typeOf(device)] ?? 0) + 1;
    const outcome = { ...expiredOutcome(payload), failedPerType, offset };
    await change(app, payload, (current) => recordRetry(current, batch, key, attempt, outcome, Date.now(), null), []);
    return;
  }
  const canRetry = attempt < MAX_DELIVERY_ATTEMPTS;
  const sent = await sendPage(app, devices, messageOf(status, payload), await options.networks.networksOf(app.record), log, { offset, canRetry, resend: true });
  const retry = sent.retryIds.length > 0 ? { ids: sent.retryIds, attempt: attempt + 1 } : null;
  const steps = retry ? [app.jobs.enqueueStep(retryJob({ ...payload, attempt: attempt + 1 }, sent.retryAfterMs)).step] : [];
  await change(app, { pushStatusId }, (current) => recordRetry(current, batch, key, attempt, sent, Date.now(), retry), steps);
}

function typeOf(installation: StoredObject): string {
  return typeof installation.data.deviceType === 'string' ? installation.data.deviceType : 'unknown';
}

/** The retry's installations that are still in the audience with a token (a page at most). */
async function readDevices(app: AppHandle, status: StoredObject, payload: RetryPayload, ids: readonly string[]): Promise<StoredObject[]> {
  const schemas = await app.schemas.all();
  const schema = schemas.get('_Installation');
  if (!schema || ids.length === 0) return [];
  const where = { $and: [audienceOf(status, payload.zones), { objectId: { $in: ids } }] };
  const parsed = parseQuery(where, schema, (name) => schemas.get(name) ?? null);
  return app.store.find('_Installation', { where: parsed.where, order: [], limit: ids.length, skip: 0 });
}
