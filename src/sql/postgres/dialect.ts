import { SqlCompiler } from '../compiler.ts';
import { safeKey, type Params } from '../params.ts';
import type { ValueKind } from '../../query/ast.ts';
import type { SqlParam } from '../../storage/driver.ts';

function access(path: readonly string[], asText: boolean): string {
  if (path.length === 1) return `("data"${asText ? '->>' : '->'}'${path[0]}')`;
  return `("data"${asText ? '#>>' : '#>'}'{${path.join(',')}}')`;
}

export class PostgresCompiler extends SqlCompiler {
  readonly name = 'postgres' as const;

  readonly docType = 'jsonb';
  readonly permsType = 'text[]';
  readonly keyType = 'text COLLATE "C"';
  override readonly lockClause = ' FOR UPDATE';

  override transactionLockSql(): string {
    return 'SELECT pg_advisory_xact_lock(hashtext($1))';
  }
  override lockTableSql(table: string): string {
    return `LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`;
  }
  permsIndex(indexName: string, table: string): string | null {
    return `CREATE INDEX IF NOT EXISTS "${indexName}" ON ${table} USING GIN ("_rperm")`;
  }
  override indexExpr(expr: string, descending: boolean): string {
    return `(${expr}) ${this.orderDirection(descending)}`;
  }
  qualifyIndex(namespace: string | null, indexName: string): string {
    return namespace ? `"${namespace}"."${indexName}"` : `"${indexName}"`;
  }
  removeKey(doc: string, key: string): string {
    return `(${doc} - '${safeKey(key)}')`;
  }
  placeholder(index: number): string {
    return `$${index}`;
  }
  override textCollate(expr: string): string {
    return `(${expr} COLLATE "C")`;
  }
  docText(path: readonly string[]): string {
    return access(path, true);
  }
  docNumber(path: readonly string[]): string {
    return `(${access(path, true)}::float8)`;
  }
  docBoolean(path: readonly string[]): string {
    return `(${access(path, true)}::boolean)`;
  }
  docJson(path: readonly string[]): string {
    return access(path, false);
  }
  arrayContains(path: readonly string[], value: SqlParam, _as: ValueKind, params: Params, subKey?: string): string {
    const element = subKey ? { [subKey]: value } : value;
    return `${access(path, false)} @> ${params.add(JSON.stringify([element]))}::jsonb`;
  }
  jsonEquals(path: readonly string[], json: string, params: Params): string {
    return `${access(path, false)} = ${params.add(json)}::jsonb`;
  }
  acl(column: '_rperm' | '_wperm', principals: readonly string[], params: Params): string {
    return `"${column}" && ${params.add(principals)}::text[]`;
  }
  jsonParam(placeholder: string): string {
    return `${placeholder}::jsonb`;
  }
  permsParam(placeholder: string): string {
    return `${placeholder}::text[]`;
  }
  selectDoc(): string {
    return '"data"';
  }
  selectPerms(column: '_rperm' | '_wperm'): string {
    return `"${column}"`;
  }
  orderDirection(descending: boolean): string {
    // Match SQLite and Parse: missing values sort first ascending and last descending.
    return descending ? 'DESC NULLS LAST' : 'ASC NULLS FIRST';
  }
}

export const postgresDialect = new PostgresCompiler();
