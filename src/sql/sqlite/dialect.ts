import { SqlCompiler } from '../compiler.ts';
import { ident, safeKey, schemaIndexName, type Params } from '../params.ts';
import type { ElementOf, FieldRef, IndexHint, LatLng, RegexPattern, TextIndexRef, ValueKind } from '../../query/ast.ts';
import { and } from '../../query/ast.ts';
import { pageNumber, type CompiledSql } from '../compiler-base.ts';
import { onlyTheOrderedRange } from '../compiler-where.ts';
import type { ReaderArms } from '../compiler-pages.ts';
import type { Row, SqlParam } from '../params.ts';
import { mayBacktrack, sqliteRegex, TIMED_REGEXP } from './regex.ts';
import { CREATED_AT_INDEX_COLUMNS, readListTriggers } from './read-lists.ts';
import type { OutputType } from '../../query/aggregate/ast.ts';
import type { AggregateDialect } from '../aggregate-dialect.ts';
import type { InPlaceDialect } from '../in-place-dialect.ts';
import type { CatalogReader, ReaderIndexRecord } from '../compiler-ddl.ts';
import { eligibleKeys } from './reader-indexes.ts';

/**
 * The JSON path of a field, as an SQL expression. A segment of digits below the top level indexes
 * an array where the value holds one and names a key otherwise, as in PostgreSQL's `#>` (and
 * MongoDB's dot notation); SQLite's path syntax tells the two apart, so the choice is made on the
 * value's type as the row is read.
 */
function jsonPath(path: readonly string[]): string {
  let literal = `$.${path[0]}`;
  let expr: string | null = null;
  const joined = () => (expr === null ? `'${literal}'` : `(${expr} || '${literal}')`);
  for (const segment of path.slice(1)) {
    if (!/^[0-9]+$/.test(segment)) {
      literal += `.${segment}`;
      continue;
    }
    const prefix = joined();
    expr = `${prefix} || CASE json_type("data", ${prefix}) WHEN 'array' THEN '[${segment}]' ELSE '."${segment}"' END`;
    literal = '';
  }
  return joined();
}

/**
 * The tokenizer of text indexes. The indexed text is already a list of words joined by spaces, so
 * only the space separates tokens: every other character, of every Unicode category, stays in
 * its word, and case folding (the same on both sides) is all FTS5 adds. Diacritics are kept.
 */
const TEXT_TOKENIZER = `unicode61 remove_diacritics 0 categories 'L* N* Co M* P* S* Z* C*' separators ' '`;

/** A principal JSON writes with no escape: its list of one has a single spelling without a comma. */
function spelledAsIs(principal: string): boolean {
  return JSON.stringify(principal).length === principal.length + 2;
}

/**
 * The FTS5 table of a text index. Its shadow tables are named "<table>_data" and so on; the
 * ":words" ending keeps those names clear of every other index's and table's.
 */
function textTable(index: TextIndexRef): string {
  return `${schemaIndexName(index.className, index.name)}:words`;
}

export class SqliteCompiler extends SqlCompiler implements AggregateDialect, InPlaceDialect {
  readonly name = 'sqlite' as const;
  override readonly supportsReturning = true;

  readonly docType = 'BLOB';
  readonly permsType = 'TEXT';
  readonly keyType = 'TEXT';
  // Measured on 100,000 points: one statement per ring runs about a third of the instructions of
  // one statement holding all of them (docs/architecture.md, "Nearest first").
  override readonly ringsInOneStatement = false;
  override readonly literalLimit = true;
  // SQLite answers a query from an index alone when the index holds every column it reads, an
  // expression on `data` included: with `_rperm` at the end, a count of a range never reads the
  // rows, and a walk in index order reads only the rows it keeps (about seven times less work
  // for a count of a thousand objects). PostgreSQL cannot read an expression index that way.
  override readonly permsInIndexes = true;

