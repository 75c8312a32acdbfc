import type { RequestContext, Result } from './context.ts';
import type { RequestTrigger } from './request-triggers.ts';
import { callerFields } from './trigger-caller.ts';
import { JsonText } from './encoded.ts';

/** The query parameters a beforeFind sees and may replace. */
const QUERY_PARTS = ['where', 'order', 'limit', 'skip', 'keys', 'include', 'excludeKeys'] as const;

export interface FindTriggers {
  readonly before: RequestTrigger | undefined;
  readonly after: RequestTrigger | undefined;
}

/** The app's beforeFind and afterFind of a class; null when it has neither (the common case: one size check). */
export function findTriggersOf(ctx: RequestContext, className: string): FindTriggers | null {
  const triggers = ctx.app.hooks.requests;
  const before = triggers.of('beforeFind', className);
  const after = triggers.of('afterFind', className);
  return before || after ? { before, after } : null;
}

/**
 * Runs a beforeFind: the query the client sent (its `where` parsed, its page checked) goes to the
 * trigger, and what the trigger answers replaces every part of it. A refusal is thrown as it is.
 */
export async function queryAfterBeforeFind<Params extends Partial<Record<(typeof QUERY_PARTS)[number], unknown>>>(ctx: RequestContext, className: string, trigger: RequestTrigger, params: Params, parsed: { where: unknown; limit?: number; skip?: number; count: boolean; isGet: boolean }): Promise<Params> {
  const query: Record<string, unknown> = { where: parsed.where ?? {} };
  if (parsed.limit !== undefined) query.limit = parsed.limit;
  if (parsed.skip !== undefined) query.skip = parsed.skip;
  for (const part of ['order', 'keys', 'include', 'excludeKeys'] as const) if (params[part] !== undefined) query[part] = params[part];
  const answer = (await trigger({ className, query, count: parsed.count, isGet: parsed.isGet, ...callerFields(ctx) })) as Record<string, unknown> | null;
  // Null: the code that defined the trigger was reloaded without it.
  if (!answer) return params;
  const replaced: Record<string, unknown> = { ...params };
  for (const part of QUERY_PARTS) replaced[part] = answer[part];
  if (replaced.where === undefined) replaced.where = {};
  return replaced as Params;
}

/** Runs an afterFind on the objects of an answer; what it answers replaces them. */
export async function resultsAfterAfterFind(ctx: RequestContext, className: string, trigger: RequestTrigger, objects: readonly Record<string, unknown>[]): Promise<Record<string, unknown>[] | null> {
  const answer = await trigger({ className, objects, ...callerFields(ctx) });
  return Array.isArray(answer) ? (answer as Record<string, unknown>[]) : null;
}

/** An answer's body as plain JSON (a body sent as stored is text). */
export function plainBody(result: Result): Record<string, unknown> {
  return (result.body instanceof JsonText ? JSON.parse(result.body.text) : result.body) as Record<string, unknown>;
}
