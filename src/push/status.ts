import { isoTimestamp, newObjectId } from '../apps/ids.ts';
import type { StoredObject } from '../storage/port.ts';
import type { PushRequest } from './request.ts';

export const PUSH_STATUS = '_PushStatus';

/** decisions.md "Push": scheduled → pending → running → succeeded | failed, or canceled. */
export type PushState = 'scheduled' | 'pending' | 'running' | 'succeeded' | 'failed' | 'canceled';

export const FINISHED: readonly PushState[] = ['succeeded', 'failed', 'canceled'];

/** A batch's read cursor once its last page has been read. */
export const DONE = '#done'; // objectIds are alphanumeric: never equal to this

/** One batch of the audience: all of it, or (local time) the installations of one UTC offset. */
export const ALL = 'all';

/**
 * Where a batch is: `read`, the objectId after which its next page starts (DONE when every page
 * has been read); `open`, the pages read and not yet recorded, as first cursor → last objectId.
 */
export interface BatchState {
  readonly read: string;
  readonly open: Readonly<Record<string, string>>;
  /** Devices a network asked to try again later (429, 5xx), by the cursor of the page they were in. */
  readonly retry?: Readonly<Record<string, RetryState>>;
}

/** The installations of one page still to be sent, and which delivery attempt sends them next. */
export interface RetryState {
  readonly ids: readonly string[];
  readonly attempt: number;
}

export const NEW_BATCH: BatchState = { read: '', open: {} };

/**
 * The `_PushStatus` of a new push, in Parse Server's field shapes (`query` and `payload` as JSON
 * text, `expiry` in milliseconds), plus `checkpoints`: each batch's BatchState. A page is
 * claimed (the read cursor moves past it and it becomes open) and then recorded (its counters
 * added, and it is no longer open), each once: see claimPage and recordPage.
 */
export function newPushStatus(request: PushRequest, now: number, pushTimeText: string): StoredObject {
  const at = isoTimestamp(now);
  const data: Record<string, unknown> = {
    pushTime: pushTimeText,
    source: 'rest',
    query: JSON.stringify(request.audience),
    payload: JSON.stringify(request.data),
    status: request.pushTime ? 'scheduled' : 'pending',
    numSent: 0,
    numFailed: 0,
    sentPerType: {},
    failedPerType: {},
    // Local-time pushes plan their batches (one per offset) when they start.
    checkpoints: request.pushTime?.kind === 'local' ? {} : { [ALL]: NEW_BATCH },
  };
  if (typeof request.data.title === 'string') data.title = request.data.title;
  if (request.expiresAt !== null) data.expiry = request.expiresAt;
  if (request.expirationInterval !== null) data.expiration_interval = request.expirationInterval;
  if (request.pushTime?.kind === 'local') {
    data.sentPerUTCOffset = {};
    data.failedPerUTCOffset = {};
  }
  // Master key only: no one is in the permission lists.
  return { objectId: newObjectId(now), createdAt: at, updatedAt: at, data, rperm: [], wperm: [] };
}

/** What one page (or an expired batch) adds to the counters. */
export interface PageOutcome {
  readonly sentPerType: Readonly<Record<string, number>>;
  readonly failedPerType: Readonly<Record<string, number>>;
  readonly errors: readonly string[];
  /** The batch's UTC offset (local-time pushes), whose per-offset counters it adds to. */
  readonly offset: string | null;
}

export const NOTHING: PageOutcome = { sentPerType: {}, failedPerType: {}, errors: [], offset: null };

const MAX_ERRORS = 10;

type Batches = Record<string, BatchState>;

function batchesOf(status: StoredObject): Batches {
  return (status.data.checkpoints ?? {}) as Batches;
}

/** The batch's state, or null when the push has ended (canceled, or finished) or has no such batch. */
export function batchOf(status: StoredObject, batch: string): BatchState | null {
  if (FINISHED.includes(status.data.status as PushState)) return null;
  return batchesOf(status)[batch] ?? null;
}

/**
 * The page after `after` has been read up to `last` (null: it was empty): the read cursor moves
 * on (to DONE when the page was not full) and the page is open until recorded. The push is
 * running from its first claim. Null when the cursor is no longer at `after`: another run of the
 * job claimed the page already.
 */
export function claimPage(current: StoredObject, batch: string, after: string, last: string | null, full: boolean, now: number): StoredObject | null {
  const state = batchOf(current, batch);
  if (!state || state.read !== after) return null;
  const open = last === null ? state.open : { ...state.open, [after]: last };
  const next = { ...state, read: full && last !== null ? last : DONE, open };
  return withBatch(current, batch, next, {}, now);
}

