import type { ElementOf, FieldRef, FindQuery, IndexHint, LatLng, OrderKey, RegexPattern, SubQuery, TextIndexRef, ValueKind, WhereNode } from '../query/ast.ts';
import { and } from '../query/ast.ts';
import { Params, PUBLIC_COLUMN, ident, safeKey } from './params.ts';
import { prefixUpperBound } from '../query/regex.ts';
import type { Row, SqlParam } from './params.ts';
import { capBox, cellsOf, nearestRings, polygonBox, CELLS_PER_DEGREE, type Box, type RingSearch } from './geo.ts';

/** Rings repeat the filter once each; past this many values the plain statement is written. */
const MAX_RING_PARAMS = 30_000;
/**
 * A page of objectId order under an indexed `$inQuery` is merged from one ordered read per
 * inner value up to this many values (each read is an index seek and at most skip + limit
 * entries); past it the page is read in objectId order, testing each row (see `inQueryPage`).
 */
export const MAX_PAGE_ARMS = 32;

/** A page number written into SQL text: a whole number, checked again here. */
export function pageNumber(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`not a page number: ${n}`);
  return String(n);
}

/**
 * The node, or a conjunction within it, bounds the rows read to a range of an index over a stored
 * column that carries PUBLIC_COLUMN.
 */
function readsStoredRange(node: WhereNode): boolean {
  switch (node.kind) {
    case 'and':
      return node.nodes.some(readsStoredRange);
    case 'compare':
      return node.op !== 'ne' && readsPublicColumn(node.field, node.as);
    case 'in':
      return readsPublicColumn(node.field, node.as);
    default:
      return false;
  }
}

/** The field is read from its stored column (fieldExpr), whose indexes carry PUBLIC_COLUMN. */
function readsPublicColumn(field: FieldRef, as: ValueKind): boolean {
  return field.kind === 'doc' && field.stored?.publicColumn === true && field.stored.as === as;
}

export interface CompiledSql {
  readonly sql: string;
  readonly params: readonly SqlParam[];
  /** The best plan does not depend on the values, so every run may reuse one (and skip planning). */
  readonly planOnce?: boolean;
}

/**
 * The one SQL compiler. Dialects override the handful of methods where SQLite and PostgreSQL
 * differ (placeholders, JSON access, array containment, column types); everything else, and
 * every decision about what a query means, lives here.
 */
export abstract class SqlCompiler {
  abstract readonly name: 'sqlite' | 'postgres';
  /** Whether INSERT/UPDATE … RETURNING is available. */
  readonly supportsReturning: boolean = true;
  /**
   * Whether a WITH clause may hold an INSERT, so that one statement writes two tables atomically
   * without a transaction's extra round trips. Where it may not, the writes share a transaction.
   */
  readonly supportsWritableCte: boolean = false;
  /**
   * Whether a nearest-first page searches its rings in one statement (sql/geo.ts). Where a
   * statement is a call into the library rather than a round trip, one plain statement per ring,
   * stopping at the first that fills the page, costs less than one statement holding every ring.
   */
  readonly ringsInOneStatement: boolean = true;
  /**
   * Whether a query's LIMIT is written as a number rather than bound. SQLite reads a bound LIMIT
   * while planning an `ORDER BY … LIMIT ?` that needs a sort, and then prepares the statement
   * again whenever the parameter is bound anew; a LIMIT is one of at most 1001 numbers, so the
   * statement cache stays small. OFFSET is not read by the planner and stays bound.
   */
  readonly literalLimit: boolean = false;
  /**
   * Whether a placeholder may appear more than once in a statement, each use reading the same
   * value ($1 on PostgreSQL; SQLite's "?" are numbered by position). Where it may, the rings of a
   * nearest-first page share the point and the rest of the filter instead of binding them anew.
   */
  readonly reusablePlaceholders: boolean = false;
  /**
   * Whether a statement can name the index its table is read through (`hint`, see `hinted`).
   * Where it cannot, a hint changes nothing in the SQL.
   */
  readonly indexHints: boolean = false;
  /** The class's table as a FROM item read through the hinted index; the table itself by default. */
  hinted(table: string, _className: string, _hint: IndexHint | undefined): string {
    return table;
  }
  /** The statement whose rows are the plan the database would run `sql` by (`explain`). */
  abstract explainSql(sql: string): string;
  /** The plan of one statement, from the rows of its `explainSql`. */
  abstract planOf(rows: readonly Row[]): unknown;

