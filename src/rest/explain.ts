import { Errors } from '../errors/index.ts';
import type { RequestContext } from './context.ts';

/**
 * `explain` (the SDKs' `query.explain()`, sent as `explain=true`, or `true` in the body form):
 * whether the query answers with its plan instead of its results. A plan names tables, indexes
 * and how the caller's permissions are tested, so only the master key may ask (Parse Server
 * refuses it to other keys too, by default). Nothing but the two booleans is accepted: MongoDB's
 * verbosity names (`executionStats`…) would run the query, which explain never does here.
 */
export function parseExplain(ctx: RequestContext, value: unknown): boolean {
  if (value === undefined || value === null || value === '' || value === false || value === 'false' || value === 0 || value === '0') return false;
  if (value !== true && value !== 'true' && value !== 1 && value !== '1') throw Errors.invalidQuery('explain must be true or false.');
  if (!ctx.auth.isMaster) throw Errors.operationForbidden('Using the explain query parameter requires the master key.');
  return true;
}

/**
 * The answer of an explained query: `{"results": [{"QUERY PLAN": plan}, …]}`, one entry per
 * statement the query runs (one, or two where a page's count runs beside it), as Parse Server
 * answers on PostgreSQL. The plan is the database's own: PostgreSQL's `EXPLAIN (FORMAT JSON)`
 * document, SQLite's `EXPLAIN QUERY PLAN` rows (`{id, parent, detail}`).
 */
export function explainBody(plans: readonly unknown[]): { results: { 'QUERY PLAN': unknown }[] } {
  return { results: plans.map((plan) => ({ 'QUERY PLAN': plan })) };
}
