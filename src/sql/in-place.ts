import type { InPlaceChange } from '../query/in-place.ts';
import type { CompiledSql } from './compiler-base.ts';
import type { Dialect } from './dialect.ts';
import { safeKey } from './params.ts';

/**
 * What an update made in one statement (sql/in-place.ts) asks of a dialect: the new document as
 * an expression of the old one. `doc` is the expression built so far; `"data"` read alone is
 * always the row's document as it was before the statement.
 */
export interface InPlaceDialect {
  /** `doc` with these fields set to the values of a JSON object bound as one parameter. */
  docWithFields(doc: string, fields: readonly string[], jsonObject: string, valuesJson: readonly string[], add: (value: string) => string): string;
  /** `doc` without these fields. */
  docWithoutFields(doc: string, fields: readonly string[], add: (value: readonly string[]) => string): string;
  /** `doc` with `field` set to the old number (0 when missing or null) plus `amount`, computed in doubles as JavaScript does. */
  docIncremented(doc: string, field: string, amount: string): string;
  /** True when the old document's `field` is missing, null or a number. */
  fieldIsNumberOrAbsent(field: string): string;
  /** The byte length of the old document's JSON text, never less than JSON.stringify's. */
  readonly docTextBytes: string;
  /**
   * The share of the size limit kept back where `docTextBytes` may fall short of JSON.stringify's
   * length (see the SQLite dialect): documents nearer the limit take the path that reads the row.
   */
  readonly sizeSlack: number;
  /** The new document's `field` as JSON text (in RETURNING). */
  fieldJson(field: string): string;
}

/**
 * `UPDATE … RETURNING` for an InPlaceChange: one statement, no row read first. A row it leaves
 * alone (missing, not writable by `write`, an increment of a non-number, a document near the size
 * limit) returns nothing; the caller then takes the path that reads the row and answers exactly.
 * Returns the incremented fields' new values as `r0`, `r1`… in the order of `change.increment`.
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
  sets.push(`"data" = ${doc}`);
  let where = `"objectId" = ${add(objectId)}`;
  if (write) where += ` AND ${d.where({ kind: 'acl', access: 'write', principals: write }, params)}`;
  for (const guard of guards) where += ` AND ${guard}`;
  const room = Math.floor(change.sizeLimit * (1 - d.sizeSlack)) - change.growth;
  where += ` AND ${d.docTextBytes} <= ${add(room)}`;
  const results = [...change.increment.keys()].map((field, i) => `${d.fieldJson(field)} AS "r${i}"`);
  const returning = results.length > 0 ? results.join(', ') : '1 AS "r"';
  return { sql: `UPDATE ${table} SET ${sets.join(', ')} WHERE ${where} RETURNING ${returning}`, params: params.values };
}