  abstract placeholder(index: number): string;
  /** The JSON document column read as text / number / boolean / raw JSON at `path`. */
  abstract docText(path: readonly string[]): string;
  abstract docNumber(path: readonly string[]): string;
  abstract docBoolean(path: readonly string[]): string;
  abstract docJson(path: readonly string[]): string;
  /** The array at `path` holds `value` (or an element whose `subKey` is `value`). */
  abstract arrayContains(path: readonly string[], value: SqlParam, as: ValueKind, params: Params, subKey?: string): string;
  abstract jsonEquals(path: readonly string[], json: string, params: Params): string;
  abstract acl(column: '_rperm' | '_wperm', principals: readonly string[], params: Params): string;
  /** Turns a JSON text parameter into the document column's type. */
  abstract jsonParam(placeholder: string): string;
  /** Turns a permission list parameter into the permission column's type. */
  abstract permsParam(placeholder: string): string;
  /**
   * `SELECT <columns>` of the rows of `table` whose `column` is one of a list of strings bound as
   * one parameter (a text[] or a JSON array); a key listed twice may give its row twice.
   */
  abstract selectByKeys(columns: string, table: string, column: string, placeholder: string): string;
  /** Selects the document column as something the driver returns as JSON text or an object. */
  abstract selectDoc(): string;
  abstract selectPerms(column: '_rperm' | '_wperm'): string;
  /** ORDER BY direction with missing values first when ascending, last when descending. */
  abstract orderDirection(descending: boolean): string;
  /** Column types of a class table. */
  abstract readonly docType: string;
  abstract readonly permsType: string;
  abstract readonly keyType: string;
  /**
   * A statement taking a lock, keyed by its one parameter, held until the transaction ends; null
   * where transactions already exclude each other (SQLite's BEGIN IMMEDIATE).
   */
  transactionLockSql(): string | null {
    return null;
  }
  /** A statement keeping every other reader and writer off a table until the transaction ends. */
  lockTableSql(_table: string): string | null {
    return null;
  }
  /** A statement keeping other writers (not readers) off a table until the transaction ends. */
  lockTableWritesSql(_table: string): string | null {
    return null;
  }
  /** Appended to a SELECT that reads a row it is about to update. */
  readonly lockClause: string = '';
  /** Index DDL for the read permission list (an index the ACL filter can use). */
  abstract permsIndex(indexName: string, table: string): string | null;
  /**
   * Whether plain schema indexes end with the read permission list, so that the ACL filter of a
   * query that an index serves reads the list from the index instead of from each row.
   */
  readonly permsInIndexes: boolean = false;
  /**
   * The definition of a column keeping the document's reading at `path` as `as`, computed by the
   * database on every write; null where schema indexes stay on expressions (see
   * storage/sql-schema-store.ts).
   */
  storedColumn(_column: string, _path: readonly string[], _as: ValueKind): string | null {
    return null;
  }
  /** Follows the column list of a schema index over stored columns: the read permission list. */
  readonly storedIndexInclude: string = '';
  /**
   * The definition of the column telling whether "*" may read the row (PUBLIC_COLUMN), which a
   * class table gets with its first stored column; null where there are none.
   */
  readonly publicColumn: string | null = null;
  /** Run outside any transaction once stored columns were added to `table`, or null. */
  afterRewriteSql(_table: string): string | null {
    return null;
  }
  /** Expression-index column list entry (PostgreSQL wants expressions in parentheses). */
  indexExpr(expr: string, descending: boolean): string {
    return `${expr} ${this.orderDirection(descending)}`;
  }
  /** The document with one top-level key removed (for dropping a field's data). */
  abstract removeKey(doc: string, key: string): string;
  /** An identifier for an index in the app's namespace, for DROP INDEX. */
  abstract qualifyIndex(namespace: string | null, indexName: string): string;

  /** Makes a text expression compare byte-wise, so both backends sort strings alike. */
  textCollate(expr: string): string {
    return expr;
  }

  /** Elements of the array at `path`, as a FROM item, and how one element is read. */
  abstract arrayElements(path: readonly string[]): { from: string; element: (of: ElementOf) => string };
  /** `expr` matches the regular expression (flags and dialect quirks handled by the dialect). */
  abstract regexMatch(expr: string, pattern: RegexPattern, params: Params): string;
  /** The point lies strictly inside the polygon (a list of latitude/longitude corners). */
  abstract pointInPolygon(latitude: string, longitude: string, polygon: readonly LatLng[], params: Params): string;
  /** The Polygon value at `path` contains the point. */
  abstract polygonContains(path: readonly string[], point: LatLng, params: Params): string;
  /** Every one of `words` (src/query/words.ts) is a word of the text `expr`. */
  abstract textMatch(expr: string, words: readonly string[], params: Params): string;
  /**
   * The text index finds every one of `words` in the text `expr`: a test the index answers. It
   * may hold for more rows than textMatch (never for fewer), which therefore follows it.
   */
  abstract textIndexMatch(index: TextIndexRef, expr: string, words: readonly string[], params: Params): string;
  /**
   * Statements creating the text index `index` over the text at `field` (a String field) and
   * filling it from the class's rows; `qualify` names an object of the app's namespace. From then
   * on every write of the class keeps the index in step, within the writing statement.
   */
  abstract createTextIndex(index: TextIndexRef, field: FieldRef, qualify: (name: string) => string): string[];
  /** Statements dropping the text index and everything that keeps it; each does nothing when run again. */
  abstract dropTextIndex(index: TextIndexRef, qualify: (name: string) => string): string[];