  // `INDEXED BY` makes the planner read the table through that index (a full walk of it when no
  // constraint of the query can seek it), `NOT INDEXED` through the table's own primary key.
  override readonly indexHints = true;
  override hinted(table: string, className: string, hint: IndexHint | undefined): string {
    if (!hint) return table;
    return hint.kind === 'primaryKey' ? `${table} NOT INDEXED` : `${table} INDEXED BY ${ident(schemaIndexName(className, hint.name))}`;
  }
  explainSql(sql: string): string {
    return `EXPLAIN QUERY PLAN ${sql}`;
  }
  planOf(rows: readonly Row[]): unknown {
    // `notused` is documented as meaning nothing.
    return rows.map((row) => ({ id: row.id, parent: row.parent, detail: row.detail }));
  }

  // A read list of one principal has one spelling (read-lists.ts): its text is the key, and ''
  // that of every other list (sql/compiler-pages.ts, `readerPage`). SQLite keeps no stored
  // columns, so the reader index is beside each schema index over expressions.
  override readonly readerKey = `(CASE WHEN instr("_rperm", ',') = 0 THEN "_rperm" ELSE '' END)`;
  override readonly expressionReaderIndexes = true;
  /** The schema index's own key list, as SQLite recorded it, where it leads with a typed field (reader-indexes.ts). */
  override async readerIndexKeys(ex: CatalogReader, table: string, className: string, indexName: string, schema: ReaderIndexRecord): Promise<readonly string[] | null> {
    const keys = schema.indexes?.[indexName];
    const list = keys ? await eligibleKeys(ex, table, className, indexName, keys, schema.fields ?? {}) : null;
    return list === null ? null : [list];
  }

  /**
   * A reader page's statements over the expressions the schema index reads. Each arm compares the
   * key with the principal's list of one as JSON writes it, its only spelling where nothing in
   * the principal needs escaping (else the plain page serves). A compound SELECT under ORDER BY
   * is merged from its arms, each reading the reader index in the page's order, and the merge
   * stops at the page; its ORDER BY names result columns, so each arm gives the order's keys as
   * "_k0", "_k1"… A first page reads its rows in the arms (a row is read once the index entry
   * passes, SQLite putting off the row's read until a column of the row is needed); a page past
   * a skip picks its ids first, then reads only their rows. The check for other lists reads the
   * first key of the index: '' and `["*"]` are at most `["*"]` (besides them, only lists of one
   * principal starting with a character before "*": then the page is read in full, slower, never
   * wrong).
   */
  protected override readerArms({ from, table, query, key, parts, acl, principals }: ReaderArms): CompiledSql | null {
    if (!principals.every(spelledAsIs) || query.order.some((orderKey) => orderKey.distanceFrom || orderKey.as === 'json')) return null;
    const statement = (shared: boolean): CompiledSql => {
      const params = this.params(table);
      const own = shared ? principals : principals.filter((principal) => principal !== '*');
      const restOf = () => this.where(and(parts.filter((part) => part !== acl)), params);
      const page = `LIMIT ${pageNumber(query.limit)} OFFSET ${pageNumber(query.skip)}`;
      const columns = `"objectId", "createdAt", "updatedAt", ${this.selectDoc()}`;
      let sql: string;
      let width = 4;
      if (own.length === 1 && !shared) {
        // One arm (a user in no role, of own lists) is the page itself, with no merge around it.
        const at = params.add(JSON.stringify([own[0]]));
        sql = `SELECT ${columns} FROM ${from} WHERE ${key} = ${at} AND ${restOf()} ORDER BY ${this.orderBy(query.order, params)} ${page}`;
      } else {
        const idsFirst = query.skip > 0;
        const sortKeys = query.order.map((orderKey, i) => `${this.fieldExpr(orderKey.field, orderKey.as)} AS "_k${i}"`).join(', ');
        const armColumns = `${idsFirst ? '"objectId"' : columns}, ${sortKeys}`;
        const arms = own.map((principal) => `SELECT ${armColumns} FROM ${from} WHERE ${key} = ${params.add(JSON.stringify([principal]))} AND ${restOf()}`);
        if (shared) arms.push(`SELECT ${armColumns} FROM ${from} WHERE ${key} = '' AND ${this.where(query.where, params)}`);
        const byObjectId = query.order.some((orderKey) => orderKey.field.kind === 'column' && orderKey.field.column === 'objectId');
        const order = [...query.order.map((orderKey, i) => `"_k${i}" ${orderKey.descending ? 'DESC' : 'ASC'}`), ...(byObjectId ? [] : ['"objectId" ASC'])].join(', ');
        const merged = `${arms.join(' UNION ALL ')} ORDER BY ${order} ${page}`;
        if (idsFirst) {
          sql = `SELECT ${columns} FROM ${from} WHERE "objectId" IN (SELECT "objectId" FROM (${merged})) ORDER BY ${this.orderBy(query.order, params)}`;
        } else {
          sql = merged;
          width += query.order.length;
        }
      }
      if (!shared) {
        const marks = Array.from({ length: width }, () => 'NULL').join(', ');
        sql = `SELECT * FROM (${sql}) UNION ALL SELECT ${marks} WHERE (SELECT ${key} FROM ${from} WHERE ${key} <= '["*"]' ORDER BY ${key} LIMIT 1) IS NOT NULL`;
      }
      return { sql, params: params.values, ...(onlyTheOrderedRange(query.where, query.order) ? { planForAnyValues: true } : {}) };
    };
    return { ...statement(true), ownListsOnly: statement(false) };
  }

