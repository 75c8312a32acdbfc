import type { FieldRef, FindQuery, IndexHint, OrderKey, WhereNode } from '../query/ast.ts';
import { and } from '../query/ast.ts';
import { ident, safeKey, type Params } from './params.ts';
import { nearestRings } from './geo.ts';
import { pageNumber, type CompiledSql } from './compiler-base.ts';
import { PageCompiler } from './compiler-pages.ts';
import { oneValueInIdOrder, onlyTheOrderedRange, permissionsInRange } from './compiler-where.ts';

// The compiler's public face: SqlCompiler, which dialects extend, and what they and the
// aggregate compiler share with it.
export { isSharedListsMark, pageNumber, type CompiledSql } from './compiler-base.ts';
export { MAX_PAGE_ARMS, type ArmsPage } from './compiler-pages.ts';

/** Rings repeat the filter once each; past this many values the plain statement is written. */
const MAX_RING_PARAMS = 30_000;

/**
 * The one SQL compiler. Dialects override the handful of methods where SQLite and PostgreSQL
 * differ (placeholders, JSON access, array containment, column types); everything else, and
 * every decision about what a query means, lives here and in the layers it extends, a file
 * each: compiler-base.ts (capabilities, parameters, field reads), compiler-ddl.ts,
 * compiler-geo.ts, compiler-where.ts, compiler-pages.ts; this file adds ORDER BY, SELECT and COUNT.
 */
export abstract class SqlCompiler extends PageCompiler {
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
      // objectId, createdAt and updatedAt are never null: a NULLS clause would only keep
      // PostgreSQL from reading them in the order of their index (ASC NULLS FIRST is no index's order).
      if (key.field.kind === 'column') return `${this.fieldExpr(key.field, key.as)} ${key.descending ? 'DESC' : 'ASC'}`;
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
    // A page beside a count is planned for its values on every run (countedSelect): the arms are
    // written only for pages that stand alone.
    const byReader = countWhere || literalPage ? null : this.readerPage(table, className, query);
    if (byReader) return byReader;
    const params = this.params(table);
    // Parameters are added in text order: SQLite numbers "?" by position.
    const from = this.hinted(table(className), className, query.hint);
    const counted = countWhere ? `, (SELECT count(*) FROM ${from} WHERE ${this.where(countWhere, params)}) AS "_n"` : '';
    const where = this.where(query.where, params);
    const order = this.orderBy(query.order, params);
    const page = literalPage ? ` LIMIT ${pageNumber(query.limit)} OFFSET ${pageNumber(query.skip)}` : ` LIMIT ${this.limit(query.limit, params)} OFFSET ${params.add(query.skip)}`;
    // A count's plan depends on how much of the range it counts.
    const idsFirst = this.lateRowReads && this.reusablePlaceholders;
    const oneValue = idsFirst && !countWhere && !literalPage && oneValueInIdOrder(query.where, query.order);
    const anyValues = oneValue || (!countWhere && !literalPage && onlyTheOrderedRange(query.where, query.order)) ? { planForAnyValues: true } : {};
    if (idsFirst && (oneValue || permissionsInRange(query.where))) {
      // The ids of the page from the index alone (run once, before the rows are read), then
      // their rows by primary key, sorted again (for one value, from the field's own index:
      // `oneValueInIdOrder`). A join of the two took PostgreSQL longer to
      // plan than the rows it saved took to read.
      const ids = `SELECT "objectId" FROM ${from} WHERE ${where} ORDER BY ${order}${page}`;
      const sql = `SELECT "objectId", "createdAt", "updatedAt", ${this.selectDoc()}${counted} FROM ${table(className)} WHERE "objectId" = ANY(ARRAY(${ids})) ORDER BY ${order}`;
      return { sql, params: params.values, ...anyValues };
    }
    return { sql: `SELECT "objectId", "createdAt", "updatedAt", ${this.selectDoc()}${counted} FROM ${from} WHERE ${where} ORDER BY ${order}${page}`, params: params.values, ...anyValues };
  }

  count(table: (className: string) => string, className: string, where: WhereNode, hint?: IndexHint): CompiledSql {
    const params = this.params(table);
    return { sql: `SELECT count(*) AS "n" FROM ${this.hinted(table(className), className, hint)} WHERE ${this.where(where, params)}`, params: params.values };
  }

  /**
   * How many rows of the conjunction `rest` hold each value of `field` read as a number
   * (storage/value-counts.ts), at most `limit` values, in no order: `v`, `n`. The field is read as
   * bounds compare it; `>= -Infinity` keeps every number and no row without one, and is a range
   * of the field's index like the bounds (a stored column's index then tests "*" on its entries).
   */
  valueCounts(table: (className: string) => string, className: string, field: FieldRef, rest: readonly WhereNode[], limit: number): CompiledSql {
    const params = this.params(table);
    const where = and([...rest, { kind: 'compare', field, op: 'gte', value: -Infinity, as: 'number' }]);
    const value = this.fieldExpr(field, 'number');
    const sql = `SELECT ${value} AS "v", count(*) AS "n" FROM ${table(className)} WHERE ${this.where(where, params)} GROUP BY ${value} LIMIT ${pageNumber(limit)}`;
    return { sql, params: params.values };
  }
}
