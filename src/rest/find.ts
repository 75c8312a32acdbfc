import { Errors } from '../errors/index.ts';
import { MAX_JSON_NESTING, nestsDeeperThan } from '../encoding/json-nesting.ts';
import { parseOrder, parseQuery } from '../query/parse.ts';
import { secure } from '../query/secure.ts';
import { innerScopeOf } from '../auth/sessions.ts';
import { and, type WhereNode } from '../query/ast.ts';
import { assertNotProtected, classGrant, grantAllows, grantWhere, guardInner, hideProtected, shieldOf, type ClassGrant, type QueryGuard } from '../auth/clp.ts';
import type { ClassSchema } from '../schema/types.ts';
import { StaleSchema, type StoredObject } from '../storage/port.ts';
import { ok, principals, type RequestContext, type Result } from './context.ts';
import { parseShape, shapeResults } from './shape.ts';
import { encodeResults, sendableAsStored } from './encoded.ts';
import { takeCountQuery, withRegexSlot } from './limits.ts';
import { scanTurn } from './scan-gate.ts';
import { assertGenericClass } from './class-access.ts';
import { noteScan } from './scan-log.ts';
import { guardReadsObjects, keepSecured, keepText, plannedText, securedKey, textKey, type PlannedText, type SecuredQuery } from './query-plans.ts';
import { keepCaller, keepShape, knownShape, learnShape, numberShape, putNumbers } from './query-shapes.ts';
import { hintKey, parseHint } from '../query/hint.ts';
import { explainBody, parseExplain } from './explain.ts';
import { findTriggersOf, plainBody, queryAfterBeforeFind, resultsAfterAfterFind, type FindTriggers } from './find-triggers.ts';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

/** Query parameters of spec 4.2, as they arrive (URL strings, or values from the SDK body form). */
export interface FindParams {
  readonly where?: unknown;
  readonly order?: unknown;
  readonly limit?: unknown;
  readonly skip?: unknown;
  readonly keys?: unknown;
  readonly include?: unknown;
  readonly count?: unknown;
  readonly excludeKeys?: unknown;
  readonly hint?: unknown;
  readonly explain?: unknown;
}

/** GET /1/classes/<className>: {results, count?}. */
export async function findObjects(ctx: RequestContext, className: string, params: FindParams): Promise<Result> {
  assertGenericClass(ctx, className, 'read');
  return queryClass(ctx, className, params);
}

/**
 * Spec 4.2 on any class, built-in ones included: the endpoint decides who may ask. A query planned
 * from a schema that another process has just changed under it (StaleSchema) is planned again
 * from the schema as stored, once; its count, if it asked for one, was already taken.
 */
export async function queryClass(ctx: RequestContext, className: string, params: FindParams, scope?: WhereNode): Promise<Result> {
  const triggers = findTriggersOf(ctx, className);
  return triggers ? queryWithTriggers(ctx, className, params, scope, triggers) : queryUntriggered(ctx, className, params, scope);
}

/** A query of cloud code's beforeFind and afterFind (find-triggers.ts): the first may replace the query, the second the results. */
async function queryWithTriggers(ctx: RequestContext, className: string, params: FindParams, scope: WhereNode | undefined, triggers: FindTriggers): Promise<Result> {
  let query = params;
  if (triggers.before) {
    const given = (value: unknown) => value !== undefined && value !== '';
    query = await queryAfterBeforeFind(ctx, className, triggers.before, params, {
      where: parseJsonParam(params.where, 'where'),
      limit: given(params.limit) ? parseLimit(params.limit) : undefined,
      skip: given(params.skip) ? parseSkip(params.skip) : undefined,
      count: asksCount(params.count),
      isGet: false,
    });
  }
  const result = await queryUntriggered(ctx, className, query, scope);
  if (!triggers.after) return result;
  const body = plainBody(result);
  const results = await resultsAfterAfterFind(ctx, className, triggers.after, body.results as Record<string, unknown>[]);
  return results ? ok({ ...body, results }) : result;
}

/** A query as the client sent it, without triggers: find.ts's own path, and a get's whose beforeFind changed it. */
export async function queryUntriggered(ctx: RequestContext, className: string, params: FindParams, scope?: WhereNode): Promise<Result> {
  try {
    return await answerQuery(ctx, className, params, scope);
  } catch (error) {
    if (!(error instanceof StaleSchema)) throw error;
    ctx.app.schemas.invalidate();
    return answerQuery(ctx, className, params, scope);
  }
}

