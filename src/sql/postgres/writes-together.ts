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
