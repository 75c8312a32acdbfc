import type { AppHandle } from '../apps/registry.ts';
import { and, type WhereNode } from '../query/ast.ts';
import { parseQuery } from '../query/parse.ts';
import { parseDistinct } from '../query/aggregate/distinct.ts';
import { INTERNAL, writeDelete, writeUpdate } from '../rest/write/pipeline.ts';
import type { StoredObject, WriteStep } from '../storage/port.ts';
import type { NewJob } from '../storage/sql-jobs.ts';
import type { PushNetworksProvider } from './networks-provider.ts';
import { sendPage, type SendLog } from './send.ts';
import { batchOf, claimPage, expireBatch, FINISHED, NEW_BATCH, NOTHING, PUSH_STATUS, recordPage, type PageOutcome, type PushState } from './status.ts';
import type { PushMessage } from './networks/network.ts';
import { instantOfWallTime, offsetKey } from './time.ts';

export const PUSH_PAGE_JOB = 'push-page';
export const PUSH_PLAN_JOB = 'push-plan';
export const PUSH_REMOVE_JOB = 'push-remove';
export const PUSH_RETRY_JOB = 'push-retry';

/** Delivery attempts per device when a network answers 429 or 5xx (the first send included). */
export const MAX_DELIVERY_ATTEMPTS = 5;
/** The longest wait before another attempt, whatever Retry-After says. */
const MAX_RETRY_DELAY_MS = 3_600_000;

/** decisions.md "Push": a status is readable for 30 days, then removed by its own queued job. */
export const PUSH_STATUS_LIFETIME_MS = 30 * 86_400_000;

/** One page of one batch: the installations after `after` (objectId order) of the batch's audience. */
export interface PagePayload {
  readonly pushStatusId: string;
  readonly batch: string;
  /** The objectId the page starts after ("" for the batch's first page). */
  readonly after: string;
  readonly expiresAt: number | null;
  /** Local-time pushes: the time zones of the batch's UTC offset. */
  readonly zones: readonly string[] | null;
}

export interface PipelineOptions {
  readonly networks: PushNetworksProvider;
  readonly pageSize: number;
}

export function pageJob(payload: PagePayload, runAt?: number): NewJob {
  return runAt === undefined ? { type: PUSH_PAGE_JOB, payload } : { type: PUSH_PAGE_JOB, payload, runAt };
}

/** Another delivery attempt for the devices a page left to retry (BatchState.retry[key]). */
export interface RetryPayload {
  readonly pushStatusId: string;
  readonly batch: string;
  /** The cursor of the page the devices were in. */
  readonly key: string;
  /** The attempt this job makes (2 for the first retry). */
  readonly attempt: number;
  readonly expiresAt: number | null;
  readonly zones: readonly string[] | null;
}

/**
 * The job of the next attempt, due after the network's Retry-After when it gave one, else after
 * a doubling back-off (1 s, 2 s, 4 s…); never more than an hour away.
 */
export function retryJob(payload: RetryPayload, retryAfterMs: number | null, now = Date.now()): NewJob {
  const backoff = 1000 * 2 ** (payload.attempt - 2);
  return { type: PUSH_RETRY_JOB, payload, runAt: now + Math.min(retryAfterMs ?? backoff, MAX_RETRY_DELAY_MS) };
}

/**
 * One page of a batch, in two transactions around the sending. The claim reads the page, moves
 * the batch's read cursor past it, marks it open and queues the next page's job, so another
 * worker (of any process) reads and sends the next page while this one sends; the record adds
 * the counters and closes the page. A job run again (its process died) finds its page open and
 * sends it again (at least once), or finds it recorded and does nothing: each page counts once.
 */