  params(table?: (className: string) => string): Params {
    return new Params((index) => this.placeholder(index), table);
  }

  /** The value at `path` read as `as`, or NULL where the stored JSON value is of another type. */
  abstract docChecked(path: readonly string[], as: ValueKind): string;
  /**
   * The JSON type of the value at `path` as a sort rank, in MongoDB's order of types (which Parse
   * clients see): missing or null 0, numbers 1, strings 2, objects 3, arrays 4, booleans 5.
   */
  abstract docTypeRank(path: readonly string[]): string;

  /** The SQL expression a field is read as. */
  fieldExpr(field: FieldRef, as: ValueKind | 'json'): string {
    if (field.kind === 'column') return this.textCollate(ident(field.column));
    // The column equals the expression; reading it lets an index over it answer alone.
    if (field.stored?.as === as) return as === 'text' ? this.textCollate(ident(field.stored.column)) : ident(field.stored.column);
    const path = field.path.map(safeKey);
    if (field.untyped && as !== 'json') return as === 'text' ? this.textCollate(this.docChecked(path, as)) : this.docChecked(path, as);
    switch (as) {
      case 'text':
        return this.textCollate(this.docText(path));
      case 'number':
        return this.docNumber(path);
      case 'boolean':
        return this.docBoolean(path);
      case 'json':
        return this.docJson(path);
    }
  }

  where(node: WhereNode, params: Params): string {
    switch (node.kind) {
      case 'const':
        return node.value ? '1=1' : '1=0';
      case 'and':
        return this.conjunction(node.nodes, params);
      case 'or':
        return this.join(node.nodes, 'OR', params);
      case 'not':
        // Two-valued logic: a constraint on a missing field is false, so its negation is true.
        return `NOT COALESCE((${this.where(node.node, params)}), FALSE)`;
      case 'compare':
        return this.compare(node.field, node.op, node.value, node.as, params);
      case 'in': {
        if (node.values.length === 0) return '1=0';
        const expr = this.fieldExpr(node.field, node.as);
        return `${expr} IN (${node.values.map((value) => params.add(value)).join(', ')})`;
      }
      case 'exists':
        return `${this.rawText(node.field)} IS NOT NULL`;
      case 'isNull':
        return `${this.rawText(node.field)} IS NULL`;
      case 'arrayContains':
        return this.arrayContains(this.docPath(node.field), node.value, node.as, params, node.subKey);
      case 'jsonEquals':
        return this.jsonEquals(this.docPath(node.field), node.json, params);
      case 'acl':
        return this.acl(node.access === 'read' ? '_rperm' : '_wperm', node.principals, params);
      case 'regex': {
        if (!node.element) return this.regex(this.fieldExpr(node.field, 'text'), node.pattern, params);
        const { from, element } = this.arrayElements(this.docPath(node.field));
        return `EXISTS (SELECT 1 FROM ${from} WHERE ${this.regex(element(node.element), node.pattern, params)})`;
      }
      case 'inSubquery':
        return this.inSubquery(node.field, node.as, node.element, node.query, params);
      case 'relationHolds': {
        // Parameters in text order: SQLite numbers "?" by position.
        const holders = `SELECT "owningId" FROM ${params.table('_Join')} WHERE "owningClass" = ${params.add(node.owningClass)} AND "owningField" = ${params.add(node.key)}`;
        const related = 'ids' in node.related ? node.related.ids.map((id) => params.add(id)).join(', ') : this.subSelect(node.related.query, 'text', params);
        return `${this.textCollate(ident('objectId'))} IN (${holders} AND "relatedId" IN (${related}))`;
      }
      case 'relatedTo':
        return this.relatedTo(node.owningClass, node.owningId, node.field, node.ownerRead, params);
      case 'containedBy': {
        const { from, element } = this.arrayElements(this.docPath(node.field));
        const list = node.values.length ? node.values.map((value) => params.add(value)).join(', ') : 'NULL';
        return `${this.rawText(node.field)} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${from} WHERE COALESCE(${element(node.element)} NOT IN (${list}), TRUE))`;
      }
      case 'geoWithinDistance':
        return this.withinDistance(node.field, node.point, node.maxRadians, params);
      case 'geoWithinBox':
        return this.geoBox(node.field, { south: node.south, north: node.north, longitudes: { west: node.west, east: node.east } }, params);
      case 'geoWithinPolygon': {
        const { latitude, longitude } = this.geoExprs(node.field);
        return `${this.geoBox(node.field, polygonBox(node.polygon), params)} AND ${this.pointInPolygon(latitude, longitude, node.polygon, params)}`;
      }
      case 'polygonContains':
        return this.polygonContains(this.docPath(node.field), node.point, params);
      case 'text': {
        const expr = this.fieldExpr(node.field, 'text');
        // The index narrows the rows; the word test keeps the answer exactly the one without it.
        // A text index is built over the document's expression, never over a stored column.
        const indexed = node.field.kind === 'doc' && node.field.stored ? this.fieldExpr({ ...node.field, stored: undefined }, 'text') : expr;
        const candidates = node.index ? `${this.textIndexMatch(node.index, indexed, node.words, params)} AND ` : '';
        return `${candidates}${this.textMatch(expr, node.words, params)}`;
      }
    }
  }

