import { asColumns, castOf, valuesList } from './values-list.ts';

/**
 * One statement for `count` runs of the same one-row write with `RETURNING` (an `UPDATE … WHERE
 * "objectId" = …`), each with its own values: every run becomes a data-modifying `WITH` step of
 * its own, its placeholders numbered on by `numbered` for each further step, and the steps' rows
 * come back together, each marked with its step's index in `"_i"`. One statement is one snapshot
 * and one commit, where `count` statements cost `count` commits.
 *
 * PostgreSQL runs the steps of one statement on one snapshot: two steps must never change the same
 * row (only one of the two changes would be made), so the caller gives each step a different row.
 * Only Basalt's own statements come here; their values are all bound parameters, so a `$` in the
 * text is always a placeholder.
 */
export function writesTogether(sql: string, count: number, numbered: number): string {
  if (!/^(UPDATE|DELETE|INSERT)\b/.test(sql) || !/\bRETURNING\b/.test(sql)) throw new Error('writesTogether: not a write with RETURNING');
  const steps: string[] = [];
  const rows: string[] = [];
  for (let k = 0; k < count; k++) {
    const text = k === 0 ? sql : sql.replace(/\$(\d+)/g, (_match, n: string) => `$${Number(n) + k * numbered}`);
    steps.push(`"w${k}" AS (${text})`);
    rows.push(`SELECT ${k} AS "_i", * FROM "w${k}"`);
  }
  return `WITH ${steps.join(', ')} ${rows.join(' UNION ALL ')}`;
}

/**
 * The same `count` writes as one `UPDATE … FROM (VALUES …)` when the write is an in-place update
 * of one object (`UPDATE <table> SET … WHERE "objectId" = … RETURNING …`, sql/in-place.ts): each
 * write is a row of values, joined to its object by its key, and the rows returned carry the
 * write's index in `"_i"`. PostgreSQL runs one update over all of them, where the steps of
 * `writesTogether` each are a statement of their own to plan and run: under `pgbench` 16 updates
 * of an indexed number took 90–94 µs of PostgreSQL's time each, against 128–143 µs as steps.
 * Null for any other statement.
 *
 * Each placeholder becomes a column of the values, typed by its cast in the text (`$2::float8`)
 * or, without one, by the first write's value (a number, a list, or text). `first`: that write's
 * values. As with `writesTogether`, no two writes may change one row.
 */
export function writesFromValues(sql: string, count: number, numbered: number, first: readonly unknown[]): string | null {
  const match = /^UPDATE (\S+) SET (.+?) WHERE ("objectId" = \$\d+(?!\d).*) RETURNING (.+)$/s.exec(sql);
  if (!match) return null;
  const [, table, sets, where, returning] = match as unknown as [string, string, string, string, string];
  const types = Array.from({ length: numbered }, (_, i) => placeholderType(sql, i + 1, first[i]));
  return `UPDATE ${table} SET ${asColumns(sets)} FROM ${valuesList(types, count)} WHERE ${asColumns(where)} RETURNING "v"."_i" AS "_i", ${asColumns(returning)}`;
}

function placeholderType(sql: string, n: number, value: unknown): string {
  const cast = castOf(sql, n);
  if (cast) return cast;
  if (typeof value === 'number') return Number.isInteger(value) ? 'int8' : 'float8';
  if (typeof value === 'boolean') return 'boolean';
  return Array.isArray(value) ? 'text[]' : 'text';
}
