import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import { parsePipeline } from '../query/aggregate/parse.ts';
import { parseDistinct } from '../query/aggregate/distinct.ts';
import type { AggregateOutput, DistinctQuery } from '../query/aggregate/ast.ts';
import type { ClassSchema } from '../schema/types.ts';
import { NumberOverflow, StaleSchema, type AggregateRow } from '../storage/port.ts';
import { ok, type RequestContext, type Result } from './context.ts';
import { assertGenericClass } from './class-access.ts';
import { parseJsonParam } from './find.ts';
import { withRegexSlot } from './limits.ts';
import { renderObject } from './render.ts';

/**
 * Rows one aggregate or distinct may answer. A pipeline has no page size of its own (MongoDB
 * answers every row), so a pipeline answering more is refused rather than cut short.
 */
export const MAX_AGGREGATE_RESULTS = 10_000;

/** Parse's options that change nothing in Basalt's answer (index hints, replica reads, logs). */
const IGNORED = new Set(['hint', 'readPreference', 'comment']);

/**
 * GET /1/aggregate/<className>: `distinct=<key>` (with `where`) or a pipeline (`pipeline=[…]`, or
 * the stages as parameters of their own, in order), as Parse Server takes them. Master key only,
 * as in Parse Server; so no read permission filters the rows, and built-in classes are open.
 */
export async function aggregate(ctx: RequestContext, className: string, params: Readonly<Record<string, unknown>>): Promise<Result> {
  if (!ctx.auth.isMaster) throw Errors.operationForbidden('unauthorized: master key is required');
  assertGenericClass(ctx, className, 'read');
  try {
    return await answer(ctx, className, params);
  } catch (error) {
    // A stored column dropped by another process under this plan: plan again from the schema as stored.
    if (!(error instanceof StaleSchema)) throw error;
    ctx.app.schemas.invalidate();
    return answer(ctx, className, params);
  }
}

async function answer(ctx: RequestContext, className: string, params: Readonly<Record<string, unknown>>): Promise<Result> {
  const schemas = await ctx.app.schemas.all();
  const schema = schemas.get(className) ?? null;
  const schemaOf = (name: string) => schemas.get(name) ?? null;
  if (params.explain !== undefined && params.explain !== false && params.explain !== 'false') throw Errors.invalidQuery('explain is not supported.');
  const where = parseJsonParam(params.where, 'where');
  const stages = stagesOf(params);
  if (params.distinct !== undefined) {
    if (stages !== null) throw Errors.invalidQuery('distinct cannot be combined with pipeline stages.');
    const query = parseDistinct(params.distinct, where, schema, schemaOf);
    if (!schema) return ok({ results: [] });
    const run = () => ctx.app.store.distinct(className, query, MAX_AGGREGATE_RESULTS);
    const values = query.regex ? await withRegexSlot(ctx, run) : await run();
    if (values.length > MAX_AGGREGATE_RESULTS) throw Errors.invalidQuery(`distinct answers at most ${MAX_AGGREGATE_RESULTS} values: narrow it with where.`);
    return ok({ results: values.map((value) => distinctValue(query, value)) });
  }
  // A where beside a pipeline filters first, as the JS SDK's query.aggregate() puts it.
  if (where !== undefined && where !== null && !isPlainObject(where)) throw Errors.invalidQuery('where must be a JSON object.');
  const filters = isPlainObject(where) && Object.keys(where).length > 0;
  const pipeline = filters ? [{ $match: where }, ...(stages ?? [])] : (stages ?? []);
  const plan = parsePipeline(pipeline, schema, schemaOf);
  if (!schema) return ok({ results: [] });
  const run = () =>
    ctx.app.store.aggregate(className, plan, MAX_AGGREGATE_RESULTS).catch((error: unknown) => {
      if (error instanceof NumberOverflow) throw Errors.invalidQuery('A $sum or $avg of this pipeline goes past the largest number (about 1.8e308).');
      throw error;
    });
  const rows = plan.regex ? await withRegexSlot(ctx, run) : await run();
  if (rows.length > MAX_AGGREGATE_RESULTS) throw Errors.invalidQuery(`An aggregate answers at most ${MAX_AGGREGATE_RESULTS} results: add a $limit or a $match.`);
  return ok({ results: rows.map((row) => renderRow(ctx, schema, plan.output, row)) });
}

/**
 * The pipeline of a request, or null when it names none: `pipeline` (an array of stages, or an
 * object of stages in order, as Parse Server reads it), else the parameters that are stages.
 * In a URL every value is text: a stage's value is read as JSON where it is JSON.
 */
function stagesOf(params: Readonly<Record<string, unknown>>): unknown[] | null {
  if (params.pipeline !== undefined) {
    const pipeline = parseJsonParam(params.pipeline, 'pipeline');
    if (Array.isArray(pipeline)) return pipeline;
    if (isPlainObject(pipeline)) return Object.entries(pipeline).map(([name, spec]) => ({ [name]: spec }));
    throw Errors.invalidQuery('pipeline must be an array of stages.');
  }
  const stages = Object.entries(params)
    .filter(([name]) => name !== 'where' && name !== 'distinct' && name !== 'explain' && !IGNORED.has(name) && !name.startsWith('_'))
    .map(([name, spec]) => ({ [name]: typeof spec === 'string' ? jsonOrText(spec) : spec }));
  return stages.length > 0 ? stages : null;
}

function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function renderRow(ctx: RequestContext, schema: ClassSchema, output: AggregateOutput, row: AggregateRow): Record<string, unknown> {
  if (output.kind === 'grouped') {
    // The key is answered as objectId, as Parse Server does, then the fields in their order.
    const out: Record<string, unknown> = {};
    for (const { name } of output.fields) out[name === output.keyName ? 'objectId' : name] = row.data[name] ?? null;
    return out;
  }
  const { projection } = output;
  const object = { objectId: row.objectId!, createdAt: row.createdAt!, updatedAt: row.updatedAt!, data: row.data, rperm: [], wperm: [] };
  const out = renderObject(ctx, schema, object, projection.mode === 'include' ? new Set(projection.keys) : undefined);
  if (projection.mode === 'exclude') for (const key of projection.keys) delete out[key];
  for (const column of ['objectId', 'createdAt', 'updatedAt'] as const) if (!projection[column]) delete out[column];
  return out;
}

/** A distinct value as Parse answers it: Pointers and Dates in their wire form. */
function distinctValue(query: DistinctQuery, value: unknown): unknown {
  if (query.kind !== 'scalar') return value;
  if (query.pointerClass !== null) return { __type: 'Pointer', className: query.pointerClass, objectId: value };
  switch (query.value.type) {
    case 'Boolean':
      // SQLite reads JSON true and false as 1 and 0.
      return value === true || value === 1;
    case 'Number':
      return Number(value);
    case 'Date':
      return { __type: 'Date', iso: value };
    default:
      return value;
  }
}
