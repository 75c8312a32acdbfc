import { SqlCompiler } from '../compiler.ts';
import { safeKey, type Params } from '../params.ts';
import type { ValueKind } from '../../query/ast.ts';
import type { SqlParam } from '../../storage/driver.ts';

function jsonPath(path: readonly string[]): string {
  return `'$.${path.join('.')}'`;
}

export class SqliteCompiler extends SqlCompiler {
  readonly name = 'sqlite' as const;
  override readonly supportsReturning = true;

  readonly docType = 'BLOB';
  readonly permsType = 'TEXT';
  readonly keyType = 'TEXT';

  permsIndex(): string | null {
    return null;
  }
  qualifyIndex(_namespace: string | null, indexName: string): string {
    return `"${indexName}"`;
  }
  removeKey(doc: string, key: string): string {
    return `jsonb_remove(${doc}, '$.${safeKey(key)}')`;
  }
  placeholder(): string {
    return '?';
  }
  docText(path: readonly string[]): string {
    return `json_extract("data", ${jsonPath(path)})`;
  }
  docNumber(path: readonly string[]): string {
    return this.docText(path);
  }
  docBoolean(path: readonly string[]): string {
    return this.docText(path);
  }
  docJson(path: readonly string[]): string {
    return this.docText(path);
  }
  arrayContains(path: readonly string[], value: SqlParam, _as: ValueKind, params: Params, subKey?: string): string {
    const element = subKey ? `json_extract("value", '$.${subKey}')` : '"value"';
    return `EXISTS (SELECT 1 FROM json_each("data", ${jsonPath(path)}) WHERE ${element} = ${params.add(value)})`;
  }
  jsonEquals(path: readonly string[], json: string, params: Params): string {
    return `${this.docText(path)} = json(${params.add(json)})`;
  }
  acl(column: '_rperm' | '_wperm', principals: readonly string[], params: Params): string {
    const list = principals.map((principal) => params.add(principal)).join(', ');
    return `EXISTS (SELECT 1 FROM json_each("${column}") WHERE "value" IN (${list}))`;
  }
  jsonParam(placeholder: string): string {
    return `jsonb(${placeholder})`;
  }
  permsParam(placeholder: string): string {
    return placeholder;
  }
  selectDoc(): string {
    return 'json("data") AS "data"';
  }
  selectPerms(column: '_rperm' | '_wperm'): string {
    return `"${column}"`;
  }
  orderDirection(descending: boolean): string {
    // SQLite already sorts NULL lowest: first ascending, last descending.
    return descending ? 'DESC' : 'ASC';
  }
}

export const sqliteDialect = new SqliteCompiler();
