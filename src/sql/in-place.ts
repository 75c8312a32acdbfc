import { returnedFields, type InPlaceChange } from '../query/in-place.ts';
import type { CompiledSql } from './compiler-base.ts';
import type { Dialect } from './dialect.ts';
import { safeKey } from './params.ts';

/**
 * `UPDATE … RETURNING` for an InPlaceChange: one statement, no row read first. A row it leaves
 * alone (missing, not writable by `write`, an increment of a non-number, a document near the size
 * limit) returns nothing; the caller then takes the path that reads the row and answers exactly.
 * Returns the new values of the incremented and appended fields as `r0`, `r1`… (`returnedFields`).
 */
export function compileInPlaceUpdate(d: Dialect, table: string, objectId: string, write: readonly string[] | null, change: InPlaceChange): CompiledSql {
  const params = d.params();
  const add = (value: string | readonly string[] | number) => params.add(value);
  const sets = [`"updatedAt" = ${add(change.updatedAt)}`];
  let doc = '"data"';
  if (change.set.size > 0) {
    const fields = [...change.set.keys()].map(safeKey);
    const object = `{${fields.map((field) => `${JSON.stringify(field)}:${change.set.get(field)}`).join(',')}}`;
    doc = d.docWithFields(doc, fields, object, [...change.set.values()], add);
  }
  if (change.remove.length > 0) doc = d.docWithoutFields(doc, change.remove.map(safeKey), add);
  const guards: string[] = [];
  for (const [field, amount] of change.increment) {
    doc = d.docIncremented(doc, safeKey(field), add(amount));
    guards.push(d.fieldIsNumberOrAbsent(field));
  }
  for (const [field, values] of change.append) {
    doc = d.docAppended(doc, safeKey(field), values, add);
    guards.push(d.fieldIsArrayOrAbsent(field));
  }
  sets.push(`"data" = ${doc}`);
  let where = `"objectId" = ${add(objectId)}`;
  if (write) where += ` AND ${d.where({ kind: 'acl', access: 'write', principals: write }, params)}`;
  for (const guard of guards) where += ` AND ${guard}`;
  const room = Math.floor(change.sizeLimit * (1 - d.sizeSlack)) - change.growth;
  where += ` AND ${d.docTextBytes} <= ${add(room)}`;
  const results = returnedFields(change).map((field, i) => `${d.fieldJson(field)} AS "r${i}"`);
  const returning = results.length > 0 ? results.join(', ') : '1 AS "r"';
  return { sql: `UPDATE ${table} SET ${sets.join(', ')} WHERE ${where} RETURNING ${returning}`, params: params.values };
}