/**
 * An open page was sent: its counters are added and it is closed; when every batch is read and
 * none has an open page, the push gets its final state. Null when the page is not open (it was
 * recorded already: a job run twice), so nothing is counted twice.
 */
export function recordPage(current: StoredObject, batch: string, after: string, outcome: PageOutcome, now: number, retry: RetryState | null = null): StoredObject | null {
  const state = batchOf(current, batch);
  if (!state || state.open[after] === undefined) return null;
  const { [after]: _closed, ...open } = state.open;
  return withBatch(current, batch, withRetry({ ...state, open }, after, retry), outcome, now);
}

/**
 * A page's devices were sent again (delivery attempt `attempt`): their counters are added, and
 * those still to be tried (`retry`, or none) replace them. Null when that attempt was recorded
 * already (a job run twice), so each device counts once.
 */
export function recordRetry(current: StoredObject, batch: string, key: string, attempt: number, outcome: PageOutcome, now: number, retry: RetryState | null): StoredObject | null {
  const state = batchOf(current, batch);
  if (!state || state.retry?.[key]?.attempt !== attempt) return null;
  return withBatch(current, batch, withRetry(state, key, retry), outcome, now);
}

function withRetry(state: BatchState, key: string, retry: RetryState | null): BatchState {
  const { [key]: _done, ...rest } = state.retry ?? {};
  const all = retry ? { ...rest, [key]: retry } : rest;
  const { retry: _old, ...base } = state;
  return Object.keys(all).length > 0 ? { ...base, retry: all } : base;
}

/** The batch expired before its next page was read: no more pages are read, and why is kept. */
export function expireBatch(current: StoredObject, batch: string, after: string, outcome: PageOutcome, now: number): StoredObject | null {
  const state = batchOf(current, batch);
  if (!state || state.read !== after) return null;
  return withBatch(current, batch, { ...state, read: DONE }, outcome, now);
}

function withBatch(current: StoredObject, batch: string, state: BatchState, outcome: Partial<PageOutcome>, now: number): StoredObject {
  const data = current.data as Record<string, unknown>;
  const checkpoints = { ...batchesOf(current), [batch]: state };
  const sentPerType = outcome.sentPerType ?? {};
  const failedPerType = outcome.failedPerType ?? {};
  const sent = sum(sentPerType);
  const failed = sum(failedPerType);
  const next: Record<string, unknown> = {
    ...data,
    checkpoints,
    numSent: Number(data.numSent ?? 0) + sent,
    numFailed: Number(data.numFailed ?? 0) + failed,
    sentPerType: add(data.sentPerType, sentPerType),
    failedPerType: add(data.failedPerType, failedPerType),
  };
  if (outcome.offset !== undefined && outcome.offset !== null) {
    next.sentPerUTCOffset = add(data.sentPerUTCOffset, sent ? { [outcome.offset]: sent } : {});
    next.failedPerUTCOffset = add(data.failedPerUTCOffset, failed ? { [outcome.offset]: failed } : {});
  }
  const errors = new Set(typeof data.errorMessage === 'string' && data.errorMessage ? data.errorMessage.split('\n') : []);
  for (const error of outcome.errors ?? []) if (errors.size < MAX_ERRORS) errors.add(error);
  if (errors.size > 0) next.errorMessage = [...errors].join('\n');
  const done = Object.values(checkpoints).every((each) => each.read === DONE && Object.keys(each.open).length === 0 && Object.keys(each.retry ?? {}).length === 0);
  next.status = done ? finalState(next) : 'running';
  return { ...current, updatedAt: isoTimestamp(now), data: next };
}

/**
 * Failed when nothing was sent and something went wrong (every device lacked credentials or was
 * refused, or the push expired before it was sent); otherwise succeeded, also with no audience.
 */
function finalState(data: Record<string, unknown>): PushState {
  return Number(data.numSent) === 0 && typeof data.errorMessage === 'string' ? 'failed' : 'succeeded';
}

function sum(counts: Readonly<Record<string, number>>): number {
  return Object.values(counts).reduce((total, n) => total + n, 0);
}

function add(current: unknown, more: Readonly<Record<string, number>>): Record<string, number> {
  const result = { ...((current ?? {}) as Record<string, number>) };
  for (const [key, n] of Object.entries(more)) if (n) result[key] = (result[key] ?? 0) + n;
  return result;
}
