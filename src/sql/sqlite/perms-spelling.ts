import type { SqlExecutor } from '../driver.ts';
import { ident } from '../params.ts';

/**
 * Read permission lists of one spelling on SQLite. The permission filter (dialect.ts `acl`)
 * compares a list without a comma (a list of one principal, or none) by its whole text, and opens
 * only lists with a comma with json_each, which costs a user's page more than the rest of its
 * walk. That is exact only if every list without a comma is spelled the one way: as
 * `json_group_array` writes its elements, which for a principal with nothing to escape is also
 * what JSON.stringify writes. The server writes that spelling; these triggers rewrite any other
 * (written by a tool, by hand, or before they existed), and refuse a list that is not JSON.
 */

/** The list's elements, written again in the one spelling. */
const respelled = (list: string) => `(SELECT json_group_array("value") FROM json_each(${list}))`;

/** A list without a comma that is not in the one spelling. */
const misspelled = (list: string) => `instr(${list}, ',') = 0 AND ${list} <> ${respelled(list)}`;

/** Triggers of a class table that keep its `_rperm` lists in the one spelling. */
export function permsSpellingTriggers(className: string, table: string): string[] {
  const fix = `UPDATE ${table} SET "_rperm" = ${respelled('NEW."_rperm"')} WHERE rowid = NEW.rowid`;
  const when = misspelled('NEW."_rperm"');
  return [
    `CREATE TRIGGER IF NOT EXISTS ${ident(`${className}:rperm:insert`)} AFTER INSERT ON ${table} WHEN ${when} BEGIN ${fix}; END`,
    `CREATE TRIGGER IF NOT EXISTS ${ident(`${className}:rperm:update`)} AFTER UPDATE OF "_rperm" ON ${table} WHEN ${when} BEGIN ${fix}; END`,
  ];
}

/**
 * App migration 10: every class table gets the triggers, and its lists without a comma are
 * written again where their spelling differs. A list that is not JSON is left as it is (it would
 * fail the rewrite); without a comma it then grants nothing.
 */
export async function respellPermissionLists(tx: SqlExecutor, table: (name: string) => string): Promise<void> {
  const rows = await tx.all(`SELECT "name" FROM sqlite_master WHERE "type" = 'table' AND "name" IN (SELECT "className" FROM ${table('_SCHEMA')})`);
  for (const row of rows) {
    const className = String(row.name);
    await tx.run(`UPDATE ${table(className)} SET "_rperm" = ${respelled('"_rperm"')} WHERE json_valid("_rperm", 2) AND ${misspelled('"_rperm"')}`);
    for (const statement of permsSpellingTriggers(className, table(className))) await tx.run(statement);
  }
}
