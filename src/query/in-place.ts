/** The fields whose new value the statement returns, in the order of its results `r0`, `r1`… */
export function returnedFields(change: InPlaceChange): string[] {
  return [...change.increment.keys(), ...change.append.keys()];
}

/**
 * An update the database can make in one statement, without the row being read first
 * (rest/write/in-place.ts decides when): top-level fields set, removed or incremented, nothing
 * else. Field names are plain (`[A-Za-z0-9_]+`); every field appears in one list at most.
 */
export interface InPlaceChange {
  readonly updatedAt: string;
  /** Field → its new value's JSON text, as the document stores it. */
  readonly set: ReadonlyMap<string, string>;
  readonly remove: readonly string[];
  /** Field → amount; a missing or null field starts from 0, any other non-number refuses the statement. */
  readonly increment: ReadonlyMap<string, number>;
  /** Field → the JSON texts of the values to append (Add); a missing or null field starts empty, any other non-array refuses the statement. */
  readonly append: ReadonlyMap<string, readonly string[]>;
  /**
   * At most how many bytes the change adds to the document's JSON, and the most the result may
   * hold: a row whose document could pass the limit is left alone (the statement changes no row).
   */
  readonly growth: number;
  readonly sizeLimit: number;
}