  private regex(expr: string, pattern: RegexPattern, params: Params): string {
    const parts: string[] = [];
    if (pattern.prefix) {
      // `^abc` is the range [abc, abd): the same expression as the field's index, so it can use it.
      parts.push(`${expr} >= ${params.add(pattern.prefix)}`);
      const upper = prefixUpperBound(pattern.prefix);
      if (upper !== null) parts.push(`${expr} < ${params.add(upper)}`);
    }
    if (!pattern.prefixOnly) parts.push(this.regexMatch(expr, pattern, params));
    return parts.join(' AND ');
  }

  /** The selected column of an inner query, limited like a top-level query (spec 4.2). */
  private subSelect(query: SubQuery, as: ValueKind, params: Params, alias?: string): string {
    const column = this.fieldExpr(query.select, as);
    const where = this.where(query.where, params);
    const order = this.textCollate(ident('objectId'));
    const named = alias ? `${column} AS ${ident(alias)}` : column;
    return `SELECT ${named} FROM ${params.table(query.className)} WHERE (${where}) AND ${column} IS NOT NULL ORDER BY ${order} LIMIT ${this.limit(query.limit, params)}`;
  }

  /** `expr` is among the values of an inner query that selects at most `limit` rows. */
  inSelected(expr: string, subSelect: string, _limit: number): string {
    return `${expr} IN (${subSelect})`;
  }

  private inSubquery(field: FieldRef, as: ValueKind, element: ElementOf | null, query: SubQuery, params: Params): string {
    if (!element) return this.inSelected(this.fieldExpr(field, as), this.subSelect(query, as, params), query.limit);
    const { from, element: read } = this.arrayElements(this.docPath(field));
    return `EXISTS (SELECT 1 FROM ${from} WHERE ${read(element)} IN (${this.subSelect(query, element.as, params)}))`;
  }

  private relatedTo(owningClass: string, owningId: string, field: string, ownerRead: readonly string[] | null, params: Params): string {
    const join = params.table('_Join');
    const members = `SELECT "relatedId" FROM ${join} WHERE "owningClass" = ${params.add(owningClass)} AND "owningField" = ${params.add(field)} AND "owningId" = ${params.add(owningId)}`;
    let sql = `${this.textCollate(ident('objectId'))} IN (${members})`;
    if (ownerRead) {
      // The relation is visible only to those who may read the object holding it.
      const owner = `SELECT 1 FROM ${params.table(owningClass)} WHERE "objectId" = ${params.add(owningId)} AND ${this.acl('_rperm', ownerRead, params)}`;
      sql += ` AND EXISTS (${owner})`;
    }
    return sql;
  }

  protected geoExprs(field: FieldRef): { latitude: string; longitude: string } {
    const path = this.docPath(field);
    return { latitude: this.docNumber([...path, 'latitude']), longitude: this.docNumber([...path, 'longitude']) };
  }

  /**
   * The box around a search area, in the shape of a GeoPoint index (sql/geo.ts): latitude cells,
   * then longitudes, then latitudes. Exact for `$within`; a necessary condition otherwise.
   * (Parameters are added in text order: SQLite's "?" are numbered by position.)
   */
  private geoBox(field: FieldRef, box: Box, params: Params): string {
    const { latitude, longitude } = this.geoExprs(field);
    const cell = this.latitudeCell(latitude);
    const cells = cellsOf(box);
    const parts = ['each' in cells ? this.cellIn(cell, cells.each, params) : `${cell} BETWEEN ${params.add(cells.from)} AND ${params.add(cells.to)}`];
    const lng = box.longitudes;
    if (lng) parts.push(lng.west <= lng.east ? `${longitude} BETWEEN ${params.add(lng.west)} AND ${params.add(lng.east)}` : `(${longitude} >= ${params.add(lng.west)} OR ${longitude} <= ${params.add(lng.east)})`);
    parts.push(`${latitude} BETWEEN ${params.add(box.south)} AND ${params.add(box.north)}`);
    return parts.join(' AND ');
  }

