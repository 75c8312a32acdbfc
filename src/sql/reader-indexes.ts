import type { SqlExecutor } from './driver.ts';
import { readerIndexName } from './params.ts';
import type { ReaderIndexRecord } from './compiler-ddl.ts';

/**
 * The reader indexes the class's schema indexes lack (those not in `readerIndexes` that would
 * have one: `DdlCompiler.readerIndexKeys`), each as its schema index's name and the statement
 * making it. `online`: to be built while writes go on, outside any transaction.
 */
export async function missingReaderIndexes(ex: SqlExecutor, table: string, className: string, schema: ReaderIndexRecord, online: boolean): Promise<{ index: string; sql: string }[]> {
  const d = ex.dialect;
  const has = new Set(schema.readerIndexes ?? []);
  const missing: { index: string; sql: string }[] = [];
  for (const indexName of Object.keys(schema.indexes ?? {})) {
    if (has.has(indexName)) continue;
    const keys = await d.readerIndexKeys(ex, table, className, indexName, schema);
    if (keys) missing.push({ index: indexName, sql: d.readerIndexSql(table, readerIndexName(className, indexName), keys, online)! });
  }
  return missing;
}

/**
 * App migrations 11 and 12: beside every schema index that would have one today, its reader index
 * (`DdlCompiler.readerKey`), which a user's page reads from then on: over the stored columns on
 * PostgreSQL (11), over the index's own keys as SQLite recorded them on SQLite (12; 11 makes the
 * same there, and 12 then finds nothing). Every class, private objects or not, as the indexes
 * were made before reader indexes waited for them (schema/types.ts, `privateRows`). Built inside
 * the migration's transaction, while the app is first opened: about as long as building the
 * schema indexes took.
 */
export async function addReaderIndexes(tx: SqlExecutor, table: (name: string) => string): Promise<void> {
  const d = tx.dialect;
  if (!d.readerKey) return;
  const rows = await tx.all(`SELECT "className", "schema" FROM ${table('_SCHEMA')}`);
  for (const row of rows) {
    const className = String(row.className);
    const schema = JSON.parse(String(row.schema)) as ReaderIndexRecord & Record<string, unknown>;
    const missing = await missingReaderIndexes(tx, table(className), className, schema, false);
    if (missing.length === 0) continue;
    for (const { sql } of missing) await tx.run(sql);
    // Recorded as the schema store records the reader indexes it makes, in the indexes' order.
    const readers = new Set([...(schema.readerIndexes ?? []), ...missing.map(({ index }) => index)]);
    const recorded = { ...schema, readerIndexes: Object.keys(schema.indexes ?? {}).filter((name) => readers.has(name)) };
    await tx.run(`UPDATE ${table('_SCHEMA')} SET "schema" = ${d.placeholder(1)} WHERE "className" = ${d.placeholder(2)}`, [JSON.stringify(recorded), className]);
  }
}
