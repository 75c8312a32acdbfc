import { conjuncts, type ElementOf, type FieldRef, type OrderKey, type RegexPattern, type SubQuery, type TextIndexRef, type ValueKind, type WhereNode } from '../query/ast.ts';
import { PUBLIC_COLUMN, ident, type Params, type SqlParam } from './params.ts';
import { prefixUpperBound } from '../query/regex.ts';
import { polygonBox } from './geo.ts';
import { pageNumber } from './compiler-base.ts';
import { GeoCompiler } from './compiler-geo.ts';


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

/**
 * The where reads a range of an index over stored columns and tests a read permission with
 * principals besides "*": the index's entries carry the permission list (`storedIndexInclude`),
 * so which entries pass can be decided before any row is read (see `lateRowReads`).
 */
export function permissionsInRange(where: WhereNode): boolean {
  const nodes = where.kind === 'and' ? where.nodes : [where];
  return nodes.some((node) => node.kind === 'acl' && node.access === 'read' && node.principals.some((principal) => principal !== '*')) && nodes.some(readsStoredRange);
}

/**
 * Beside read permissions that let "*" read (tested on `_public`, alone or `OR` the list, which no
 * index serves then), the where only bounds the stored column the page is first ordered by, at
 * least once. Whatever the values, the best plan is then a walk of that column's index in order.
 */
export function onlyTheOrderedRange(where: WhereNode, order: readonly OrderKey[]): boolean {
  const first = order[0];
  if (!first || first.distanceFrom || first.field.kind !== 'doc' || first.as === 'json') return false;
  const path = first.field.path.join('.');
  const nodes = conjuncts(where);
  let bounded = false;
  for (const node of nodes) {
    if (node.kind === 'acl') {
      if (node.access !== 'read' || !node.principals.includes('*')) return false;
      continue;
    }
    if ((node.kind !== 'compare' && node.kind !== 'in') || !readsStoredRange(node)) return false;
    if (node.as !== first.as || node.field.kind !== 'doc' || node.field.path.join('.') !== path) return false;
    bounded = true;
  }
  return bounded;
}

/**
 * The page is in objectId order and its where, beside read permissions of "*" alone (or none:
 * the master key), asks one value of a stored column that an index holds alone: whatever the
 * value, the best plan picks the page's ids from that index alone, from the value's first entry
 * in order (the caller writes the page that way, ids first). Planned for each value instead,
 * PostgreSQL spent more planning the page than reading it; and the plan it made once on its own
 * walked the primary key testing each row, which for a value no row holds reads the whole table.
 */
export function oneValueInIdOrder(where: WhereNode, order: readonly OrderKey[]): boolean {
  if (order.length > 1 || (order[0] && (order[0].field.kind !== 'column' || order[0].field.column !== 'objectId' || order[0].descending))) return false;
  const nodes = conjuncts(where);
  let column: string | null = null;
  for (const node of nodes) {
    if (node.kind === 'acl') {
      if (node.access !== 'read' || node.principals.some((principal) => principal !== '*')) return false;
      continue;
    }
    if (node.kind !== 'compare' || node.op !== 'eq' || node.field.kind !== 'doc' || !node.field.stored?.indexedAlone || !readsPublicColumn(node.field, node.as)) return false;
    if (column !== null && column !== node.field.stored.column) return false;
    column = node.field.stored.column;
  }
  return column !== null;
}

/** The field is read from its stored column (fieldExpr), whose indexes carry PUBLIC_COLUMN. */
function readsPublicColumn(field: FieldRef, as: ValueKind): boolean {
  return field.kind === 'doc' && field.stored?.publicColumn === true && field.stored.as === as;
}

/**
 * The compiler's WHERE: every node of the query AST as an SQL condition, with bound parameters;
 * inner queries and relations as sub-selects of the same statement.
 */
export abstract class WhereCompiler extends GeoCompiler {
  /** The array at `path` holds `value` (or an element whose `subKey` is `value`). */
  abstract arrayContains(path: readonly string[], value: SqlParam, as: ValueKind, params: Params, subKey?: string): string;
  abstract jsonEquals(path: readonly string[], json: string, params: Params): string;
  abstract acl(column: '_rperm' | '_wperm', principals: readonly string[], params: Params): string;
  /** Elements of the array at `path`, as a FROM item, and how one element is read. */
  abstract arrayElements(path: readonly string[]): { from: string; element: (of: ElementOf) => string };
  /** `expr` matches the regular expression (flags and dialect quirks handled by the dialect). */
  abstract regexMatch(expr: string, pattern: RegexPattern, params: Params): string;
  /** Every one of `words` (src/query/words.ts) is a word of the text `expr`. */
  abstract textMatch(expr: string, words: readonly string[], params: Params): string;
  /**
   * The text index finds every one of `words` in the text `expr`: a test the index answers. It
   * may hold for more rows than textMatch (never for fewer), which therefore follows it.
   */
  abstract textIndexMatch(index: TextIndexRef, expr: string, words: readonly string[], params: Params): string;

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

  protected regex(expr: string, pattern: RegexPattern, params: Params): string {
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
  protected subSelect(query: SubQuery, as: ValueKind, params: Params, alias?: string): string {
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

  protected inSubquery(field: FieldRef, as: ValueKind, element: ElementOf | null, query: SubQuery, params: Params): string {
    if (!element) return this.inSelected(this.fieldExpr(field, as), this.subSelect(query, as, params), query.limit);
    const { from, element: read } = this.arrayElements(this.docPath(field));
    return `EXISTS (SELECT 1 FROM ${from} WHERE ${read(element)} IN (${this.subSelect(query, element.as, params)}))`;
  }

  protected relatedTo(owningClass: string, owningId: string, field: string, ownerRead: readonly string[] | null, params: Params): string {
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

  /**
   * SQLite parses `a OR b OR c …` as a left-deep tree and refuses expressions nested more than
   * 1000 deep, so a `$in` of a thousand values would fail there. Long lists are grouped in halves,
   * which keeps the depth logarithmic; parameters stay in text order.
   */
  protected join(nodes: readonly WhereNode[], op: 'AND' | 'OR', params: Params, compile = (node: WhereNode) => this.where(node, params)): string {
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
  protected conjunction(nodes: readonly WhereNode[], params: Params): string {
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
  protected compare(field: FieldRef, op: string, value: SqlParam, as: ValueKind, params: Params): string {
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

  protected limit(limit: number, params: Params): string {
    return this.literalLimit ? pageNumber(limit) : params.add(limit);
  }
}
