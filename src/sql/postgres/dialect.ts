import { SqlCompiler, pageNumber, type ArmsPage, type CompiledSql } from '../compiler.ts';
import { capBox, cellsOf, type Box, type RingSearch } from '../geo.ts';
import { ident, PUBLIC_COLUMN, safeKey, schemaIndexName, type Params } from '../params.ts';
import type { ElementOf, FieldRef, FindQuery, LatLng, RegexPattern, TextIndexRef } from '../../query/ast.ts';
import type { ValueKind } from '../../query/ast.ts';
import type { Row, SqlParam } from '../params.ts';
import { toAre, wordPattern } from './regex.ts';
import { indexedWord, wordsFunctionBody } from './words.ts';
import { PostgresKeptColumns } from './kept-columns.ts';
import type { OutputType } from '../../query/aggregate/ast.ts';
import type { AggregateDialect } from '../aggregate-dialect.ts';
import type { InPlaceDialect } from '../in-place-dialect.ts';

/** Inner-query results up to this size are compared as an array (see `inSelected`). */
const ARRAY_MATCH_LIMIT = 100;

function access(path: readonly string[], asText: boolean, doc = '"data"'): string {
  if (path.length === 1) return `(${doc}${asText ? '->>' : '->'}'${path[0]}')`;
  return `(${doc}${asText ? '#>>' : '#>'}'{${path.join(',')}}')`;
}

/**
 * fieldExpr's reading of a typed field (docText, docNumber, docBoolean) from the document of
 * `row` (a trigger's NEW, a table alias), or of the row being read when there is none.
 */
function reading(path: readonly string[], as: ValueKind, row?: string): string {
  const text = access(path, true, row ? `${row}."data"` : undefined);
  return as === 'number' ? `(${text}::float8)` : as === 'boolean' ? `(${text}::boolean)` : text;
}

export class PostgresCompiler extends SqlCompiler implements AggregateDialect, InPlaceDialect {
  readonly name = 'postgres' as const;

  readonly docType = 'jsonb';
  readonly permsType = 'text[]';
  readonly keyType = 'text COLLATE "C"';
  override readonly supportsWritableCte = true;
  override readonly reusablePlaceholders = true;
  override readonly lateRowReads = true;
  override readonly lockClause = ' FOR UPDATE';

  explainSql(sql: string): string {
    // Planned, not run (no ANALYZE): a query's plan, without its cost or its reads.
    return `EXPLAIN (FORMAT JSON) ${sql}`;
  }
  planOf(rows: readonly Row[]): unknown {
    const plan = rows[0]?.['QUERY PLAN'];
    return typeof plan === 'string' ? JSON.parse(plan) : plan;
  }

