import type { SqlExecutor } from './driver.ts';
import { objectName, schemaIndexName } from './params.ts';

/** The schema index an older class table's `updatedAt` index becomes. */
const UPDATED_AT_INDEX = 'updatedAt_1';

/**
 * Class tables no longer get an index on `updatedAt` when they are made: every update changes
 * that column, so with the index no update could stay on its row's page (PostgreSQL's HOT
 * update) and each wrote one more index entry (docs/architecture.md "Indexes from the start").
 * Tables made before keep theirs, now listed in the class's schema as `updatedAt_1`: the scan log
 * counts a query it serves as served, and the schema API can drop it like any other index. An
 * index the schema already has on `updatedAt` makes the old one a duplicate, which goes.
 */
export async function listUpdatedAtIndexes(tx: SqlExecutor, table: (name: string) => string): Promise<void> {
  const d = tx.dialect;
  const rows = await tx.all(`SELECT "className", "schema" FROM ${table('_SCHEMA')}`);
  for (const row of rows) {
    const className = String(row.className);
    const old = objectName(className, 'updatedAt');
    const exists = d.indexExists(table(old), old);
    if ((await tx.all(exists.sql, exists.params)).length === 0) continue;
    const schema = JSON.parse(String(row.schema)) as { indexes?: Record<string, Record<string, unknown>> };
    const indexes = schema.indexes ?? {};
    if (Object.values(indexes).some((keys) => Object.keys(keys)[0] === 'updatedAt')) {
      await tx.run(`DROP INDEX IF EXISTS ${table(old)}`);
      continue;
    }
    // A schema index of that name on other fields: the old index stays as it was, unlisted.
    if (Object.hasOwn(indexes, UPDATED_AT_INDEX)) continue;
    for (const statement of d.renameIndex(table(old), schemaIndexName(className, UPDATED_AT_INDEX), table(className), '"updatedAt"')) await tx.run(statement);
    const listed = { ...schema, indexes: { ...indexes, [UPDATED_AT_INDEX]: { updatedAt: 1 } } };
    await tx.run(`UPDATE ${table('_SCHEMA')} SET "schema" = ${d.placeholder(1)} WHERE "className" = ${d.placeholder(2)}`, [JSON.stringify(listed), className]);
  }
}