async function answerQuery(ctx: RequestContext, className: string, params: FindParams, scope?: WhereNode): Promise<Result> {
  // Before anything is read: a key that may not explain learns nothing of the class.
  const explain = parseExplain(ctx, params.explain);
  const schemas = await ctx.app.schemas.allWith(className);
  const schema = schemas.get(className) ?? null;
  const hint = parseHint(params.hint, schema);
  const text = textKey(className, params.where, params.order);
  const planned = (text === null ? undefined : plannedText(schemas, text)) ?? planText(schemas, schema, className, params, text);
  const { parsed, order } = planned;
  const limit = parseLimit(params.limit);
  const skip = parseSkip(params.skip);
  const withCount = asksCount(params.count);
  const shape = parseShape(params);
  // A class with no table runs no statement, so it has no plan either.
  if (!schema) return ok(explain ? explainBody([]) : withCount ? { results: [], count: 0 } : { results: [] });

  // Class-level permissions (decisions.md): `find` for results, `count` for a count; each may
  // be limited to the objects whose user fields name the caller. Then the ACLs, everywhere.
  const findGrant = limit > 0 || !withCount ? classGrant(ctx.auth, schema, 'find') : null;
  const countGrant = withCount ? classGrant(ctx.auth, schema, 'count') : null;
  assertNotProtected(shieldOf(ctx.auth, schema), parsed.where, order);
  const kept = !scope && text !== null && !guardReadsObjects(parsed.where);
  const restricted = ctx.auth.session?.restricted === true;
  const caller = kept ? securedKey(principals(ctx), ctx.auth.userId, findGrant?.userFields, countGrant?.userFields, limit, skip, restricted, hintKey(hint)) : '';
  const secureWhere = async (where: WhereNode): Promise<SecuredQuery> => {
    const guarded = await guardInner(queryGuard(ctx, schemas), scope ? and([where, scope]) : where);
    const secured = secure(guarded, principals(ctx), innerScopeOf(ctx.auth.session));
    const limited = (grant: ClassGrant | null) => (grant ? and([secured, grantWhere(grant, schema, ctx.auth.userId)]) : secured);
    const page = { where: limited(findGrant), order, limit, skip };
    return { find: limit > 0 ? (hint ? { ...page, hint } : page) : null, count: withCount ? limited(countGrant) : null };
  };
  let statements = kept ? planned.secured.get(caller) : undefined;
  // A page alone, of a text put together from its shape: read through the shape's statements
  // once they are known to be this caller's (query-shapes.ts), with no statement of its own.
  const known = kept && !withCount && !explain && limit > 0 ? planned.shape : undefined;
  const template = known?.template;
  const like = template && !statements ? known!.callers.get(caller) : undefined;
  if (!statements && !like?.same) {
    statements = await secureWhere(parsed.where);
    if (kept) keepSecured(planned, caller, statements);
    if (template && !like && statements.find) {
      const { find: shaped } = await secureWhere(template.parsed.where);
      const same = shaped !== null && ctx.app.store.sameStatements(className, shaped, statements.find, template.sentinels, planned.numbers!);
      keepCaller(known!, caller, { find: shaped!, same });
    }
  }
  const { find, count: countWhere } = statements ?? { find: null, count: null };
  // The plan of the statements just made, with every filter the caller's answer would have; no
  // count is taken from the budget and no scan is noted, since nothing is read.
  if (explain) return ok(explainBody(await ctx.app.store.explain(className, find, countWhere, hint)));
  if (withCount) await takeCountQuery(ctx);
  // An index that serves the text serves it until the schema changes, which drops `planned`.
  if ((limit > 0 || withCount) && !planned.served) {
    planned.served = await noteScan(ctx, className, schema, parsed.where, order);
    if (planned.shape) planned.shape.served = planned.served;
  }
  const run = async (): Promise<{ objects: StoredObject[]; count?: number }> => {
    if (find && countWhere) return ctx.app.store.findWithCount(className, find, countWhere);
    if (countWhere) return { objects: [], count: await ctx.app.store.count(className, countWhere, hint) };
    if (!statements && like) return { objects: await ctx.app.store.findLike(className, like.find, template!.sentinels, planned.numbers!) };
    return { objects: find ? await ctx.app.store.find(className, find) : [] };
  };
  // A scan waits its turn while the class's automatic index is built, and is planned again if
  // the index was finished meanwhile (scan-gate.ts).
  const waiting = planned.served ? null : scanTurn(ctx.app.record.applicationId, className);
  const turn = waiting && (await waiting);
  if (turn === 'built') return answerQuery(ctx, className, params, scope);
  let read: { objects: StoredObject[]; count?: number };
  try {
    read = parsed.regex ? await withRegexSlot(ctx, run) : await run();
  } finally {
    turn?.end();
  }
  const { objects, count } = read;
  if (sendableAsStored(ctx, schema, shape)) return ok(encodeResults(ctx, schema, objects, count));
  const results = await shapeResults(ctx, schema, objects, shape);
  hideProtected(ctx.auth, schema, objects, results);
  return ok(count === undefined ? { results } : { results, count });
}

