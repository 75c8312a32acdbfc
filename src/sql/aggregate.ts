import type { Accumulator, AggregateOutput, AggregatePlan, GroupLevel, RowsLevel } from '../query/aggregate/ast.ts';
import type { Dialect } from './dialect.ts';
import type { CompiledSql } from './compiler.ts';
import { pageNumber } from './compiler.ts';
import type { Params } from './params.ts';

/** A LIMIT standing for "no limit", for an OFFSET alone (SQLite has no OFFSET without LIMIT). */
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/**
 * One statement for a pipeline: each level a SELECT over the one before it (the first over the
 * class table), the last one shaped as the answer and limited to `maxRows` + 1 rows, so that
 * the caller can tell a pipeline that answers more. A group level builds its documents with the
 * dialect's JSON object function, and the levels above read them through the query compiler as
 * they read a class's `data`. Values are bound; names reach the text only as checked field
 * names. Parameters are added in text order (SQLite numbers "?" by position): a level's WHERE
 * and ORDER BY follow the text of the level below, and no select list binds anything.
 *
 * No read permission is added: the endpoint takes the master key only.
 */
export function compileAggregate(d: Dialect, table: (className: string) => string, className: string, plan: AggregatePlan, maxRows: number): CompiledSql {
  const params = d.params(table);
  const { levels, output } = plan;
  if (levels.length === 0) return { sql: rowsSql(d, params, table(className), false, emptyRows, finalSelect(d, output, null), maxRows), params: params.values };
  let from = table(className);
  let grouped = false;
  let lastGroup: GroupLevel | null = null;
  let sql = '';
  levels.forEach((level, i) => {
    const last = i === levels.length - 1;
    if (level.kind === 'rows') {
      sql = rowsSql(d, params, from, grouped, level, last ? finalSelect(d, output, lastGroup) : null, last ? maxRows : null);
    } else {
      sql = groupSql(d, from, level, last ? output : null, maxRows);
      grouped = true;
      lastGroup = level;
    }
    from = `(${sql}) AS "_l${i}"`;
  });
  return { sql, params: params.values };
}

const emptyRows: RowsLevel = { kind: 'rows', where: { kind: 'const', value: true }, order: [], skip: 0, limit: null };

/**
 * `select` is null for a level read by another (every column goes up), or the answer's columns;
 * `maxRows` is set on the last level. Objects of a class come in objectId order when the level
 * is the answer or keeps some rows only; group documents come in the order the parser gave.
 */
function rowsSql(d: Dialect, params: Params, from: string, grouped: boolean, level: RowsLevel, select: string | null, maxRows: number | null): string {
  const where = d.where(level.where, params);
  const bounded = level.skip > 0 || level.limit !== null || maxRows !== null;
  let order = '';
  if (grouped) order = level.order.map((key) => `${d.fieldExpr(key.field, key.as)} ${d.orderDirection(key.descending)}`).join(', ');
  else if (level.order.length > 0 || bounded) order = d.orderBy(level.order, params);
  let sql = `SELECT ${select ?? '*'} FROM ${from} WHERE ${where}`;
  if (order) sql += ` ORDER BY ${order}`;
  const limit = Math.min(level.limit ?? NO_LIMIT, maxRows === null ? NO_LIMIT : maxRows + 1);
  if (limit !== NO_LIMIT || level.skip > 0) sql += ` LIMIT ${pageNumber(limit)}`;
  if (level.skip > 0) sql += ` OFFSET ${pageNumber(level.skip)}`;
  return sql;
}

/** The answer's columns when the last level reads rows: an object's, or a group document's. */
function finalSelect(d: Dialect, output: AggregateOutput, lastGroup: GroupLevel | null): string {
  if (output.kind === 'documents') {
    const { mode, keys } = output.projection;
    const doc = mode === 'all' ? '"data"' : d.projectDoc('"data"', keys, mode === 'include');
    return `"objectId", "createdAt", "updatedAt", ${d.jsonText(doc)} AS "data"`;
  }
  const names = output.fields.map((field) => field.name);
  const whole = lastGroup !== null && names.length === lastGroup.accumulators.length + 1;
  return `${d.jsonText(whole ? '"data"' : d.projectDoc('"data"', names, true))} AS "data"`;
}

/**
 * One document per group. As the answer (`output` given) it holds the answered fields only and
 * the groups come in key order; read by a level above, it holds every field.
 */
function groupSql(d: Dialect, from: string, level: GroupLevel, output: AggregateOutput | null, maxRows: number): string {
  const key = level.key ? d.fieldExpr(level.key.field, level.key.as) : null;
  let fields: [string, string][] = [[level.keyName, key && level.key ? d.jsonValue(key, level.key.type) : 'NULL'], ...level.accumulators.map((accumulator): [string, string] => [accumulator.name, accumulatorSql(d, accumulator)])];
  if (output) {
    const answered = new Set(output.kind === 'grouped' ? output.fields.map((field) => field.name) : []);
    fields = fields.filter(([name]) => answered.has(name));
  }
  const doc = output ? `${d.jsonText(d.jsonObject(fields))} AS "data"` : `${d.jsonObject(fields)} AS "data"`;
  // Without a key every row is one group; MongoDB answers no group at all for no rows.
  let sql = `SELECT ${doc} FROM ${from} ${key ? `GROUP BY ${key}` : 'HAVING count(*) > 0'}`;
  if (output) {
    if (key) sql += ` ORDER BY ${key} ${d.orderDirection(false)}`;
    sql += ` LIMIT ${pageNumber(maxRows + 1)}`;
  }
  return sql;
}

function accumulatorSql(d: Dialect, accumulator: Accumulator): string {
  if (accumulator.op === 'count') return accumulator.times === 1 ? 'count(*)' : `(count(*) * (${JSON.stringify(accumulator.times)}))`;
  const { value } = accumulator;
  if (!value) return accumulator.op === 'sum' ? '0' : 'NULL';
  const expr = d.fieldExpr(value.field, value.as);
  switch (accumulator.op) {
    case 'sum':
      return d.sumOf(expr);
    case 'avg':
      return `avg(${expr})`;
    case 'min':
      return d.jsonValue(`min(${expr})`, value.type);
    case 'max':
      return d.jsonValue(`max(${expr})`, value.type);
  }
}
