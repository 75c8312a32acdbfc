import type { OutputType } from '../query/aggregate/ast.ts';

/**
 * What the aggregate compiler (sql/aggregate.ts, sql/distinct.ts) asks of a dialect beyond the
 * query compiler: building JSON documents and reading JSON values as text. Each dialect class
 * implements it in its own file.
 */
export interface AggregateDialect {
  /** A JSON object of `fields`, each an SQL expression already made a JSON value (`jsonValue`). */
  jsonObject(fields: readonly (readonly [name: string, expr: string])[]): string;
  /** `expr`, read as `type`, as a JSON value of a group document: a Date in its wire form, null kept null. */
  jsonValue(expr: string, type: OutputType): string;
  /** The sum of a number over a group's rows; 0 when none holds one, as MongoDB answers. */
  sumOf(expr: string): string;
  /** The JSON document `doc` with only `keys` (`keep`) or without them; keys are checked field names. */
  projectDoc(doc: string, keys: readonly string[], keep: boolean): string;
  /** A JSON value (a document or part of one) selected as JSON text. */
  jsonText(expr: string): string;
  /** The value at `path` of the document as JSON text; NULL when it is missing or null. */
  jsonTextAt(path: readonly string[]): string;
  /**
   * The elements of the array at `path` (nothing when it holds no array): a join to add to the
   * FROM clause of the class table, and each element as JSON text (NULL for null).
   */
  elementsAt(path: readonly string[]): { readonly join: string; readonly text: string };
}