/**
 * A text's plan when it is not kept: its shape's, with its own numbers put in (query-shapes.ts),
 * or its parse, from which its shape is learnt.
 */
function planText(schemas: ReadonlyMap<string, ClassSchema>, schema: ClassSchema | null, className: string, params: FindParams, text: string | null): PlannedText {
  const parse = (where: unknown) => parseQuery(parseJsonParam(where, 'where'), schema, (name) => schemas.get(name) ?? null);
  const shape = text !== null && typeof params.where === 'string' ? numberShape(params.where) : null;
  const shapeKey = shape && `${className}\u0000${shape.key}\u0000${params.order ?? ''}`;
  const known = shapeKey === null ? undefined : knownShape(schemas, shapeKey);
  // A number past the doubles (1e400) is refused by the parse, which the request then takes.
  if (text !== null && shape && known?.template && shape.numbers.every(Number.isFinite)) {
    const planned = keepText(schemas, text, putNumbers(known.template, shape.numbers), known.order);
    planned.served = known.served;
    planned.shape = known;
    planned.numbers = shape.numbers;
    return planned;
  }
  const parsed = parse(params.where);
  const explicitOrder = parseOrder(params.order, schema);
  // Spec 4.2: an explicit order takes precedence over the distance order of $nearSphere.
  const order = parsed.nearest ? [...explicitOrder, parsed.nearest] : explicitOrder;
  if (shape && shapeKey !== null && known === undefined) keepShape(schemas, shapeKey, learnShape(shape, parsed, order, parse));
  return text === null ? { parsed, order, secured: new Map() } : keepText(schemas, text, parsed, order);
}

function asksCount(count: unknown): boolean {
  return count === '1' || count === 1 || count === true || count === 'true';
}

/** How inner queries and `$relatedTo` owners of this request are checked (auth/clp.ts). */
function queryGuard(ctx: RequestContext, schemas: ReadonlyMap<string, ClassSchema>): QueryGuard {
  return {
    caller: ctx.auth,
    schemaOf: (name) => schemas.get(name) ?? null,
    readable: async (className, objectId, grant) => {
      const object = await ctx.app.store.get(className, objectId, principals(ctx));
      return object !== null && grantAllows(grant, object, ctx.auth.userId);
    },
  };
}

/**
 * A query parameter that holds JSON (`where`). The SDK body form sends it parsed, within the
 * body's nesting bound (http/body.ts); as text it is held to the same bound.
 */
export function parseJsonParam(value: unknown, name: string): unknown {
  if (typeof value !== 'string') return value;
  if (nestsDeeperThan(value)) throw Errors.invalidJson(`${name} nests objects and arrays more than ${MAX_JSON_NESTING} levels deep.`);
  try {
    return JSON.parse(value);
  } catch {
    throw Errors.invalidJson(`${name} is not valid JSON.`);
  }
}

// Safe integers only: the SDK body form sends numbers, and 1e20 would reach SQL as an OFFSET
// neither database accepts.
function parseInteger(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : null;
  if (typeof value === 'string' && /^-?\d{1,15}$/.test(value.trim())) return Number(value.trim());
  return null;
}

/** Default 100; 0 gives no results (for count-only queries); above 1000 is clamped to 1000. */
export function parseLimit(value: unknown): number {
  if (value === undefined || value === '') return DEFAULT_LIMIT;
  const limit = parseInteger(value);
  if (limit === null || limit < 0) throw Errors.invalidLimit(`limit must be a whole number from 0 to ${MAX_LIMIT}.`);
  return Math.min(limit, MAX_LIMIT);
}

export function parseSkip(value: unknown): number {
  if (value === undefined || value === '') return 0;
  const skip = parseInteger(value);
  if (skip === null || skip < 0) throw Errors.invalidSkip('skip must be a whole number, 0 or more.');
  return skip;
}
