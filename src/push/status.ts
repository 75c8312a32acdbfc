import { isoTimestamp, newObjectId } from '../apps/ids.ts';
import type { StoredObject } from '../storage/port.ts';
import type { PushRequest } from './request.ts';

export const PUSH_STATUS = '_PushStatus';

/** decisions.md "Push": scheduled → pending → running → succeeded | failed, or canceled. */
export type PushState = 'scheduled' | 'pending' | 'running' | 'succeeded' | 'failed' | 'canceled';

export const FINISHED: readonly PushState[] = ['succeeded', 'failed', 'canceled'];

/** A batch's checkpoint once its last page is recorded. */
export const DONE = '#done'; // objectIds are alphanumeric: never equal to this

/** One batch of the audience: all of it, or (local time) the installations of one UTC offset. */
export const ALL = 'all';

/**
 * The `_PushStatus` of a new push, in Parse Server's field shapes (`query` and `payload` as JSON
 * text, `expiry` in milliseconds), plus `checkpoints`: for each batch, the objectId of the last
 * installation sent to, or DONE. A page is recorded once: its job carries the checkpoint it
 * starts from, and the record moves only from that value (see recordPage).
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
    checkpoints: request.pushTime?.kind === 'local' ? {} : { [ALL]: '' },
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

/**
 * The status after one page: counters added, the batch's checkpoint moved from `from` to `to`,
 * and, when every batch is done, the final state. Null when the checkpoint is no longer `from`:
 * the page was recorded already (a job run twice), so nothing is counted twice.
 */
export function recordPage(current: StoredObject, batch: string, from: string, to: string, outcome: PageOutcome, now: number): StoredObject | null {
  const data = current.data as Record<string, unknown>;
  const checkpoints = { ...(data.checkpoints as Record<string, string>) };
  if (checkpoints[batch] !== from || FINISHED.includes(data.status as PushState)) return null;
  checkpoints[batch] = to;
  const sent = sum(outcome.sentPerType);
  const failed = sum(outcome.failedPerType);
  const next: Record<string, unknown> = {
    ...data,
    checkpoints,
    numSent: Number(data.numSent ?? 0) + sent,
    numFailed: Number(data.numFailed ?? 0) + failed,
    sentPerType: add(data.sentPerType, outcome.sentPerType),
    failedPerType: add(data.failedPerType, outcome.failedPerType),
  };
  if (outcome.offset !== null) {
    next.sentPerUTCOffset = add(data.sentPerUTCOffset, sent ? { [outcome.offset]: sent } : {});
    next.failedPerUTCOffset = add(data.failedPerUTCOffset, failed ? { [outcome.offset]: failed } : {});
  }
  const errors = new Set(typeof data.errorMessage === 'string' && data.errorMessage ? data.errorMessage.split('\n') : []);
  for (const error of outcome.errors) if (errors.size < MAX_ERRORS) errors.add(error);
  if (errors.size > 0) next.errorMessage = [...errors].join('\n');
  if (Object.values(checkpoints).every((value) => value === DONE)) next.status = finalState(next);
  else if (next.status !== 'running') next.status = 'running';
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