  /** The latitude cell is one of `cells`: one seek each. */
  cellIn(cell: string, cells: readonly number[], params: Params): string {
    return `${cell} IN (${cells.map((c) => params.add(c)).join(', ')})`;
  }

  /** The first column of a GeoPoint index; queries must write it exactly so. */
  latitudeCell(latitude: string): string {
    return `floor(${latitude} * ${CELLS_PER_DEGREE})`;
  }

  private withinDistance(field: FieldRef, point: LatLng, radians: number, params: Params): string {
    const { latitude, longitude } = this.geoExprs(field);
    const box = capBox(point, radians);
    // Without a box the point must still exist: PostgreSQL's LEAST skips a NULL, which would put
    // an object without a GeoPoint at distance π.
    const bound = box ? this.geoBox(field, box, params) : `${latitude} IS NOT NULL`;
    return `${bound} AND ${this.distance(latitude, longitude, point, params)} <= ${params.add(radians)}`;
  }

  /** Great-circle distance in radians (haversine), in functions both databases have. */
  distance(latitude: string, longitude: string, point: LatLng, params: Params): string {
    // Each placeholder is used once: SQLite numbers "?" by position.
    const dLat = `radians(${latitude} - ${params.add(point.latitude)})`;
    const cosLat0 = `cos(radians(${params.add(point.latitude)}))`;
    const dLng = `radians(${longitude} - ${params.add(point.longitude)})`;
    const a = `power(sin(${dLat} / 2), 2) + ${cosLat0} * cos(radians(${latitude})) * power(sin(${dLng} / 2), 2)`;
    return `(2 * asin(sqrt(min_of(1.0, ${a}))))`.replace('min_of', this.leastFunction);
  }
  /** LEAST in PostgreSQL, the two-argument MIN in SQLite. */
  protected abstract readonly leastFunction: string;

  /**
   * SQLite parses `a OR b OR c …` as a left-deep tree and refuses expressions nested more than
   * 1000 deep, so a `$in` of a thousand values would fail there. Long lists are grouped in halves,
   * which keeps the depth logarithmic; parameters stay in text order.
   */
  private join(nodes: readonly WhereNode[], op: 'AND' | 'OR', params: Params, compile = (node: WhereNode) => this.where(node, params)): string {
    if (nodes.length <= 64) return nodes.map((child) => `(${compile(child)})`).join(` ${op} `);
    const half = Math.ceil(nodes.length / 2);
    return `(${this.join(nodes.slice(0, half), op, params, compile)}) ${op} (${this.join(nodes.slice(half), op, params, compile)})`;
  }

  /**
   * Where the conjunction reads a range of a schema index over stored columns, which carries
   * PUBLIC_COLUMN, the caller's read permission tests "*" on that column (a boolean in the index
   * entry) and the caller's other principals on the list (a count of a thousand public entries:
   * 0.21 → 0.15 ms). Elsewhere the test stays `&&` alone, which the permission list's GIN
   * index serves: an anonymous query on a class of mostly private rows then reads only the public
   * ones, where the column would have it walk the whole table; the bounded range leaves nothing
   * of that risk.
   */
  private conjunction(nodes: readonly WhereNode[], params: Params): string {
    const readAcl = nodes.find((node): node is Extract<WhereNode, { kind: 'acl' }> => node.kind === 'acl' && node.access === 'read' && node.principals.includes('*'));
    if (!readAcl || !nodes.some(readsStoredRange)) return this.join(nodes, 'AND', params);
    return this.join(nodes, 'AND', params, (node) => {
      if (node !== readAcl) return this.where(node, params);
      const others = readAcl.principals.filter((principal) => principal !== '*');
      const isPublic = ident(PUBLIC_COLUMN);
      return others.length ? `${isPublic} OR ${this.acl('_rperm', others, params)}` : isPublic;
    });
  }

  /** `$ne` also matches objects where the field is missing, as Parse clients expect. */
  private compare(field: FieldRef, op: string, value: SqlParam, as: ValueKind, params: Params): string {
    const expr = this.fieldExpr(field, as);
    const p = params.add(value);
    switch (op) {
      case 'eq':
        return `${expr} = ${p}`;
      case 'ne':
        return `(${expr} <> ${p} OR ${this.rawText(field)} IS NULL)`;
      case 'lt':
        return `${expr} < ${p}`;
      case 'lte':
        return `${expr} <= ${p}`;
      case 'gt':
        return `${expr} > ${p}`;
      case 'gte':
        return `${expr} >= ${p}`;
      default:
        throw new Error(`unknown comparison ${op}`);
    }
  }

  private rawText(field: FieldRef): string {
    return field.kind === 'column' ? ident(field.column) : this.docText(field.path.map(safeKey));
  }

  private docPath(field: FieldRef): readonly string[] {
    if (field.kind !== 'doc') throw new Error('array operators apply to document fields only');
    return field.path.map(safeKey);
  }