  permsIndex(): string | null {
    return null;
  }
  indexExists(_qualified: string, name: string): { sql: string; params: string[] } {
    return { sql: `SELECT 1 AS "found" FROM sqlite_master WHERE "type" = 'index' AND "name" = ?`, params: [name] };
  }
  renameIndex(qualified: string, name: string, table: string, columns: string): string[] {
    // SQLite cannot rename an index: it is built again under the new name.
    return [`CREATE INDEX IF NOT EXISTS ${ident(name)} ON ${table} (${columns})`, `DROP INDEX IF EXISTS ${qualified}`];
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
  docChecked(path: readonly string[], as: ValueKind): string {
    // json_extract turns true into 1 and leaves objects as JSON text: check the JSON type first.
    const types = as === 'number' ? `'integer', 'real'` : as === 'boolean' ? `'true', 'false'` : `'text'`;
    return `(CASE WHEN json_type("data", ${jsonPath(path)}) IN (${types}) THEN json_extract("data", ${jsonPath(path)}) END)`;
  }
  docTypeRank(path: readonly string[]): string {
    return `(CASE json_type("data", ${jsonPath(path)}) WHEN 'integer' THEN 1 WHEN 'real' THEN 1 WHEN 'text' THEN 2 WHEN 'object' THEN 3 WHEN 'array' THEN 4 WHEN 'true' THEN 5 WHEN 'false' THEN 5 ELSE 0 END)`;
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
    // driver.ts registers regexp() and its timed twin; they read JavaScript flags from a leading "(?ims)".
    const source = sqliteRegex(pattern);
    return `${mayBacktrack(source) ? TIMED_REGEXP : 'regexp'}(${params.add(source)}, ${expr})`;
  }
  pointInPolygon(latitude: string, longitude: string, polygon: readonly LatLng[], params: Params): string {
    return `basalt_point_in_polygon(${latitude}, ${longitude}, ${params.add(JSON.stringify(polygon.map((p) => [p.latitude, p.longitude])))}) = 1`;
  }
  polygonContains(path: readonly string[], point: LatLng, params: Params): string {
    return `basalt_point_in_polygon(${params.add(point.latitude)}, ${params.add(point.longitude)}, json_extract("data", ${jsonPath([...path, 'coordinates'])})) = 1`;
  }
  textMatch(expr: string, words: readonly string[], params: Params): string {
    return `basalt_text_match(${expr}, ${params.add(words.join(' '))}) = 1`;
  }
  textIndexMatch(index: TextIndexRef, _expr: string, words: readonly string[], params: Params): string {
    // One quoted phrase per word, which FTS5 requires all of. A word holds no '"' (a separator).
    const phrases = words.map((word) => `"${word.replace(/"/g, '""')}"`).join(' ');
    return `"objectId" IN (SELECT "objectId" FROM ${params.table(textTable(index))} WHERE "words" MATCH ${params.add(phrases)})`;
  }
  createTextIndex(index: TextIndexRef, field: FieldRef, qualify: (name: string) => string): string[] {
    if (field.kind !== 'doc' || field.path.length !== 1) throw new Error('a text index covers a top-level field');
    const path = jsonPath([safeKey(field.path[0]!)]);
    const table = qualify(index.className);
    const fts = qualify(textTable(index));
    const base = schemaIndexName(index.className, index.name);
    // The words are found by basalt_text_words() (sql/sqlite/functions.ts, registered by the
    // driver); FTS5 only splits them at the spaces between them. A row of the FTS5 table is found
    // again by its objectId as a token, which case folding may share with another id: hence the
    // equality beside it. (Not a contentless table keyed by rowid: VACUUM may renumber the rowids
    // of the class table, and SQLite 3.53 cannot drop a contentless_unindexed table whole.)
    const insert = `INSERT INTO ${fts} ("objectId", "words") SELECT new."objectId", basalt_text_words(json_extract(new."data", ${path})) WHERE json_type(new."data", ${path}) = 'text';`;
    const remove = `DELETE FROM ${fts} WHERE "objectId" MATCH '"' || replace(old."objectId", '"', '""') || '"' AND "objectId" = old."objectId";`;
    return [
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${fts} USING fts5("objectId", "words", tokenize="${TEXT_TOKENIZER}")`,
      `CREATE TRIGGER IF NOT EXISTS ${ident(`${base}:insert`)} AFTER INSERT ON ${table} BEGIN ${insert} END`,
      `CREATE TRIGGER IF NOT EXISTS ${ident(`${base}:update`)} AFTER UPDATE OF "data" ON ${table} WHEN json_extract(old."data", ${path}) IS NOT json_extract(new."data", ${path}) BEGIN ${remove} ${insert} END`,
      `CREATE TRIGGER IF NOT EXISTS ${ident(`${base}:delete`)} AFTER DELETE ON ${table} BEGIN ${remove} END`,
      `INSERT INTO ${fts} ("objectId", "words") SELECT "objectId", basalt_text_words(json_extract("data", ${path})) FROM ${table} WHERE json_type("data", ${path}) = 'text'`,
    ];
  }
  dropTextIndex(index: TextIndexRef, qualify: (name: string) => string): string[] {
    const base = schemaIndexName(index.className, index.name);
    return [...['insert', 'update', 'delete'].map((event) => `DROP TRIGGER IF EXISTS ${ident(`${base}:${event}`)}`), `DROP TABLE IF EXISTS ${qualify(textTable(index))}`];
  }
  protected readonly leastFunction = 'min';
  jsonEquals(path: readonly string[], json: string, params: Params): string {
    // SQLite keeps the key order of stored objects, so comparing JSON text would make key order
    // matter. Instead both values are compared as the sets of their nodes (path, type, scalar
    // value): equal sets of the same size are equal values, keys in any order. "->" keeps the
    // stored value as JSON (a string stays quoted), so both trees are rooted at "$".
    const stored = `json_tree("data" -> ${jsonPath(path)})`;
    const storedCount = `(SELECT count(*) FROM ${stored})`;
    const givenCount = `(SELECT count(*) FROM json_tree(${params.add(json)}))`;
    const difference = `SELECT "fullkey", "type", "atom" FROM ${stored} EXCEPT SELECT "fullkey", "type", "atom" FROM json_tree(${params.add(json)})`;
    return `(${storedCount} = ${givenCount} AND NOT EXISTS (${difference}))`;
  }
  override readonly createdAtIndexColumns = CREATED_AT_INDEX_COLUMNS;
  override permsSpelling(className: string, table: string): string[] {
    return readListTriggers(className, table);
  }
  acl(column: '_rperm' | '_wperm', principals: readonly string[], params: Params): string {
    // Most lists hold one principal (`["*"]` on every public object), so comparing the whole text
    // first answers them without opening json_each for the row, which costs more than the rest of
    // a range scan's row. A read list without a comma is always in the spelling compared here
    // (read-lists.ts), so only lists with a comma are opened, as long as no principal needs
    // escaping in JSON (then it could be spelled otherwise, and every list is opened).
    const single = principals.map((principal) => params.add(JSON.stringify([principal]))).join(', ');
    const list = principals.map((principal) => params.add(principal)).join(', ');
    const opened = `EXISTS (SELECT 1 FROM json_each("${column}") WHERE "value" IN (${list}))`;
    if (column === '_rperm' && principals.every(spelledAsIs)) return `("${column}" IN (${single}) OR (instr("${column}", ',') > 0 AND ${opened}))`;
    return `("${column}" IN (${single}) OR ${opened})`;
  }
  jsonParam(placeholder: string): string {
    return `jsonb(${placeholder})`;
  }
  docWithFields(doc: string, fields: readonly string[], _jsonObject: string, values: readonly string[], add: (value: string) => string): string {
    return `jsonb_set(${doc}, ${fields.map((field, i) => `'$.${safeKey(field)}', jsonb(${add(values[i]!)})`).join(', ')})`;
  }
  docWithoutFields(doc: string, fields: readonly string[]): string {
    return `jsonb_remove(${doc}, ${fields.map((field) => `'$.${safeKey(field)}'`).join(', ')})`;
  }
  docIncremented(doc: string, field: string, amount: string): string {
    // better-sqlite3 binds every number as a REAL, and SQLite writes a REAL into JSON as "6.0":
    // a whole result within the doubles' exact integers is stored as an INTEGER, as "6", the
    // text JSON.stringify writes (past 2^53 the value is the same, its spelling may differ).
    // The sum is named in a sub-select: a "?" is bound once per place it appears.
    const sum = `SELECT coalesce("data"->>'$.${safeKey(field)}', 0) + ${amount} AS "s"`;
    return `jsonb_set(${doc}, '$.${safeKey(field)}', (SELECT CASE WHEN abs("s") < 9007199254740992 AND "s" = CAST("s" AS INTEGER) THEN CAST("s" AS INTEGER) ELSE "s" END FROM (${sum})))`;
  }
  docAppended(doc: string, field: string, values: readonly string[], add: (value: string) => string): string {
    const path = `'$.${safeKey(field)}'`;
    const start = `jsonb_set(${doc}, ${path}, CASE WHEN json_type("data", ${path}) = 'array' THEN "data"->${path} ELSE jsonb('[]') END)`;
    // `[#]` is the place after an array's last element.
    return `jsonb_insert(${start}, ${values.map((value) => `'$.${safeKey(field)}[#]', jsonb(${add(value)})`).join(', ')})`;
  }
  fieldIsArrayOrAbsent(field: string): string {
    return `coalesce(json_type("data", '$.${safeKey(field)}') IN ('array', 'null'), 1)`;
  }
  fieldIsNumberOrAbsent(field: string): string {
    // Past 1e300 a sum could reach infinity, which SQLite writes as 9.0e+999 and JavaScript as
    // null: such a number is left to the path that reads the row.
    const path = `'$.${safeKey(field)}'`;
    return `CASE json_type("data", ${path}) WHEN 'integer' THEN 1 WHEN 'real' THEN abs("data"->>${path}) < 1e300 WHEN 'null' THEN 1 ELSE json_type("data", ${path}) IS NULL END`;
  }
  readonly docTextBytes = 'octet_length(json("data"))';
  /**
   * SQLite writes a REAL that an increment computed as "%g" does: 0.000001 as "1.0e-06", a byte
   * shorter than JavaScript's text. Such a field takes at least 12 bytes (`"k":1.0e-06,`), so
   * the text SQLite measures is never short by more than a twelfth: an eighth is kept back.
   */
  readonly sizeSlack = 1 / 8;
  fieldJson(field: string): string {
    return `"data"->'$.${safeKey(field)}'`;
  }
  /**
   * The list drives the loop: one search of the key's index per element. Written as
   * `IN (SELECT … FROM json_each(…))`, SQLite first copies the list into a temporary b-tree, which
   * cost about a tenth of each key's lookup in a batch of 16 (measured alone).
   */
  selectByKeys(columns: string, table: string, column: string, placeholder: string): string {
    return `SELECT ${columns} FROM json_each(${placeholder}) AS "_keys" CROSS JOIN ${table} ON ${table}."${column}" = "_keys"."value"`;
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
  jsonObject(fields: readonly (readonly [string, string])[]): string {
    return `json_object(${fields.map(([name, expr]) => `'${safeKey(name)}', ${expr}`).join(', ')})`;
  }
  jsonValue(expr: string, type: OutputType): string {
    // json_extract reads true as 1, and json_object would write the number: json() marks the
    // text as JSON, so that json_object embeds it as a value rather than as a string.
    if (type === 'Boolean') return `json(CASE ${expr} WHEN 1 THEN 'true' WHEN 0 THEN 'false' END)`;
    if (type === 'Date') return `json(CASE WHEN ${expr} IS NULL THEN NULL ELSE json_object('__type', 'Date', 'iso', ${expr}) END)`;
    return expr;
  }
  sumOf(expr: string): string {
    // total() is 0.0 over no values and, unlike sum(), never fails on an integer overflow.
    return `total(${expr})`;
  }
  projectDoc(doc: string, keys: readonly string[], keep: boolean): string {
    if (keys.length === 0) return keep ? `json('{}')` : doc;
    const list = keys.map((key) => `'${safeKey(key)}'`).join(', ');
    if (!keep) return `json_remove(${doc}, ${keys.map((key) => `'$.${safeKey(key)}'`).join(', ')})`;
    // json_each reads true and false as 1 and 0: they are written back as JSON.
    const value = `CASE "type" WHEN 'true' THEN json('true') WHEN 'false' THEN json('false') ELSE "value" END`;
    return `(SELECT json_group_object("key", ${value}) FROM json_each(${doc}) WHERE "key" IN (${list}))`;
  }
  jsonText(expr: string): string {
    return `json(${expr})`;
  }
  jsonTextAt(path: readonly string[]): string {
    const at = jsonPath(path.map(safeKey));
    return `(CASE WHEN json_type("data", ${at}) <> 'null' THEN "data" -> ${at} END)`;
  }
  elementsAt(path: readonly string[]): { join: string; text: string } {
    const at = jsonPath(path.map(safeKey));
    const join = `CROSS JOIN json_each(CASE WHEN json_type("data", ${at}) = 'array' THEN "data" -> ${at} ELSE '[]' END) AS "_e"`;
    // json_each gives a scalar element as an SQL value: quoted back into JSON text, so that the
    // string "1" and the number 1 stay two values.
    const text = `(CASE "_e"."type" WHEN 'null' THEN NULL WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE json_quote("_e"."value") END)`;
    return { join, text };
  }
}

export const sqliteDialect = new SqliteCompiler();
