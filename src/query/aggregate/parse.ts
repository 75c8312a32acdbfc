/**
 * An aggregate pipeline (a JSON array of one-key stages) → AggregatePlan. The subset compiled to
 * SQL: `$match`, `$group`, `$sort`, `$skip`, `$limit`, `$project` and `$count`; any other stage is
 * refused (102) by name. `$match` is the query language of `where` (query/parse.ts), before and
 * after `$group`.
 */
import { Errors } from '../../errors/index.ts';
import { isPlainObject } from '../../encoding/values.ts';
import type { ClassSchema } from '../../schema/types.ts';
import { and, type OrderKey, type WhereNode } from '../ast.ts';
import { fieldAccess } from '../fields.ts';
import { parseQuery } from '../parse.ts';
import type { AggregateOutput, AggregatePlan, Level, OutputType, RowsLevel } from './ast.ts';
import { parseCount, parseGroup } from './group.ts';
import { ALL_FIELDS, fieldName, parseSort, project, schemaOfShape, type Shape } from './shape.ts';

/** Stages of one pipeline: each is a level of nested SELECTs at most. */
export const MAX_STAGES = 50;
const STAGES = new Set(['$match', '$group', '$sort', '$skip', '$limit', '$project', '$count']);

/** A level of rows being gathered from consecutive `$match`, `$sort`, `$skip` and `$limit` stages. */
interface OpenRows {
  where: WhereNode[];
  order: readonly OrderKey[];
  skip: number;
  limit: number | null;
}

export function parsePipeline(pipeline: unknown, schema: ClassSchema | null, schemaOf: (className: string) => ClassSchema | null): AggregatePlan {
  if (!Array.isArray(pipeline)) throw Errors.invalidQuery('pipeline must be an array of stages.');
  if (pipeline.length > MAX_STAGES) throw Errors.invalidQuery(`A pipeline may hold at most ${MAX_STAGES} stages.`);
  const levels: Level[] = [];
  let shape: Shape = { kind: 'documents', schema, projection: ALL_FIELDS };
  let rows: OpenRows = openRows();
  let regex = false;
  const close = (beforeGroup: boolean) => {
    if (rows.where.length === 0 && rows.order.length === 0 && rows.skip === 0 && rows.limit === null) return;
    // An order matters to a group only through the rows it lets a skip or a limit keep.
    let order = beforeGroup && rows.skip === 0 && rows.limit === null ? [] : rows.order;
    // Group documents without a $sort come in key order, so that a skip or a limit keeps the same ones.
    if (order.length === 0 && !beforeGroup && shape.kind === 'grouped' && shape.keyName !== null) order = [keyOrder(shape.keyName, shape.keyType)];
    levels.push(freezeRows(rows, order));
    rows = openRows();
  };
  for (const stage of pipeline) {
    const [name, spec] = stageOf(stage);
    switch (name) {
      case '$match': {
        if (!isPlainObject(spec)) throw Errors.invalidQuery('$match needs an object: a query as `where` takes it.');
        if (rows.skip > 0 || rows.limit !== null) close(false);
        const parsed = parseQuery(renameKeys(spec, shape.kind === 'grouped', (key) => fieldName(shape, key, '$match')), schemaOfShape(shape), schemaOf);
        regex ||= parsed.regex;
        rows.where.push(parsed.where);
        break;
      }
      case '$sort':
        if (rows.skip > 0 || rows.limit !== null) close(false);
        rows.order = parseSort(shape, spec);
        break;
      case '$skip': {
        const skip = wholeNumber(spec, '$skip', 0);
        // A skip after a limit keeps the limit's rows past the skip: both fold into one level.
        if (rows.limit !== null) rows.limit = Math.max(rows.limit - skip, 0);
        rows.skip += skip;
        break;
      }
      case '$limit': {
        const limit = wholeNumber(spec, '$limit', 1);
        rows.limit = rows.limit === null ? limit : Math.min(rows.limit, limit);
        break;
      }
      case '$project':
        shape = project(shape, spec);
        break;
      case '$group':
      case '$count': {
        close(true);
        const group: { level: Level; shape: Shape } = name === '$group' ? parseGroup(shape, spec) : parseCount(shape, spec);
        levels.push(group.level);
        shape = group.shape;
        break;
      }
    }
  }
  close(false);
  return Object.freeze({ levels: Object.freeze(levels), output: outputOf(shape), regex });
}

function openRows(): OpenRows {
  return { where: [], order: [], skip: 0, limit: null };
}

function freezeRows(rows: OpenRows, order: readonly OrderKey[]): RowsLevel {
  return Object.freeze({ kind: 'rows', where: and(rows.where), order: Object.freeze([...order]), skip: rows.skip, limit: rows.limit });
}

/** A stage is an object of one key, its name (`$group`; Parse's older clients send `group`). */
function stageOf(stage: unknown): [string, unknown] {
  if (!isPlainObject(stage)) throw Errors.invalidQuery('Each pipeline stage must be an object such as {"$match": {…}}.');
  const keys = Object.keys(stage);
  if (keys.length !== 1) throw Errors.invalidQuery(`Pipeline stages should only have one key but found ${keys.map((key) => JSON.stringify(key.slice(0, 80))).join(', ') || 'none'}.`);
  const key = keys[0]!;
  const name = key.startsWith('$') ? key : `$${key}`;
  if (!STAGES.has(name)) throw Errors.invalidQuery(`Unsupported aggregate stage ${JSON.stringify(key.slice(0, 80)).slice(1, -1)}.`);
  return [name, stage[key]];
}

function wholeNumber(value: unknown, stage: string, least: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < least) throw Errors.invalidQuery(`${stage} needs a whole number of at least ${least}.`);
  return value;
}

/**
 * The `where` of a `$match` with each field key renamed as the shape names it (`_id` → the group
 * key's field), inside `$or`, `$and` and `$nor` too. Other operators keep their keys; the query
 * parser checks everything else.
 */
function renameKeys(where: unknown, grouped: boolean, rename: (key: string) => string): unknown {
  if (!isPlainObject(where)) return where;
  const renamed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(where)) {
    if (key === '$or' || key === '$and' || key === '$nor') {
      renamed[key] = Array.isArray(value) ? value.map((part) => renameKeys(part, grouped, rename)) : value;
    } else if (key === '$relatedTo' && grouped) {
      throw Errors.invalidQuery('$relatedTo reads objects of a class; a group document is not one.');
    } else if (key.startsWith('$')) {
      renamed[key] = value;
    } else {
      const name = rename(key);
      if (Object.hasOwn(renamed, name)) throw Errors.invalidQuery(`$match names ${JSON.stringify(name)} twice (as _id and objectId?).`);
      renamed[name] = value;
    }
  }
  return renamed;
}

function outputOf(shape: Shape): AggregateOutput {
  if (shape.kind === 'documents') return { kind: 'documents', projection: shape.projection };
  return { kind: 'grouped', keyName: shape.keyName, fields: shape.fields.filter((field) => field.visible).map(({ name, type }) => ({ name, type })) };
}

/** The group key of the documents below, ascending: how group documents are ordered by default. */
function keyOrder(keyName: string, keyType: OutputType): OrderKey {
  const { field, as } = fieldAccess(keyName, { type: keyType });
  return { field, as, descending: false };
}
