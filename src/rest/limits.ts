import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import type { RequestContext } from './context.ts';

/** Spec 8 and decisions.md: count queries per minute per app; regex queries at once per app. */
export const DEFAULT_LIMITS = { countQueriesPerMinute: 160, regexConcurrency: 4, regexWaitMs: 5000 } as const;

type Limits = { -readonly [K in keyof typeof DEFAULT_LIMITS]: number };

/** The app's `rateLimits` setting over the defaults. */
export function limitsOf(ctx: RequestContext): Limits {
  const configured = ctx.app.record.settings.rateLimits;
  const limits: Limits = { ...DEFAULT_LIMITS };
  if (isPlainObject(configured)) {
    for (const key of Object.keys(DEFAULT_LIMITS) as (keyof Limits)[]) {
      const value = configured[key];
      if (typeof value === 'number' && Number.isInteger(value) && value >= 0) limits[key] = value;
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
 * process); others wait up to the configured time, then get 429/155.
 */
export async function withRegexSlot<T>(ctx: RequestContext, run: () => Promise<T>): Promise<T> {
  const { regexConcurrency, regexWaitMs } = limitsOf(ctx);
  const appId = ctx.app.record.applicationId;
  let gate = gates.get(appId);
  if (!gate) gates.set(appId, (gate = { running: 0, waiting: [] }));
  if (gate.running >= regexConcurrency) {
    const current = gate;
    await new Promise<void>((resolve, reject) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const index = current.waiting.indexOf(wake);
        if (index !== -1) current.waiting.splice(index, 1);
        reject(Errors.requestLimitExceeded(`Too many regular-expression queries are running for this app; at most ${regexConcurrency} run at once.`));
      }, regexWaitMs);
      current.waiting.push(wake);
    });
  } else {
    gate.running += 1;
  }
  try {
    return await run();
  } finally {
    // Hand the slot straight to the next waiter, or give it back.
    const next = gate.waiting.shift();
    if (next) next();
    else {
      gate.running -= 1;
      if (gate.running === 0) gates.delete(appId);
    }
  }
}