  override unlimitedStatementsSql(): string {
    return 'SET LOCAL statement_timeout = 0';
  }
  override transactionLockSql(): string {
    return 'SELECT pg_advisory_xact_lock(hashtext($1))';
  }
  override lockTableSql(table: string): string {
    return `LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`;
  }
  override lockTableWritesSql(table: string): string {
    // Conflicts with the ROW EXCLUSIVE lock every INSERT, UPDATE and DELETE takes, not with reads.
    return `LOCK TABLE ${table} IN SHARE ROW EXCLUSIVE MODE`;
  }
  permsIndex(indexName: string, table: string): string | null {
    return `CREATE INDEX IF NOT EXISTS "${indexName}" ON ${table} USING GIN ("_rperm")`;
  }
  override storedColumn(column: string, path: readonly string[], as: ValueKind): string {
    // Exactly fieldExpr's reading of a typed field, so the column always equals the expression.
    const type = as === 'number' ? 'float8' : as === 'boolean' ? 'boolean' : 'text COLLATE "C"';
    return `${ident(column)} ${type} GENERATED ALWAYS AS (${reading(path.map(safeKey), as)}) STORED`;
  }
  override readonly keptColumns = new PostgresKeptColumns(reading);
  // No principal is '' (ids, role names and "*" are never empty), so '' groups every list that
  // is not of one principal: those a user's page tests one by one.
  override readonly readerKey = `(CASE WHEN cardinality("_rperm") = 1 THEN "_rperm"[1] ELSE '' END)`;
  // Carried, not keys: they take no part in the order, and a count or a filter of the index reads
  // the list, or whether "*" is on it, from the entry (an index-only scan) instead of from the row.
  override readonly storedIndexInclude = ` INCLUDE ("_rperm", ${ident(PUBLIC_COLUMN)})`;
  // Testing `&&` unpacks the list of each entry (about 100 ns); reading a boolean costs nothing.
  override readonly publicColumn = `${ident(PUBLIC_COLUMN)} boolean GENERATED ALWAYS AS ("_rperm" && '{*}'::text[]) STORED`;
  override afterRewriteSql(table: string): string {
    return `VACUUM (ANALYZE) ${table}`;
  }
  override changesSinceAnalyzeSql(): string {
    return 'SELECT c.reltuples AS "rows", s.n_mod_since_analyze AS "changed" FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.oid = $1::regclass';
  }
  override keepStatisticsSql(table: string): string {
    // Another process vacuuming the table already: leave it to that one rather than wait.
    return `VACUUM (ANALYZE, SKIP_LOCKED) ${table}`;
  }
  override readonly onlineIndexKeyword = ' CONCURRENTLY';
  override invalidIndexSql(): string {
    return 'SELECT 1 AS "invalid" FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2 AND NOT i.indisvalid';
  }
  override indexScansSql(): string {
    return 'SELECT indexrelname AS "name", idx_scan AS "scans" FROM pg_stat_user_indexes WHERE schemaname = $1 AND relname = $2';
  }
  override indexExpr(expr: string, descending: boolean): string {
    return `(${expr}) ${this.orderDirection(descending)}`;
  }
  indexExists(qualified: string): { sql: string; params: string[] } {
    return { sql: 'SELECT 1 AS "found" WHERE to_regclass($1) IS NOT NULL', params: [qualified] };
  }
  renameIndex(qualified: string, name: string): string[] {
    return [`ALTER INDEX ${qualified} RENAME TO ${ident(name)}`];
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
    return reading(path, 'text');
  }
  docNumber(path: readonly string[]): string {
    return reading(path, 'number');
  }
  docBoolean(path: readonly string[]): string {
    return reading(path, 'boolean');
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
  override cellIn(cell: string, cells: readonly number[], params: Params): string {
    // One array parameter: the text, and so the prepared statement, stays the same however many
    // cells a box spans.
    return `${cell} = ANY (${params.add(cells.map(String))}::float8[])`;
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
  textIndexMatch(index: TextIndexRef, expr: string, words: readonly string[], params: Params): string {
    // The expression of the index (createTextIndex), so that the GIN index answers @>.
    return `${params.table(schemaIndexName(index.className, index.name))}(${expr}) @> ${params.add(words.map(indexedWord))}::text[]`;
  }
  createTextIndex(index: TextIndexRef, field: FieldRef, qualify: (name: string) => string): string[] {
    // The function has the index's name (functions and indexes do not share names), and is made
    // with its index: a server whose Unicode tables differ never changes the function an
    // existing index was built with.
    const name = schemaIndexName(index.className, index.name);
    return [
      `CREATE OR REPLACE FUNCTION ${qualify(name)}(text) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS ${wordsFunctionBody()}`,
      `CREATE INDEX IF NOT EXISTS ${ident(name)} ON ${qualify(index.className)} USING GIN (${qualify(name)}(${this.fieldExpr(field, 'text')}))`,
    ];
  }
  dropTextIndex(index: TextIndexRef, qualify: (name: string) => string): string[] {
    const name = qualify(schemaIndexName(index.className, index.name));
    return [`DROP INDEX IF EXISTS ${name}`, `DROP FUNCTION IF EXISTS ${name}(text)`];
  }
  override inSelected(expr: string, subSelect: string, limit: number): string {
    // `IN (SELECT … LIMIT n)` is planned as a semi join. Where the outer query walks an index in
    // its order and stops at its own limit (the common `$inQuery` page), the only such join that
    // keeps the order is a nested loop, which reads the field out of each row's document again
    // for every inner value: ten inner values cost ten reads per row. As an array, the inner
    // query runs once, each row's field is read once and compared with the values in turn, and an
    // index on the field can still serve `= ANY`. The comparisons grow with the array, so larger
    // inner limits keep the semi join, which the planner can hash.
    if (limit > ARRAY_MATCH_LIMIT) return super.inSelected(expr, subSelect, limit);
    return `${expr} = ANY (ARRAY(${subSelect}))`;
  }
  protected override armsPage(arms: ArmsPage, rest: () => string): string {
    // One index read per inner value, each stopping after `rows` rows. The arms read ids only,
    // which an index carrying the permission list answers without the rows (an index-only scan);
    // only the page's rows are then read, by primary key.
    const arm = `SELECT "objectId" FROM ${arms.table} WHERE ${arms.field} = "_o"."_v" AND (${rest()}) ORDER BY ${arms.order} LIMIT ${arms.rows}`;
    const ids = `SELECT "_a"."objectId" FROM "_o" CROSS JOIN LATERAL (${arm}) AS "_a" ORDER BY ${arms.order} ${arms.page}`;
    return `SELECT "objectId", "createdAt", "updatedAt", "data" FROM ${arms.table} WHERE "objectId" = ANY (ARRAY(${ids}))`;
  }
  protected override walkFilter(test: string): string {
    // A plan made once does not know the values, and counts `_rperm && $1` and the field's
    // `= ANY` as matching about 1% of the rows each: it would read both indexes whole (the GIN
    // index for "*" lists every public row) and sort. Inside CASE no index serves the test and
    // its share is unknown, so the plan walks the primary key in order and stops at the page,
    // the walk this half stands for.
    return `CASE WHEN ${test} THEN true END`;
  }
  /**
   * A nearest-first page (sql/geo.ts) as one ring, read again for each radius in turn until one
   * holds `rows` rows. The base form writes every ring out, and PostgreSQL sets up the plan of
   * each of them (eight index scans, sorts and limits, with their expressions) on every run,
   * read or not: a third of the statement's cost. Here the ring is planned once and its box
   * and radius are subscripts of array parameters by ring number: a nested loop over the ring
   * numbers, in order, reads each ring afresh (the CTE inside LATERAL is evaluated again for
   * each), a ring that is not full returns nothing, and the LIMIT of `rows` stops the loop at
   * the first full ring (the last ring returns what it holds). A ring's cells are a slice of
   * the cells of all of them, one index seek each, as in the base form. Boxes that the base form
   * writes otherwise (a range of cells, every longitude, across the antimeridian, the whole
   * sphere) keep it.
   */
  protected override ringSelect(table: (className: string) => string, className: string, query: FindQuery, search: RingSearch): CompiledSql {
    const { node, rest, radii, rows } = search;
    const rings: { box: Box & { longitudes: { west: number; east: number } }; from: number; to: number }[] = [];
    for (const radians of radii) {
      const box = capBox(node.point, radians);
      const cells = box && cellsOf(box);
      if (!box?.longitudes || box.longitudes.west > box.longitudes.east || !cells || !('each' in cells)) return super.ringSelect(table, className, query, search);
      rings.push({ box: { ...box, longitudes: box.longitudes }, from: cells.each[0]!, to: cells.each[cells.each.length - 1]! });
    }
    const params = this.params(table);
    const ring = '"_k"."k"';
    const list = (values: readonly number[], type: 'float8' | 'int') => `(${params.add(values.map(String))}::${type}[])`;
    const ofRing = (values: readonly number[]) => `${list(values, 'float8')}[${ring}]`;
    const low = Math.min(...rings.map((r) => r.from));
    const high = Math.max(...rings.map((r) => r.to));
    const allCells = list(Array.from({ length: high - low + 1 }, (_, i) => low + i), 'float8');
    const cells = `${allCells}[${list(rings.map((r) => r.from - low + 1), 'int')}[${ring}]:${list(rings.map((r) => r.to - low + 1), 'int')}[${ring}]]`;
    const { latitude, longitude } = this.geoExprs(node.field);
    const distance = this.distance(latitude, longitude, node.point, params);
    const where = [
      `${this.latitudeCell(latitude)} = ANY (${cells})`,
      `${longitude} BETWEEN ${ofRing(rings.map((r) => r.box.longitudes.west))} AND ${ofRing(rings.map((r) => r.box.longitudes.east))}`,
      `${latitude} BETWEEN ${ofRing(rings.map((r) => r.box.south))} AND ${ofRing(rings.map((r) => r.box.north))}`,
      ...rest.map((part) => `(${this.where(part, params)})`),
    ].join(' AND ');
    const radius = ofRing(radii);
    const order = `"_d" ${this.orderDirection(false)}, ${this.textCollate('"objectId"')} ASC`;
    const n = pageNumber(rows);
    // The ring's nearest `rows` rows of its box; those within the radius come first in distance
    // order, so the radius is tested on them, on the distance computed once per row.
    const box = `SELECT "objectId", "createdAt", "updatedAt", "data", ${distance} AS "_d" FROM ${table(className)} WHERE ${where} ORDER BY ${order} LIMIT ${n}`;
    const full = `${ring} = ${radii.length} OR (SELECT count(*) FROM "_r" WHERE "_d" <= ${radius}) >= ${n}`;
    const read = `WITH "_r" AS MATERIALIZED (${box}) SELECT * FROM "_r" WHERE "_d" <= ${radius} AND (${full})`;
    const first = `SELECT "_y".* FROM generate_series(1, ${radii.length}) AS "_k"("k") CROSS JOIN LATERAL (${read}) AS "_y" LIMIT ${n}`;
    const sql = `SELECT "objectId", "createdAt", "updatedAt", ${this.selectDoc()} FROM (${first}) AS "_t" ORDER BY ${order} LIMIT ${pageNumber(query.limit)} OFFSET ${pageNumber(query.skip)}`;
    // One ring, a narrow box whatever the values: one plan serves every run.
    return { sql, params: params.values, planOnce: true };
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
  docWithFields(doc: string, _fields: readonly string[], jsonObject: string, _values: readonly string[], add: (value: string) => string): string {
    return `(${doc} || ${add(jsonObject)}::jsonb)`;
  }
  docWithoutFields(doc: string, fields: readonly string[], add: (value: readonly string[]) => string): string {
    return `(${doc} - ${add(fields)}::text[])`;
  }
  docIncremented(doc: string, field: string, amount: string): string {
    // In float8, not numeric: JavaScript adds doubles (0.1 + 0.2 is 0.30000000000000004), and
    // to_jsonb writes a float8 as its shortest exact text, the digits JSON.stringify writes.
    return `jsonb_set(${doc}, '{${safeKey(field)}}', to_jsonb(coalesce(("data"->>'${safeKey(field)}')::float8, 0) + ${amount}::float8))`;
  }
  docAppended(doc: string, field: string, values: readonly string[], add: (value: string) => string): string {
    const old = `"data"->'${safeKey(field)}'`;
    return `jsonb_set(${doc}, '{${safeKey(field)}}', (CASE WHEN jsonb_typeof(${old}) = 'array' THEN ${old} ELSE '[]'::jsonb END) || ${add(`[${values.join(',')}]`)}::jsonb)`;
  }
  fieldIsArrayOrAbsent(field: string): string {
    return `coalesce(jsonb_typeof("data"->'${safeKey(field)}') IN ('array', 'null'), true)`;
  }
  fieldIsNumberOrAbsent(field: string): string {
    // A number past 1e300 is left to the path that reads the row (which lets a sum overflow as
    // JavaScript does): here it would fail the statement. CASE keeps the cast from text away
    // from values that are not numbers.
    const value = `"data"->'${safeKey(field)}'`;
    return `CASE jsonb_typeof(${value}) WHEN 'number' THEN abs((${value})::float8) < 1e300 WHEN 'null' THEN true ELSE ${value} IS NULL END`;
  }
  // jsonb's text puts a space after every ":" and ",", and writes numbers without exponents:
  // never shorter than JSON.stringify's text of the same document.
  readonly docTextBytes = 'octet_length("data"::text)';
  readonly sizeSlack = 0;
  fieldJson(field: string): string {
    return `("data"->'${safeKey(field)}')::text`;
  }
  selectByKeys(columns: string, table: string, column: string, placeholder: string): string {
    return `SELECT ${columns} FROM ${table} WHERE "${column}" = ANY(${placeholder}::text[])`;
  }
  permsParam(placeholder: string): string {
    return `${placeholder}::text[]`;
  }
  selectDoc(): string {
    // As text: a document sent to the client as stored is then never parsed (storage/stored-row.ts).
    return '"data"::text AS "data"';
  }
  selectPerms(column: '_rperm' | '_wperm'): string {
    return `"${column}"`;
  }
  orderDirection(descending: boolean): string {
    // Match SQLite and Parse: missing values sort first ascending and last descending.
    return descending ? 'DESC NULLS LAST' : 'ASC NULLS FIRST';
  }
  jsonObject(fields: readonly (readonly [string, string])[]): string {
    return `jsonb_build_object(${fields.map(([name, expr]) => `'${safeKey(name)}', ${expr}`).join(', ')})`;
  }
  jsonValue(expr: string, type: OutputType): string {
    if (type === 'Date') return `CASE WHEN ${expr} IS NULL THEN NULL ELSE jsonb_build_object('__type', 'Date', 'iso', ${expr}) END`;
    return expr;
  }
  sumOf(expr: string): string {
    return `COALESCE(sum(${expr}), 0)`;
  }
  projectDoc(doc: string, keys: readonly string[], keep: boolean): string {
    if (keys.length === 0) return keep ? `'{}'::jsonb` : doc;
    const list = keys.map((key) => `'${safeKey(key)}'`).join(', ');
    if (!keep) return `(${doc} - ARRAY[${list}]::text[])`;
    return `(SELECT COALESCE(jsonb_object_agg("key", "value"), '{}'::jsonb) FROM jsonb_each(${doc}) WHERE "key" IN (${list}))`;
  }
  jsonText(expr: string): string {
    return `(${expr})::text`;
  }
  jsonTextAt(path: readonly string[]): string {
    const value = access(path.map(safeKey), false);
    return `(CASE WHEN jsonb_typeof(${value}) <> 'null' THEN ${value}::text END)`;
  }
  elementsAt(path: readonly string[]): { join: string; text: string } {
    const array = access(path.map(safeKey), false);
    const join = `CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(${array}) = 'array' THEN ${array} ELSE '[]'::jsonb END) AS "_e"("v")`;
    return { join, text: `(CASE WHEN jsonb_typeof("_e"."v") <> 'null' THEN "_e"."v"::text END)` };
  }
}

export const postgresDialect = new PostgresCompiler();
