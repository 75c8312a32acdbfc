import { SqlCompiler } from '../compiler.ts';
import { safeKey, type Params } from '../params.ts';
import type { ElementOf, LatLng, RegexPattern } from '../../query/ast.ts';
import type { ValueKind } from '../../query/ast.ts';
import type { SqlParam } from '../../storage/driver.ts';
import { toAre, wordPattern } from './regex.ts';

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
  docChecked(path: readonly string[], as: ValueKind): string {
    // A cast of a stored string to float8 would fail the whole query: check the JSON type first.
    const type = as === 'number' ? 'number' : as === 'boolean' ? 'boolean' : 'string';
    const cast = as === 'number' ? '::float8' : as === 'boolean' ? '::boolean' : '';
    return `(CASE WHEN jsonb_typeof(${access(path, false)}) = '${type}' THEN (${access(path, true)}${cast}) END)`;
  }
  docTypeRank(path: readonly string[]): string {
    return `(CASE jsonb_typeof(${access(path, false)}) WHEN 'number' THEN 1 WHEN 'string' THEN 2 WHEN 'object' THEN 3 WHEN 'array' THEN 4 WHEN 'boolean' THEN 5 ELSE 0 END)`;
  }
  arrayContains(path: readonly string[], value: SqlParam, _as: ValueKind, params: Params, subKey?: string): string {
    const element = subKey ? { [subKey]: value } : value;
    return `${access(path, false)} @> ${params.add(JSON.stringify([element]))}::jsonb`;
  }
  arrayElements(path: readonly string[]): { from: string; element: (of: ElementOf) => string } {
    const array = access(path, false);
    const from = `jsonb_array_elements(CASE WHEN jsonb_typeof(${array}) = 'array' THEN ${array} ELSE '[]'::jsonb END) AS "e"("v")`;
    const element = (of: ElementOf) => {
      if (of.subKey) return `(CASE WHEN jsonb_typeof("e"."v") = 'object' THEN ("e"."v"->>'${safeKey(of.subKey)}') END) COLLATE "C"`;
      if (of.as === 'number') return `(CASE WHEN jsonb_typeof("e"."v") = 'number' THEN ("e"."v" #>> '{}')::float8 END)`;
      if (of.as === 'boolean') return `(CASE WHEN jsonb_typeof("e"."v") = 'boolean' THEN ("e"."v" #>> '{}')::boolean END)`;
      return `(CASE WHEN jsonb_typeof("e"."v") = 'string' THEN ("e"."v" #>> '{}') END) COLLATE "C"`;
    };
    return { from, element };
  }
  regexMatch(expr: string, pattern: RegexPattern, params: Params): string {
    // Collated "C" so that ARE's own classes and case folding stay ASCII: regex.ts spells out the rest.
    return `(${expr}) COLLATE "C" ~ ${params.add(toAre(pattern))}`;
  }
  pointInPolygon(latitude: string, longitude: string, polygon: readonly LatLng[], params: Params): string {
    const text = `(${polygon.map((p) => `(${p.longitude},${p.latitude})`).join(',')})`;
    return `point(${longitude}, ${latitude}) <@ ${params.add(text)}::polygon`;
  }
  polygonContains(path: readonly string[], point: LatLng, params: Params): string {
    const coordinates = access([...path, 'coordinates'], false);
    const polygon = `(SELECT ('(' || string_agg('(' || ("c"->>1) || ',' || ("c"->>0) || ')', ',' ORDER BY "o") || ')')::polygon FROM jsonb_array_elements(${coordinates}) WITH ORDINALITY AS "t"("c", "o"))`;
    return `${polygon} @> point(${params.add(point.longitude)}, ${params.add(point.latitude)})`;
  }
  textMatch(expr: string, words: readonly string[], params: Params): string {
    // Not to_tsvector: its parser and lower() follow the database's locale and read e-mail
    // addresses, URLs and numbers as single tokens, so SQLite could not answer alike.
    return words.map((word) => `(${expr}) COLLATE "C" ~ ${params.add(wordPattern(word))}`).join(' AND ');
  }
  protected readonly leastFunction = 'LEAST';
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
