import type { SqlExecutor } from '../driver.ts';
import type { CatalogReader } from '../compiler-ddl.ts';
import { ident, readerIndexName, schemaIndexName } from '../params.ts';
import { fieldAccess } from '../../query/fields.ts';
import type { FieldType } from '../../schema/types.ts';

/** What migration 12 reads of a class's schema row. */
interface IndexRecord {
  readonly fields?: Readonly<Record<string, FieldType>>;
  readonly indexes?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly readerIndexes?: readonly string[];
}

/**
 * App migration 12 on SQLite: beside every schema index whose first key is a field read as its
 * type, its reader index (`DdlCompiler.expressionReaderIndexes`), which a user's page reads from
 * then on. The reader index takes the schema index's own keys, as SQLite recorded them when it
 * was made, led by the reader key. Built inside the migration's transaction, while the app is
 * first opened: about as long as building the schema index itself took.
 */
export async function addExpressionReaderIndexes(tx: SqlExecutor, table: (name: string) => string): Promise<void> {
  const d = tx.dialect;
  if (!d.readerKey || !d.expressionReaderIndexes) return;
  const rows = await tx.all(`SELECT "className", "schema" FROM ${table('_SCHEMA')}`);
  for (const row of rows) {
    const className = String(row.className);
    const schema = JSON.parse(String(row.schema)) as IndexRecord;
    const readers = new Set(schema.readerIndexes ?? []);
    let made = false;
    for (const [indexName, keys] of Object.entries(schema.indexes ?? {})) {
      const keyList = await eligibleKeys(tx, table(className), className, indexName, keys, schema.fields ?? {});
      if (readers.has(indexName) || keyList === null) continue;
      await tx.run(d.readerIndexSql(table(className), readerIndexName(className, indexName), [keyList], false)!);
      readers.add(indexName);
      made = true;
    }
    if (!made) continue;
    // Recorded as the schema store records the reader indexes it makes, in the indexes' order.
    const recorded = { ...schema, readerIndexes: Object.keys(schema.indexes ?? {}).filter((name) => readers.has(name)) };
    await tx.run(`UPDATE ${table('_SCHEMA')} SET "schema" = ? WHERE "className" = ?`, [JSON.stringify(recorded), className]);
  }
}

/**
 * The key list of the schema index `indexName`, as its CREATE INDEX wrote it, where the index
 * would be given a reader index today (storage/sql-schema-store.ts, `expressionReader`): not a
 * unique or text index, its first key a field of a type read plainly. Null otherwise.
 */
export async function eligibleKeys(
  tx: CatalogReader,
  table: string,
  className: string,
  indexName: string,
  keys: Readonly<Record<string, unknown>>,
  fields: Readonly<Record<string, FieldType>>,
): Promise<string | null> {
  const [first] = Object.entries(keys);
  if (!first || (first[1] !== 1 && first[1] !== -1)) return null;
  const access = fieldAccess(first[0], Object.hasOwn(fields, first[0]) ? fields[first[0]] : undefined);
  if (access.field.kind !== 'doc' || access.field.untyped || access.as === 'json') return null;
  const found = await tx.all(`SELECT "sql" FROM sqlite_master WHERE "type" = 'index' AND "name" = ?`, [schemaIndexName(className, indexName)]);
  const sql = String(found[0]?.sql ?? '');
  const opening = `INDEX ${ident(schemaIndexName(className, indexName))} ON ${table} (`;
  const at = sql.indexOf(opening);
  if (!sql.startsWith('CREATE INDEX') || at < 0 || !sql.endsWith(')')) return null;
  return sql.slice(at + opening.length, -1);
}
