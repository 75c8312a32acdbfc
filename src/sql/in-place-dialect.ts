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
  /** `doc` with the values appended to the old array `field` (an empty one when missing or null). */
  docAppended(doc: string, field: string, values: readonly string[], add: (value: string) => string): string;
  /** True when the old document's `field` is missing, null or an array. */
  fieldIsArrayOrAbsent(field: string): string;
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
