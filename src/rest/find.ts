import { Errors } from '../errors/index.ts';
import { parseOrder, parseQuery } from '../query/parse.ts';
import { secure } from '../query/secure.ts';
import { and, type WhereNode } from '../query/ast.ts';
import { ok, principals, type RequestContext, type Result } from './context.ts';
import { parseShape, shapeResults } from './shape.ts';
import { takeCountQuery, withRegexSlot } from './limits.ts';
import { assertGenericClass } from './class-access.ts';
import { noteScan } from './scan-log.ts';

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
}

/** GET /1/classes/<className>: {results, count?}. */
export async function findObjects(ctx: RequestContext, className: string, params: FindParams): Promise<Result> {
  assertGenericClass(ctx, className, 'read');
  return queryClass(ctx, className, params);
}

/** Spec 4.2 on any class, built-in ones included: the endpoint decides who may ask. */
export async function queryClass(ctx: RequestContext, className: string, params: FindParams, scope?: WhereNode): Promise<Result> {
  const schemas = await ctx.app.schemas.all();
  const schema = schemas.get(className) ?? null;
  const parsed = parseQuery(parseJsonParam(params.where, 'where'), schema, (name) => schemas.get(name) ?? null);
  const explicitOrder = parseOrder(params.order, schema);
  // Spec 4.2: an explicit order takes precedence over the distance order of $nearSphere.
  const order = parsed.nearest ? [...explicitOrder, parsed.nearest] : explicitOrder;
  const limit = parseLimit(params.limit);
  const skip = parseSkip(params.skip);
  const withCount = params.count === '1' || params.count === 1 || params.count === true || params.count === 'true';
  const shape = parseShape(params);
  if (!schema) return ok(withCount ? { results: [], count: 0 } : { results: [] });

  const secured = secure(scope ? and([parsed.where, scope]) : parsed.where, principals(ctx));
  if (withCount) await takeCountQuery(ctx);
  if (limit > 0 || withCount) await noteScan(ctx, className, schema, parsed.where, order);
  const run = () =>
    Promise.all([
      limit > 0 ? ctx.app.store.find(className, { where: secured, order, limit, skip }) : Promise.resolve([]),
      withCount ? ctx.app.store.count(className, secured) : Promise.resolve(undefined),
    ]);
  const [objects, count] = parsed.regex ? await withRegexSlot(ctx, run) : await run();
  const results = await shapeResults(ctx, schema, objects, shape);
  return ok(count === undefined ? { results } : { results, count });
}

export function parseJsonParam(value: unknown, name: string): unknown {
  if (typeof value !== 'string') return value;
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

/** `keys=a,b` → the fields to return; objectId, createdAt and updatedAt always come back. */
export function parseKeys(value: unknown): ReadonlySet<string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw Errors.invalidQuery('keys must be a comma-separated string.');
  return new Set(value.split(',').map((key) => key.trim().split('.')[0]!).filter(Boolean));
}
