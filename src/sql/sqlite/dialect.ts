import { SqlCompiler } from '../compiler.ts';
import { safeKey, type Params } from '../params.ts';
import type { ElementOf, LatLng, RegexPattern, ValueKind } from '../../query/ast.ts';
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
  arrayContains(path: readonly string[], value: SqlParam, as: ValueKind, params: Params, subKey?: string): string {
    const { from, element } = this.arrayElements(path);
    return `EXISTS (SELECT 1 FROM ${from} WHERE ${element(subKey ? { as, subKey } : { as })} = ${params.add(value)})`;
  }
  arrayElements(path: readonly string[]): { from: string; element: (of: ElementOf) => string } {
    // json_each walks the members of an object too: only an array yields elements here.
    const from = `json_each(CASE WHEN json_type("data", ${jsonPath(path)}) = 'array' THEN json_extract("data", ${jsonPath(path)}) ELSE '[]' END)`;
    const element = (of: ElementOf) => {
      if (of.subKey) return `(CASE WHEN "type" = 'object' THEN json_extract("value", '$.${safeKey(of.subKey)}') END)`;
      if (of.as === 'number') return `(CASE WHEN "type" IN ('integer', 'real') THEN "value" END)`;
      if (of.as === 'boolean') return `(CASE WHEN "type" IN ('true', 'false') THEN "value" END)`;
      return `(CASE WHEN "type" = 'text' THEN "value" END)`;
    };
    return { from, element };
  }
  regexMatch(expr: string, pattern: RegexPattern, params: Params): string {
    // driver.ts registers regexp(); it reads JavaScript flags from a leading "(?ims)".
    const flags = `${pattern.caseInsensitive ? 'i' : ''}${pattern.multiline ? 'm' : ''}${pattern.dotAll ? 's' : ''}`;
    return `regexp(${params.add(flags ? `(?${flags})${pattern.source}` : pattern.source)}, ${expr})`;
  }
  pointInPolygon(latitude: string, longitude: string, polygon: readonly LatLng[], params: Params): string {
    return `basalt_point_in_polygon(${latitude}, ${longitude}, ${params.add(JSON.stringify(polygon.map((p) => [p.latitude, p.longitude])))}) = 1`;
  }
  polygonContains(path: readonly string[], point: LatLng, params: Params): string {
    return `basalt_point_in_polygon(${params.add(point.latitude)}, ${params.add(point.longitude)}, json_extract("data", ${jsonPath([...path, 'coordinates'])})) = 1`;
  }
  textMatch(expr: string, terms: string, _language: string | null, params: Params): string {
    return `basalt_text_match(${expr}, ${params.add(terms)}) = 1`;
  }
  protected readonly leastFunction = 'min';
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
