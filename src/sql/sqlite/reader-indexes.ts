import type { CatalogReader } from '../compiler-ddl.ts';
import { ident, schemaIndexName } from '../params.ts';
import { fieldAccess } from '../../query/fields.ts';
import type { FieldType } from '../../schema/types.ts';

/**
 * The key list of the schema index `indexName`, as its CREATE INDEX wrote it, where the index
 * would be given a reader index today (storage/sql-schema-store.ts, `expressionIndexSql`): not a
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