export async function runPage(app: AppHandle, payload: PagePayload, options: PipelineOptions, log: SendLog): Promise<void> {
  const status = await app.store.get(PUSH_STATUS, payload.pushStatusId, null);
  const state = status ? batchOf(status, payload.batch) : null;
  if (!status || !state) return;
  const expired = payload.expiresAt !== null && Date.now() >= payload.expiresAt;
  const reopened = state.open[payload.after];
  let page: StoredObject[];
  if (reopened !== undefined) {
    page = expired ? [] : await readPage(app, status, payload, options.pageSize, reopened);
  } else if (state.read === payload.after) {
    if (expired) {
      await change(app, payload, (current) => expireBatch(current, payload.batch, payload.after, expiredOutcome(payload), Date.now()), []);
      return;
    }
    page = await readPage(app, status, payload, options.pageSize, null);
    const last = page.at(-1)?.objectId ?? null;
    const full = page.length === options.pageSize && last !== null;
    const next = full ? [app.jobs.enqueueStep(pageJob({ ...payload, after: last })).step] : [];
    const claimed = await change(app, payload, (current) => claimPage(current, payload.batch, payload.after, last, full, Date.now()), next);
    if (!claimed || last === null) return;
  } else {
    return;
  }
  if (expired) {
    await change(app, payload, (current) => recordPage(current, payload.batch, payload.after, expiredOutcome(payload), Date.now()), []);
    return;
  }
  const offset = payload.zones ? payload.batch : null;
  const sent = await sendPage(app, page, messageOf(status, payload), await options.networks.networksOf(app.record), log, { offset, canRetry: MAX_DELIVERY_ATTEMPTS > 1, resend: false });
  const { pushStatusId, batch, after, expiresAt, zones } = payload;
  const retry = sent.retryIds.length > 0 ? { ids: sent.retryIds, attempt: 2 } : null;
  const steps = retry ? [app.jobs.enqueueStep(retryJob({ pushStatusId, batch, key: after, attempt: 2, expiresAt, zones }, sent.retryAfterMs)).step] : [];
  await change(app, payload, (current) => recordPage(current, batch, after, sent, Date.now(), retry), steps);
}

export function messageOf(status: StoredObject, payload: { readonly pushStatusId: string; readonly expiresAt: number | null }): PushMessage {
  const data = JSON.parse(String(status.data.payload)) as Record<string, unknown>;
  return { pushStatusId: payload.pushStatusId, data, expiresAt: payload.expiresAt === null ? null : new Date(payload.expiresAt) };
}

export function expiredOutcome(payload: { readonly batch: string; readonly expiresAt: number | null; readonly zones: readonly string[] | null }): PageOutcome {
  const where = payload.zones ? ` to UTC offset ${payload.batch}` : '';
  return { ...NOTHING, errors: [`The push expired at ${new Date(payload.expiresAt!).toISOString()} before it was sent${where}.`] };
}

/** Writes `next(status)` with `steps` in one transaction; false (and nothing written) when it is null. */
export async function change(app: AppHandle, payload: { readonly pushStatusId: string }, next: (status: StoredObject) => StoredObject | null, steps: readonly WriteStep[]): Promise<boolean> {
  let changed = false;
  await writeUpdate(app, INTERNAL, {
    className: PUSH_STATUS,
    objectId: payload.pushStatusId,
    write: null,
    change: (status) => {
      const updated = next(status);
      changed = updated !== null;
      return updated ? { object: updated, relations: [], steps } : { object: status, relations: [] };
    },
  });
  return changed;
}

/**
 * objectId order, as the compiler's own tie-breaker writes it (`ORDER BY "objectId" ASC`): an
 * explicit objectId key would be ordered `ASC NULLS FIRST` like any field, which PostgreSQL
 * cannot read from the primary key, so every page would sort the rest of the audience.
 */
const BY_OBJECT_ID = [] as const;

/** The batch's audience as stored in the status (JSON, as Parse keeps it), with a token to send to. */
export function audienceOf(status: StoredObject, zones: readonly string[] | null): Record<string, unknown> {
  const where = JSON.parse(String(status.data.query)) as Record<string, unknown>;
  const parts: Record<string, unknown>[] = [where, { deviceToken: { $exists: true } }];
  if (zones) parts.push({ timeZone: { $in: zones } });
  return { $and: parts };
}

/**
 * A keyset page: memory holds one page whatever the audience's size, and a page costs an index
 * range read. `upTo`: the last objectId of a page claimed before, read again.
 */
async function readPage(app: AppHandle, status: StoredObject, payload: PagePayload, pageSize: number, upTo: string | null): Promise<StoredObject[]> {
  const schemas = await app.schemas.all();
  const schema = schemas.get('_Installation');
  if (!schema) return [];
  const parsed = parseQuery(audienceOf(status, payload.zones), schema, (name) => schemas.get(name) ?? null);
  const bound = (op: 'gt' | 'lte', value: string): WhereNode => ({ kind: 'compare', field: { kind: 'column', column: 'objectId' }, op, value, as: 'text' });
  const where = and([parsed.where, ...(payload.after ? [bound('gt', payload.after)] : []), ...(upTo === null ? [] : [bound('lte', upTo)])]);
  return app.store.find('_Installation', { where, order: BY_OBJECT_ID, limit: pageSize, skip: 0 });
}

