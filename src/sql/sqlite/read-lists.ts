import type { SqlExecutor } from '../driver.ts';
import { ident, objectName } from '../params.ts';

/**
 * Cheap read permission lists on SQLite: what lets a user's page skip the rows it may not read
 * without opening them.
 *
 * **One spelling.** The permission filter (dialect.ts `acl`) compares a list without a comma (a
 * list of one principal, or none) by its whole text, and opens only lists with a comma with
 * json_each, which costs a user's page more than the rest of its walk. That is exact only if every
 * list without a comma is spelled the one way: as `json_group_array` writes its elements, which
 * for a principal with nothing to escape is also what JSON.stringify writes. The server writes
 * that spelling; the trigger below rewrites any other that an UPDATE sets (a tool, a hand edit),
 * and refuses such a list that is not JSON; migration 10 rewrites what was there before. Rows
 * INSERTed by hand in another spelling are not rewritten, and their list grants nothing: an
 * AFTER INSERT trigger, even one that does nothing, cost every create 1.5–2 µs in SQLite and a
 * tenth of the API's creates a second (docs/architecture.md, "Query plans").
 *
 * **In the createdAt index.** The built-in index is `("createdAt" DESC, "objectId", "_rperm")`:
 * in the order of a newest-first page with its tie-break (SqlCompiler.orderBy), and holding the
 * list, so the rows the filter turns down are never read from the table. An oldest-first page
 * walks it backwards and sorts only the ties of one `createdAt`.
 */
export const CREATED_AT_INDEX_COLUMNS = '"createdAt" DESC, "objectId", "_rperm"';

/** The list's elements, written again in the one spelling. */
const respelled = (list: string) => `(SELECT json_group_array("value") FROM json_each(${list}))`;

/** A list without a comma that is not in the one spelling. */
const misspelled = (list: string) => `instr(${list}, ',') = 0 AND ${list} <> ${respelled(list)}`;

/**
 * The trigger of a class table that keeps its `_rperm` lists in the one spelling. Named with "::",
 * which no text index's triggers (`<class>_idx:<index>:<event>`) can hold: index names are not empty.
 */
export function readListTriggers(className: string, table: string): string[] {
  const fix = `UPDATE ${table} SET "_rperm" = ${respelled('NEW."_rperm"')} WHERE rowid = NEW.rowid`;
  return [`CREATE TRIGGER IF NOT EXISTS ${ident(`${className}::rperm:update`)} AFTER UPDATE OF "_rperm" ON ${table} WHEN ${misspelled('NEW."_rperm"')} BEGIN ${fix}; END`];
}

/**
 * App migration 10: in every class table, lists without a comma are written again where their
 * spelling differs (one that is not JSON is left as it is, and then grants nothing), the trigger
 * is made, and the createdAt index is built again with its new columns (about a second per
 * million rows, once, when the app is first opened).
 */
export async function migrateReadLists(tx: SqlExecutor, table: (name: string) => string): Promise<void> {
  const rows = await tx.all(`SELECT "name" FROM sqlite_master WHERE "type" = 'table' AND "name" IN (SELECT "className" FROM ${table('_SCHEMA')})`);
  for (const row of rows) {
    const className = String(row.name);
    const classTable = table(className);
    await tx.run(`UPDATE ${classTable} SET "_rperm" = ${respelled('"_rperm"')} WHERE json_valid("_rperm", 2) AND ${misspelled('"_rperm"')}`);
    for (const statement of readListTriggers(className, classTable)) await tx.run(statement);
    const index = ident(objectName(className, 'createdAt'));
    await tx.run(`DROP INDEX IF EXISTS ${index}`);
    await tx.run(`CREATE INDEX ${index} ON ${classTable} (${CREATED_AT_INDEX_COLUMNS})`);
  }
}