  orderBy(order: readonly OrderKey[], params: Params): string {
    const keys = order.map((key) => {
      if (key.as === 'json' && key.field.kind === 'doc' && !key.distanceFrom) {
        // A value of no fixed type sorts by the rank of its type, then by value within the type:
        // raw JSON would sort by each database's own rules, which differ (and PostgreSQL's jsonb
        // compares strings in the database's collation, not byte by byte).
        const field: FieldRef = { kind: 'doc', path: key.field.path, untyped: true };
        const direction = this.orderDirection(key.descending);
        const values = (['number', 'text', 'boolean'] as const).map((as) => this.fieldExpr(field, as));
        return [this.docTypeRank(field.path.map(safeKey)), ...values].map((expr) => `${expr} ${direction}`).join(', ');
      }
      if (!key.distanceFrom) return `${this.fieldExpr(key.field, key.as)} ${this.orderDirection(key.descending)}`;
      const { latitude, longitude } = this.geoExprs(key.field);
      return `${this.distance(latitude, longitude, key.distanceFrom, params)} ${this.orderDirection(key.descending)}`;
    });
    // objectId breaks ties so that paging with skip is stable.
    if (!order.some((key) => key.field.kind === 'column' && key.field.column === 'objectId')) keys.push(`${this.textCollate(ident('objectId'))} ASC`);
    return keys.join(', ');
  }

  /**
   * The statements that answer a find, tried in turn: the first to return a full page (`limit`
   * rows), or else the last, is the answer. That is one statement, except for a nearest-first page
   * on a dialect that searches its rings one statement each (`ringsInOneStatement`). Each is
   * compiled when asked for: the first ring usually fills the page, and compiling all eight cost
   * a tenth of such a request.
   */
  findStatements(table: (className: string) => string, className: string, query: FindQuery): (() => CompiledSql)[] {
    const rings = nearestRings(query);
    if (!rings || this.ringsInOneStatement) return [() => this.select(table, className, query)];
    // A ring holding skip + limit rows fills the page; any other ring returns fewer.
    return rings.radii.map((maxRadians) => () => this.plainSelect(table, className, { ...query, where: and([...rings.rest, { ...rings.node, maxRadians }]) }, true));
  }

  select(table: (className: string) => string, className: string, query: FindQuery): CompiledSql {
    const rings = this.ringsInOneStatement ? nearestRings(query) : null;
    if (rings) {
      const ringed = this.ringSelect(table, className, query, rings);
      if (ringed.params.length <= MAX_RING_PARAMS) return ringed;
    }
    return this.inQueryPage(table, className, query) ?? this.plainSelect(table, className, query, false);
  }

  /**
   * A page in objectId order (no `order`, or `objectId` ascending) whose where requires a field
   * that leads an index to be among an inner query's values (`$inQuery`, `$select`). Read in
   * objectId order and tested row by row, such a page reads about limit ÷ (share of rows that
   * match) rows; read through the field's index, every matching row is read and sorted. Both
   * grow with the data. Here each inner value gets its own read of the index, in objectId order
   * (schema indexes end with objectId, storage/sql-schema-store.ts), stopping at skip + limit
   * entries that pass the rest of the where; the page is the first of the merged reads. The
   * inner query runs once, into `_o`; with more than MAX_PAGE_ARMS values the statement reads
   * the page the plain way instead, from the same values. Each half's LIMIT is 0 when the other
   * half answers, and neither database starts reading under a LIMIT of 0 (see ringSelect).
   */
  private inQueryPage(table: (className: string) => string, className: string, query: FindQuery): CompiledSql | null {
    const [first, ...more] = query.order;
    // A hinted index is read as asked, not through the inner query's field.
    if (query.hint && this.indexHints) return null;
    if (more.length > 0 || (first && (first.field.kind !== 'column' || first.field.column !== 'objectId' || first.descending))) return null;
    const parts = conjuncts(query.where);
    const at = parts.findIndex((part) => part.kind === 'inSubquery' && part.indexed === true && part.element === null);
    const node = parts[at];
    if (!node || node.kind !== 'inSubquery') return null;
    const rest = and(parts.filter((_, i) => i !== at));
    const params = this.params(table);
    // Parameters are added in text order: SQLite numbers "?" by position.
    const values = `SELECT DISTINCT "_v" FROM (${this.subSelect(node.query, node.as, params, '_v')}) AS "_i"`;
    const page = (arms: boolean) =>
      `LIMIT CASE WHEN (SELECT count(*) FROM "_o") ${arms ? '<=' : '>'} ${MAX_PAGE_ARMS} THEN ${pageNumber(query.limit)} ELSE 0 END OFFSET ${pageNumber(query.skip)}`;
    const field = this.fieldExpr(node.field, node.as);
    const order = `${this.textCollate(ident('objectId'))} ASC`;
    const merged = this.armsPage({ table: table(className), field, order, rows: pageNumber(query.skip + query.limit), page: page(true) }, () => this.where(rest, params));
    const test = `${this.inSelected(field, 'SELECT "_v" FROM "_o"', node.query.limit)} AND (${this.where(rest, params)})`;
    const plain = `SELECT "objectId", "createdAt", "updatedAt", "data" FROM ${table(className)} WHERE ${this.walkFilter(test)} ORDER BY ${order} ${page(false)}`;
    const both = `SELECT * FROM (${merged}) AS "_m" UNION ALL SELECT * FROM (${plain}) AS "_p"`;
    const sql = `WITH "_o" AS MATERIALIZED (${values}) SELECT "objectId", "createdAt", "updatedAt", ${this.selectDoc()} FROM (${both}) AS "_t" ORDER BY ${order}`;
    // Each half reads in one way whatever the values (an index seek per value, or the walk), so
    // one plan serves every run; planning this statement anew cost PostgreSQL more than running it.
    return { sql, params: params.values, planOnce: true };
  }