/** At most this many distinct time zones are planned (the IANA database has about 600). */
const MAX_ZONES = 5000;

/**
 * A local-time push (spec 2.12): the time zones of its audience are grouped by their UTC offset
 * at the moment their clocks show the push time, and each offset becomes a batch whose first
 * page is due then (at once when that moment has passed). Installations without a timeZone, or
 * with one the runtime does not know, are left out.
 */
export async function runPlan(app: AppHandle, pushStatusId: string): Promise<void> {
  const status = await app.store.get(PUSH_STATUS, pushStatusId, null);
  if (!status || FINISHED.includes(status.data.status as PushState) || Object.keys(status.data.checkpoints ?? {}).length > 0) return;
  const wall = Date.parse(`${String(status.data.pushTime)}Z`);
  const interval = typeof status.data.expiration_interval === 'number' ? status.data.expiration_interval : null;
  const expiry = typeof status.data.expiry === 'number' ? status.data.expiry : null;
  const batches = new Map<string, { at: number; zones: string[] }>();
  for (const zone of await zonesOf(app, status)) {
    const instant = instantOfWallTime(wall, zone);
    if (!instant) continue;
    const key = offsetKey(instant.offset);
    const batch = batches.get(key) ?? { at: instant.at, zones: [] };
    batch.zones.push(zone);
    batches.set(key, batch);
  }
  const now = Date.now();
  const jobs = [...batches].map(([key, batch]) =>
    pageJob({ pushStatusId, batch: key, after: '', expiresAt: interval !== null ? batch.at + interval * 1000 : expiry, zones: batch.zones }, Math.max(batch.at, now)),
  );
  const steps = jobs.length > 0 ? [app.jobs.enqueueStep(jobs).step] : [];
  await writeUpdate(app, INTERNAL, {
    className: PUSH_STATUS,
    objectId: pushStatusId,
    write: null,
    change: (stored) => {
      if (FINISHED.includes(stored.data.status as PushState) || Object.keys(stored.data.checkpoints ?? {}).length > 0) return { object: stored, relations: [] };
      const checkpoints = Object.fromEntries([...batches.keys()].map((key) => [key, NEW_BATCH]));
      // No installation has a usable timeZone: the push is done, having reached no one.
      const state = jobs.length > 0 ? stored.data.status : 'succeeded';
      return { object: { ...stored, updatedAt: new Date().toISOString(), data: { ...stored.data, checkpoints, status: state } }, relations: [], steps };
    },
  });
}

async function zonesOf(app: AppHandle, status: StoredObject): Promise<string[]> {
  const schemas = await app.schemas.all();
  const schema = schemas.get('_Installation');
  if (!schema?.fields.timeZone) return [];
  const where = { $and: [audienceOf(status, null), { timeZone: { $exists: true } }] };
  const values = await app.store.distinct('_Installation', parseDistinct('timeZone', where, schema, (name) => schemas.get(name) ?? null), MAX_ZONES);
  return values.filter((value): value is string => typeof value === 'string' && value !== '');
}

/**
 * A page's job failed for the last time (the database or the networks' provider kept failing):
 * the push ends failed with the reason, rather than stay running with no job left to end it.
 */
export async function abandonPush(app: AppHandle, pushStatusId: string, error: string): Promise<void> {
  await writeUpdate(app, INTERNAL, {
    className: PUSH_STATUS,
    objectId: pushStatusId,
    write: null,
    change: (status) => {
      if (FINISHED.includes(status.data.status as PushState)) return { object: status, relations: [] };
      const previous = typeof status.data.errorMessage === 'string' ? `${status.data.errorMessage}\n` : '';
      const errorMessage = `${previous}Delivery stopped after its last attempt: ${error}`.slice(0, 4000);
      return { object: { ...status, updatedAt: new Date().toISOString(), data: { ...status.data, status: 'failed', errorMessage } }, relations: [] };
    },
  });
}

/** The status's 30 days are over. */
export async function removeStatus(app: AppHandle, pushStatusId: string): Promise<void> {
  await writeDelete(app, INTERNAL, { className: PUSH_STATUS, objectId: pushStatusId, write: null });
}
