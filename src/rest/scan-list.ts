import { Errors } from '../errors/index.ts';
import type { ClassSchema } from '../schema/types.ts';
import { automaticIndexes } from './auto-index.ts';
import { ok, type RequestContext, type Result } from './context.ts';
import { scanEntries, type IndexSuggestion } from './scan-log.ts';

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * GET /1/scans (master key): the scans this process has seen for the app, most frequent first;
 * an entry whose index Basalt has since made carries `automaticIndex`, and the app's automatic
 * indexes are listed beside the entries, with how often each was read where the database counts.
 */
export async function listScans(ctx: RequestContext): Promise<Result> {
  if (!ctx.auth.isMaster) throw Errors.operationForbidden('The scans endpoint needs the master key.');
  const entries = [...scanEntries(ctx.app.record.applicationId)];
  entries.sort((a, b) => b.count - a.count || byText(a.className, b.className) || byText(b.lastSeenAt, a.lastSeenAt));
  const schemas = await ctx.app.schemas.all();
  const results = entries.map(({ className, index, count, lastSeenAt }) => {
    const made = index ? madeFor(schemas.get(className), index) : null;
    return { className, index, count, lastSeenAt, ...(made ? { automaticIndex: { name: made.name, createdAt: made.createdAt } } : {}) };
  });
  const automatic = await automaticIndexList(ctx, [...schemas.values()]);
  return ok(automatic.length ? { results, automaticIndexes: automatic } : { results });
}

/** The automatic index of the class on the suggestion's field, if Basalt made one. */
function madeFor(schema: ClassSchema | undefined, index: IndexSuggestion): { name: string; createdAt: string } | null {
  const field = Object.keys(index)[0];
  return (schema && automaticIndexes(schema).find((made) => Object.keys(made.keys)[0] === field)) || null;
}

/**
 * Every automatic index of the app. `scans` is how often the planner read it since the database's
 * statistics were last reset (PostgreSQL's pg_stat_user_indexes), and `unused` whether it was
 * never read though older than --auto-index-unused-days; both null where the database keeps no
 * count (SQLite).
 */
async function automaticIndexList(ctx: RequestContext, schemas: readonly ClassSchema[]): Promise<Record<string, unknown>[]> {
  const list: Record<string, unknown>[] = [];
  const now = Date.now();
  for (const schema of schemas) {
    const made = automaticIndexes(schema);
    if (made.length === 0) continue;
    const counts = await ctx.app.schemas.store.indexScans(schema.className, made.map((index) => index.name));
    for (const { name, keys, createdAt } of made) {
      const read = counts?.get(name);
      const scansSoFar = read === undefined ? null : read;
      const unused = scansSoFar === null ? null : scansSoFar === 0 && now - Date.parse(createdAt) >= ctx.limits.autoIndex.unusedAfterMs;
      list.push({ className: schema.className, name, keys, createdAt, scans: scansSoFar, unused });
    }
  }
  return list;
}