  /**
   * The fallback half of `inQueryPage` walks the table in objectId order testing each row with
   * `test`. SQLite plans every run for its values and finds that walk itself; see the PostgreSQL
   * dialect for a plan made once.
   */
  protected walkFilter(test: string): string {
    return test;
  }

  /**
   * The merged half of `inQueryPage`: for each value `"_v"` of `"_o"`, the rows in `order` whose
   * `field` equals it and that pass `rest`; of those, the `page`. SQLite has no LATERAL, so there
   * is an arm for each of the MAX_PAGE_ARMS places of `"_o"`, each reading its value once (an
   * uncorrelated scalar subquery; past the last value it is NULL and the arm reads nothing). A
   * compound SELECT under ORDER BY is merged from its arms, each delivering ids in index order, and
   * the merge stops at the page: about skip + limit index entries are read in all, where reading
   * `rows` entries per value and sorting them read up to `rows` times the number of values.
   * `+` takes the text affinity of `"_v"` off the value, which would otherwise keep the comparison
   * off the field's expression index (each arm would then walk the primary key).
   */
  protected armsPage(arms: ArmsPage, rest: () => string): string {
    const arm = (i: number) => `SELECT "objectId" FROM ${arms.table} WHERE ${arms.field} = +(SELECT "_v" FROM "_o" LIMIT 1 OFFSET ${i}) AND (${rest()})`;
    const ids = `${Array.from({ length: MAX_PAGE_ARMS }, (_, i) => arm(i)).join(' UNION ALL ')} ORDER BY ${arms.order} ${arms.page}`;
    return `SELECT "objectId", "createdAt", "updatedAt", "data" FROM ${arms.table} WHERE "objectId" IN (${ids})`;
  }

  private limit(limit: number, params: Params): string {
    return this.literalLimit ? pageNumber(limit) : params.add(limit);
  }

  /**
   * A page and the count of `countWhere` (the find's where, or another where a count permission
   * limited to user fields gives) in one statement: the count is an uncorrelated scalar subquery,
   * which both databases evaluate once, and every row of the page carries it as `"_n"`. A page of
   * no rows carries no count, so the caller counts alone then (limit 0, or a skip past the end).
   * Null where the page is not one plain statement (a nearest-first page, an `$inQuery` page):
   * those are planned once, and a count must be planned for its values (see sql-store.ts).
   */
  countedSelect(table: (className: string) => string, className: string, query: FindQuery, countWhere: WhereNode): CompiledSql | null {
    if (nearestRings(query) || this.inQueryPage(table, className, query)) return null;
    return this.plainSelect(table, className, query, false, countWhere);
  }

  /** `literalPage`: LIMIT and OFFSET written as numbers (see ringSelect). */
  private plainSelect(table: (className: string) => string, className: string, query: FindQuery, literalPage: boolean, countWhere?: WhereNode): CompiledSql {
    const params = this.params(table);
    // Parameters are added in text order: SQLite numbers "?" by position.
    const from = this.hinted(table(className), className, query.hint);
    const counted = countWhere ? `, (SELECT count(*) FROM ${from} WHERE ${this.where(countWhere, params)}) AS "_n"` : '';
    const where = this.where(query.where, params);
    let sql = `SELECT "objectId", "createdAt", "updatedAt", ${this.selectDoc()}${counted} FROM ${from} WHERE ${where} ORDER BY ${this.orderBy(query.order, params)}`;
    sql += literalPage ? ` LIMIT ${pageNumber(query.limit)} OFFSET ${pageNumber(query.skip)}` : ` LIMIT ${this.limit(query.limit, params)} OFFSET ${params.add(query.skip)}`;
    return { sql, params: params.values };
  }

