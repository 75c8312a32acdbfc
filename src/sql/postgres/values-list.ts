/**
 * What writesFromValues and readsTogether share: runs of one statement as the rows of a VALUES
 * list named "v", each placeholder of the statement a column of it. Only Basalt's own statements
 * come here; their values are all bound parameters, so a `$` in a text is always a placeholder.
 */

/** `count` rows of values as `"v"("p1", …, "_i")`: each row `types.length` placeholders numbered on and cast, then its index. */
export function valuesList(types: readonly string[], count: number): string {
  const numbered = types.length;
  const rows = Array.from({ length: count }, (_, k) => `(${types.map((type, i) => `$${k * numbered + i + 1}::${type}`).join(', ')}, ${k})`);
  const names = types.map((_, i) => `"p${i + 1}"`).join(', ');
  return `(VALUES ${rows.join(', ')}) AS "v"(${names}, "_i")`;
}

/** The text with each placeholder `$n` read from the column `"v"."pn"` of the values. */
export function asColumns(text: string): string {
  return text.replace(/\$(\d+)/g, (_match, n: string) => `"v"."p${n}"`);
}

/** The cast of placeholder `$n` in `sql` (`$2::float8`, `$4::text[]`), or null. */
export function castOf(sql: string, n: number): string | null {
  return new RegExp(`\\$${n}(?!\\d)::([a-z0-9_]+(?:\\[\\])?)`).exec(sql)?.[1] ?? null;
}
