import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import type { RequestContext } from './context.ts';

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

/**
 * Count queries: at most N per minute per app, counted in the app's database so that every
 * server process shares one budget. Over it: 429/155.
 */
export async function takeCountQuery(ctx: RequestContext): Promise<void> {
  const { countQueriesPerMinute } = limitsOf(ctx);
  const minute = Math.floor(Date.now() / 60_000);
  const used = await ctx.app.store.countInWindow('count', minute);
  if (used > countQueriesPerMinute) throw Errors.requestLimitExceeded(`At most ${countQueriesPerMinute} count queries a minute are allowed for this app.`);
}

interface Gate {
  running: number;
  readonly waiting: (() => void)[];
}
const gates = new Map<string, Gate>();

/**
 * Regex queries an index cannot answer scan the table: at most N run at once per app (in this
 * process); others wait up to the configured time, then get 429/155. A slot is handed from one
 * query straight to the next waiter, so none is lost or taken twice.
 */
export async function withRegexSlot<T>(ctx: RequestContext, run: () => Promise<T>): Promise<T> {
  const { regexConcurrency, regexWaitMs } = limitsOf(ctx);
  const appId = ctx.app.record.applicationId;
  let gate = gates.get(appId);
  if (!gate) gates.set(appId, (gate = { running: 0, waiting: [] }));
  if (gate.running >= regexConcurrency) await waitForSlot(appId, gate, regexConcurrency, regexWaitMs);
  else gate.running += 1;
  try {
    return await run();
  } finally {
    const next = gate.waiting.shift();
    if (next) next();
    else {
      gate.running -= 1;
      forgetIfIdle(appId, gate);
    }
  }
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
      reject(Errors.requestLimitExceeded(`Too many regular-expression queries are running for this app; at most ${concurrency} run at once.`));
    }, waitMs);
    gate.waiting.push(wake);
  });
}

/** Apps without regex queries in flight keep no entry. */
function forgetIfIdle(appId: string, gate: Gate): void {
  if (gate.running === 0 && gate.waiting.length === 0 && gates.get(appId) === gate) gates.delete(appId);
}