  /**
   * A nearest-first page searched for in growing rings, in one statement (sql/geo.ts). Each ring
   * but the last is a CTE of its nearest `rows` rows passing the whole filter; `_pick` is the first
   * ring holding that many, or the last. Both databases evaluate a CTE and an uncorrelated scalar
   * subquery once, when first read, and CASE stops at its first true branch, so the rings beyond
   * the pick are never read; a LIMIT of 0 keeps the other rings out of the answer, and neither
   * database starts reading under a LIMIT of 0.
   */
  protected ringSelect(table: (className: string) => string, className: string, query: FindQuery, { node, rest, radii, rows }: RingSearch): CompiledSql {
    const params = this.params(table);
    const order = `"_d" ${this.orderDirection(false)}, ${this.textCollate(ident('objectId'))} ASC`;
    // The page's numbers are written as literals: SQLite plans a LIMIT from its value, so a bound
    // LIMIT makes it prepare the statement again on every run, and reads every ring.
    pageNumber(rows);
    const pick = (ring: number) => `LIMIT CASE WHEN (SELECT "i" FROM "_pick") = ${ring} THEN ${rows} ELSE 0 END`;
    const { latitude, longitude } = this.geoExprs(node.field);
    // Every ring reads the same point and the same filter: where a placeholder may be used
    // again, they are bound once (a third of the parameters of eight rings, each parsed by the
    // database and written by the driver on every run).
    const shared = <T>(make: () => T): (() => T) => {
      if (!this.reusablePlaceholders) return make;
      let made: T | undefined;
      return () => (made ??= make());
    };
    const distanceOf = shared(() => this.distance(latitude, longitude, node.point, params));
    const restOf = shared(() => rest.map((part) => `(${this.where(part, params)})`));
    const radiusOf = radii.map((radians) => shared(() => params.add(radians)));
    // A ring reads the nearest `rows` rows of its box and its radius is tested where the ring is
    // read, not in its WHERE: in distance order the rows within the radius come before the
    // box's corners, so the first `rows` rows of the box hold all of the ring's first `rows`.
    // The distance is then computed once per row, as the sort key; tested in the WHERE too,
    // PostgreSQL computed it twice for every row kept.
    const ring = (radians: number, limit: () => string) => {
      const box = capBox(node.point, radians);
      const where = [box ? this.geoBox(node.field, box, params) : `${latitude} IS NOT NULL`, ...restOf()].join(' AND ');
      return `SELECT "objectId", "createdAt", "updatedAt", "data", ${distanceOf()} AS "_d" FROM ${table(className)} WHERE ${where} ORDER BY ${order} ${limit()}`;
    };
    const last = radii.length - 1;
    const ctes = radii.slice(0, last).map((radians, i) => `"_r${i}" AS MATERIALIZED (${ring(radians, () => `LIMIT ${rows}`)})`);
    const firstFull = radii.slice(0, last).map((_, i) => `WHEN (SELECT count(*) FROM "_r${i}" WHERE "_d" <= ${radiusOf[i]!()}) >= ${rows} THEN ${i}`);
    ctes.push(`"_pick" AS MATERIALIZED (SELECT CASE ${firstFull.join(' ')} ELSE ${last} END AS "i")`);
    const arms = radii.map((radians, i) => {
      const read = i < last ? `SELECT * FROM "_r${i}" WHERE "_d" <= ${radiusOf[i]!()} ${pick(i)}` : `SELECT * FROM (${ring(radians, () => pick(i))}) AS "_l" WHERE "_d" <= ${radiusOf[i]!()}`;
      return `SELECT * FROM (${read}) AS "_a${i}"`;
    });
    const sql = `WITH ${ctes.join(', ')} SELECT "objectId", "createdAt", "updatedAt", ${this.selectDoc()} FROM (${arms.join(' UNION ALL ')}) AS "_t" ORDER BY ${order} LIMIT ${pageNumber(query.limit)} OFFSET ${pageNumber(query.skip)}`;
    // Each ring is a narrow box whatever the values, so one plan serves every run; planning the
    // rings anew would cost PostgreSQL several times what running them does.
    return { sql, params: params.values, planOnce: true };
  }

  count(table: (className: string) => string, className: string, where: WhereNode, hint?: IndexHint): CompiledSql {
    const params = this.params(table);
    return { sql: `SELECT count(*) AS "n" FROM ${this.hinted(table(className), className, hint)} WHERE ${this.where(where, params)}`, params: params.values };
  }
}

/** What `armsPage` merges: SQL text, each part already checked or compiled. */
export interface ArmsPage {
  readonly table: string;
  readonly field: string;
  readonly order: string;
  readonly rows: string;
  readonly page: string;
}

/** The parts of a where that must all hold, `and` within `and` flattened. */
function conjuncts(node: WhereNode): readonly WhereNode[] {
  return node.kind === 'and' ? node.nodes.flatMap(conjuncts) : [node];
}
