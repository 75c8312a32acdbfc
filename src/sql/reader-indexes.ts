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
 * App migration 11: beside every schema index over stored columns, its reader index
 * (`DdlCompiler.readerKey`), which a user's page reads from then on. Nothing where the dialect
 * has no reader key, or no stored columns (SQLite: see migration 12). Built inside the migration's transaction, while the app is first
 * opened: about as long as building the schema index itself took.
 */
export async function addReaderIndexes(tx: SqlExecutor, table: (name: string) => string): Promise<void> {
  const d = tx.dialect;
  if (!d.readerKey) return;
  const rows = await tx.all(`SELECT "className", "schema" FROM ${table('_SCHEMA')}`);
  for (const row of rows) {
    const className = String(row.className);
    const schema = JSON.parse(String(row.schema)) as ReaderIndexRecord;
    const stored = Object.entries(schema.storedIndexes ?? {});
    if (stored.length === 0) continue;
    for (const [indexName, columns] of stored) {
      const descending = Object.values(schema.indexes?.[indexName] ?? {}).map((direction) => direction === -1);
      const keys = d.storedIndexKeys(columns.map((column) => column.column), descending);
      await tx.run(d.readerIndexSql(table(className), readerIndexName(className, indexName), keys, false)!);
    }
    // Recorded as the schema store records the reader indexes it makes (schema/types.ts).
    const recorded = { ...schema, readerIndexes: stored.map(([indexName]) => indexName) };
    await tx.run(`UPDATE ${table('_SCHEMA')} SET "schema" = ${d.placeholder(1)} WHERE "className" = ${d.placeholder(2)}`, [JSON.stringify(recorded), className]);
  }
}
