import type { DistinctQuery } from '../query/aggregate/ast.ts';
import type { Dialect } from './dialect.ts';
import { pageNumber, type CompiledSql } from './compiler.ts';

/**
 * `distinct`: the distinct values of a field among the rows `where` keeps, in ascending order,
 * nulls and missing values left out, at most `maxRows` + 1 of them (so that the caller can tell a
 * field with more). A typed field is read as the query compiler reads it (an index on it can
 * serve); elements of an array and values of no fixed type are compared and ordered as JSON text.
 * No read permission is added: the endpoint takes the master key only.
 */
export function compileDistinct(d: Dialect, table: (className: string) => string, className: string, query: DistinctQuery, maxRows: number): CompiledSql {
  const params = d.params(table);
  let value: string;
  let join = '';
  if (query.kind === 'scalar') {
    value = d.fieldExpr(query.value.field, query.value.as);
  } else if (query.kind === 'elements') {
    const elements = d.elementsAt(query.path);
    join = ` ${elements.join}`;
    value = d.textCollate(elements.text);
  } else {
    value = d.textCollate(d.jsonTextAt(query.path));
  }
  const where = d.where(query.where, params);
  const sql = `SELECT DISTINCT ${value} AS "_v" FROM ${table(className)}${join} WHERE (${where}) AND ${value} IS NOT NULL ORDER BY "_v" ${d.orderDirection(false)} LIMIT ${pageNumber(maxRows + 1)}`;
  return { sql, params: params.values };
}
