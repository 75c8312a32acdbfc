import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import type { RequestContext } from './context.ts';
import type { SharedSlots, SlotHold } from '../storage/port.ts';

/**
 * The app setting `rateLimits` and its defaults: count queries per minute per app (spec 8: 160);
 * regular-expression queries running at once per app and how long others wait for a turn
 * (decisions.md: 4, 5 s); and the table size above which a query that no index serves is logged
 * (scan-log.ts).
 */
export const DEFAULT_LIMITS = { countQueriesPerMinute: 160, regexConcurrency: 4, regexWaitMs: 5000, scanWarningRows: 10_000 } as const;

export type Limits = { -readonly [K in keyof typeof DEFAULT_LIMITS]: number };

/** The app's `rateLimits` setting over the defaults; a value that is not a whole number ≥ 0 is ignored. */
export function limitsOf(ctx: RequestContext): Limits {
  const configured = ctx.app.record.settings.rateLimits;
  const limits: Limits = { ...DEFAULT_LIMITS };
  if (isPlainObject(configured)) {
    for (const key of Object.keys(DEFAULT_LIMITS) as (keyof Limits)[]) {
      const value = configured[key];
      if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) limits[key] = value;
    }
  }
  return limits;
}

/** The largest batch of count queries a process reserves at once: a twentieth of the budget, at most this. */
const MAX_BATCH = 1024;

/** Count queries this process has reserved for an app in one minute and not yet used. */
interface Allowance {
  readonly minute: number;
  readonly limit: number;
  left: number;
  /** How many the next reservation asks for. */
  batch: number;
  /** The app's budget for the minute is spent: nothing more can be reserved. */
  spent: boolean;
  reserving: Promise<void> | null;
}
const allowances = new Map<string, Allowance>();
let sweptMinute = 0;

/**
 * Count queries: at most N per minute per app, counted in the app's database so that every
 * server process shares one budget. Over it: 429/155.
 *
 * Writing the count for every query would make each one a write. Instead a process reserves
 * batches from the app's row in `_Rate` (one upsert adds the batch and returns the minute's
 * total; the part of the batch that fits under the budget is granted) and answers from its
 * reservation until it is used up. A batch starts at one and doubles with each reservation, up to
 * a twentieth of the budget (at most 1024), so the app's total never exceeds the budget, a process
 * that counts rarely holds back little, and one that counts often writes rarely.
 */
export async function takeCountQuery(ctx: RequestContext): Promise<void> {
  const { countQueriesPerMinute: limit } = limitsOf(ctx);
  const refuse = () => Errors.requestLimitExceeded(`At most ${limit} count queries a minute are allowed for this app.`);
  if (limit === 0) throw refuse();
  const appId = ctx.app.record.applicationId;
  for (;;) {
    const minute = Math.floor(Date.now() / 60_000);
    let allowance = allowances.get(appId);
    if (!allowance || allowance.minute !== minute || allowance.limit !== limit) {
      const batch = allowance ? Math.max(1, Math.floor(allowance.batch / 2)) : 1;
      allowance = { minute, limit, left: 0, batch, spent: false, reserving: null };
      allowances.set(appId, allowance);
      forgetBefore(minute);
    }
    if (allowance.left > 0) {
      allowance.left -= 1;
      return;
    }
    if (allowance.spent) throw refuse();
    // Requests that find the reservation used up wait for one new reservation, not one each.
    allowance.reserving ??= reserve(ctx, allowance).finally(() => {
      allowance.reserving = null;
    });
    await allowance.reserving;
  }
}

async function reserve(ctx: RequestContext, allowance: Allowance): Promise<void> {
  const asked = Math.min(allowance.batch, Math.max(1, Math.floor(allowance.limit / 20)), MAX_BATCH);
  const total = await ctx.app.store.countInWindow('count', allowance.minute, asked);
  const granted = Math.max(0, Math.min(asked, allowance.limit - (total - asked)));
  allowance.left += granted;
  if (granted < asked) allowance.spent = true;
  allowance.batch = asked * 2;
}

/** Reservations of past minutes are worthless: dropped once a minute, when a new one starts. */
function forgetBefore(minute: number): void {
  if (minute <= sweptMinute) return;
  sweptMinute = minute;
  for (const [appId, allowance] of allowances) if (allowance.minute < minute) allowances.delete(appId);
}

interface Gate {
  running: number;
  readonly waiting: (() => void)[];
}
const gates = new Map<string, Gate>();

/**
 * Regex queries an index cannot answer scan the table: at most N run at once per app; others
 * wait up to the configured time, then get 429/155. Within a process a slot is handed from one
 * query straight to the next waiter, so none is lost or taken twice. Where several processes
 * share the database (PostgreSQL), a query also holds one of the app's N slots there, so the
 * bound holds across them; one that finds them all held looks again every SHARED_RETRY_MS.
 */
export async function withRegexSlot<T>(ctx: RequestContext, run: () => Promise<T>): Promise<T> {
  const { regexConcurrency, regexWaitMs } = limitsOf(ctx);
  const appId = ctx.app.record.applicationId;
  const deadline = Date.now() + regexWaitMs;
  let gate = gates.get(appId);
  if (!gate) gates.set(appId, (gate = { running: 0, waiting: [] }));
  if (gate.running >= regexConcurrency) await waitForSlot(appId, gate, regexConcurrency, regexWaitMs);
  else gate.running += 1;
  try {
    const shared = ctx.app.store.sharedSlots;
    const hold = shared ? await takeShared(shared, appId, regexConcurrency, deadline) : null;
    try {
      return await run();
    } finally {
      // Not awaited: the answer need not wait for it, and the connection holding the slots runs
      // its statements in order, so this process's next take comes after it.
      void hold?.release();
    }
  } finally {
    const next = gate.waiting.shift();
    if (next) next();
    else {
      gate.running -= 1;
      forgetIfIdle(appId, gate);
    }
  }
}

const SHARED_RETRY_MS = 20;

async function takeShared(shared: SharedSlots, appId: string, concurrency: number, deadline: number): Promise<SlotHold> {
  for (;;) {
    const hold = await shared.take(`regex:${appId}`, concurrency);
    if (hold) return hold;
    const left = deadline - Date.now();
    if (left <= 0) throw tooManyRegex(concurrency);
    await new Promise((resolve) => setTimeout(resolve, Math.min(SHARED_RETRY_MS, left)));
  }
}

function tooManyRegex(concurrency: number): Error {
  return Errors.requestLimitExceeded(`Too many regular-expression queries are running for this app; at most ${concurrency} run at once.`);
}

function waitForSlot(appId: string, gate: Gate, concurrency: number, waitMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const wake = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      const index = gate.waiting.indexOf(wake);
      if (index !== -1) gate.waiting.splice(index, 1);
      forgetIfIdle(appId, gate);
      reject(tooManyRegex(concurrency));
    }, waitMs);
    gate.waiting.push(wake);
  });
}

/** Apps without regex queries in flight keep no entry. */
function forgetIfIdle(appId: string, gate: Gate): void {
  if (gate.running === 0 && gate.waiting.length === 0 && gates.get(appId) === gate) gates.delete(appId);
}
