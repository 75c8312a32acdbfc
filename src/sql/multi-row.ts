/**
 * `INSERT … VALUES (<row>)` with `count` rows, for both drivers' multi-row inserts. Placeholders
 * numbered `$1…$n` (PostgreSQL, `numbered` of them a row) are numbered on for each further row;
 * positional `?` (SQLite) bind in order as they are. Only Basalt's own single-row inserts come
 * here; their values are all bound parameters, so a `$` inside the row is always a placeholder.
 */
export function multiRowInsert(sql: string, count: number, numbered = 0): string {
  const at = sql.lastIndexOf(' VALUES (');
  if (at === -1 || !sql.endsWith(')')) throw new Error('multiRowInsert: not a single-row INSERT … VALUES (…)');
  const head = sql.slice(0, at + ' VALUES '.length);
  const row = sql.slice(at + ' VALUES '.length);
  const rowAt = (k: number) => (k === 0 || numbered === 0 ? row : row.replace(/\$(\d+)/g, (_match, n: string) => `$${Number(n) + k * numbered}`));
  return head + Array.from({ length: count }, (_, k) => rowAt(k)).join(', ');
}
