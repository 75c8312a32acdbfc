import { asColumns, castOf, valuesList } from './values-list.ts';

/**
 * One statement for up to `size` runs of the same read, each with its own values: each run is a
 * row of values, and the read becomes a LATERAL subquery run once per row, its placeholders
 * reading that row's columns (`types`: see readTypes). The last placeholder, after every run's,
 * is how many of the rows are runs: a caller with fewer runs fills the rest with any run's
 * values, and those rows are filtered out before the subquery is run for them. So one text (and
 * one prepared statement) serves every number of runs up to `size`. The rows come back run by
 * run, each marked with its run's index in `"_i"`, each run's rows in the read's own order: a
 * LATERAL subquery is only ever joined by a nested loop, which reads the subquery's rows in its
 * order for each value in turn (values-list.ts).
 */
export function readsTogether(sql: string, size: number, types: readonly string[]): string {
  if (!/^\(?\s*(SELECT|WITH)\b/.test(sql)) throw new Error('readsTogether: not a read');
  const runs = `$${size * types.length + 1}::int4`;
  return `SELECT "v"."_i" AS "_i", "t".* FROM ${valuesList(types, size)} CROSS JOIN LATERAL (${asColumns(sql)}) AS "t" WHERE "v"."_i" < ${runs}`;
}

/**
 * The type each placeholder of `sql` takes as a column of readsTogether's values, where the text
 * decides it; null where the values must. The read's own statement has each type inferred from
 * where its placeholder stands, which a value of a VALUES list cannot have, so: its cast in the
 * text (`$4::text`), or int8 for a LIMIT or an OFFSET.
 */
export function fixedTypes(sql: string, numbered: number): (string | null)[] {
  return Array.from({ length: numbered }, (_, i) => {
    const n = i + 1;
    return castOf(sql, n) ?? (new RegExp(`\\b(LIMIT|OFFSET) \\$${n}(?!\\d)`).test(sql) ? 'int8' : null);
  });
}

/**
 * The types of readsTogether's values for `count` runs (`values`, run after run): those the text
 * decides (`fixed`), else by the runs' values: float8 for numbers (Basalt compares numbers as
 * float8), boolean, text[] for a list, text for the rest. Null where the runs disagree (a number
 * in one, text in another): those reads go alone.
 */
export function readTypes(fixed: readonly (string | null)[], count: number, values: readonly unknown[]): string[] | null {
  const numbered = fixed.length;
  const types: string[] = [];
  for (let i = 0; i < numbered; i++) {
    let type = fixed[i] ?? null;
    if (type === null) {
      for (let k = 0; k < count; k++) {
        const value = values[k * numbered + i];
        const own = typeof value === 'number' ? 'float8' : typeof value === 'boolean' ? 'boolean' : Array.isArray(value) ? 'text[]' : 'text';
        if (type !== null && own !== type) return null;
        type = own;
      }
    }
    types.push(type ?? 'text');
  }
  return types;
}
