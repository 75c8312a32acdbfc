import type { FindQuery, OrderKey } from '../query/ast.ts';
import { and, conjuncts, type WhereNode } from '../query/ast.ts';
import { ident, type Params } from './params.ts';
import { capBox, type RingSearch } from './geo.ts';
import { pageNumber, type CompiledSql } from './compiler-base.ts';
import { onlyTheOrderedRange, WhereCompiler } from './compiler-where.ts';

/**
 * A page of objectId order under an indexed `$inQuery` is merged from one ordered read per
 * inner value up to this many values (each read is an index seek and at most skip + limit
 * entries); past it the page is read in objectId order, testing each row (see `inQueryPage`).
 */
export const MAX_PAGE_ARMS = 32;

/**
 * A user's page reads the reader index once per principal of the caller up to this many (see
 * `readerPage`); a caller with more (a user in many roles) has the schema index walked instead.
 */
export const MAX_READER_ARMS = 16;

/**
 * The compiler's two pages that are not one plain SELECT: a page in objectId order under an
 * indexed `$inQuery`, and a nearest-first page searched in growing rings.
 */
export abstract class PageCompiler extends WhereCompiler {
  abstract orderBy(order: readonly OrderKey[], params: Params): string;

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
  protected inQueryPage(table: (className: string) => string, className: string, query: FindQuery): CompiledSql | null {
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
   * A page for a caller with principals besides "*", first ordered by a field that leads a schema
   * index with a reader index beside it (the dialect's `readerKey`), and bounded on that field.
   * Walked in order, the schema index tests every reader's entries of the range: a user among
   * twenty reads about twenty entries for each of the page's rows. Here each of the caller's
   * principals has an arm reading, in the reader index, only the entries of lists holding that
   * one principal, in the page's order, at most skip + limit of them; lists of several principals
   * (the key '') have one arm that tests each entry as before. The arms are merged in the page's
   * order and the merge stops at the page. Each readable row is in exactly one arm: a list of one
   * principal in that principal's, any other in the last.
   * Many classes hold no list but lists of one principal besides "*" (each object its owner's):
   * there the arms of "*" and of '' read nothing, yet starting and ending them was a quarter of
   * PostgreSQL's work for the page. So the page also comes in a form with only the caller's own
   * principals' arms (`ownListsOnly`), which answers one more row, all NULL, where the class holds
   * any entry of the keys "*" or '' (a check of the reader index in the page's own snapshot,
   * cheaper than the two arms); the store then reads the page again in the full form and uses
   * that form for the class from then on (storage/sql-store.ts, `readPage`).
   * Null where the plain statement serves: no reader key, no such order or range, a hint, or more
   * principals than MAX_READER_ARMS; `readerArms` writes the statements.
   */
  protected readerPage(table: (className: string) => string, className: string, query: FindQuery): CompiledSql | null {
    const key = this.readerKey;
    const first = query.order[0];
    if (!key || query.hint || !first || first.distanceFrom || first.field.kind !== 'doc' || !first.field.leadsReaderIndex) return null;
    const path = first.field.path.join('.');
    const parts = conjuncts(query.where);
    const acl = parts.find((part): part is Extract<WhereNode, { kind: 'acl' }> => part.kind === 'acl' && part.access === 'read');
    const bounded = parts.some((part) => ((part.kind === 'compare' && part.op !== 'ne') || part.kind === 'in') && part.field.kind === 'doc' && part.field.path.join('.') === path);
    if (!acl || !bounded) return null;
    const principals = [...new Set(acl.principals)].filter((principal) => principal !== '');
    if (!principals.some((principal) => principal !== '*') || principals.length > MAX_READER_ARMS) return null;
    return this.readerArms({ from: table(className), table, query, key, parts, acl, principals });
  }

  /**
   * The statements of a reader page (see `readerPage`), over stored columns: a first page reads
   * its rows in the arms (the last arm picks its ids from the index alone first: most of its
   * entries may fail the test); a page past a skip picks its ids from the index alone, then reads
   * only their rows, by primary key, as `lateRowReads` pages do. The check for other lists reads
   * the reader index from its first entry: '' and "*" are at most "*" in any collation (in byte
   * order, besides them, only keys starting with a character before "*", which then read the
   * page in full: slower, never wrong). Asked as the first such key in the index's order, it is
   * read from the index whatever the table's statistics say; as EXISTS, a table not yet analyzed
   * was walked whole. Asking for the two keys by name made two descents, half again the cost.
   */
  protected readerArms({ from, table, query, key, parts, acl, principals }: ReaderArms): CompiledSql | null {
    // The merge sorts the arms' rows by the page's order, so each arm carries what that order
    // reads: every key of the order is a column, the first the stored column of the bound field.
    const sortColumns = new Set(['"objectId"']);
    for (const orderKey of query.order) {
      if (orderKey.distanceFrom || (orderKey.field.kind === 'doc' && !orderKey.field.stored)) return null;
      sortColumns.add(ident(orderKey.field.kind === 'doc' ? orderKey.field.stored!.column : orderKey.field.column));
    }
    const idsFirst = query.skip > 0;
    const columns = [...new Set([...(idsFirst ? [] : ['"objectId"', '"createdAt"', '"updatedAt"', '"data"']), ...sortColumns])].join(', ');
    const statement = (shared: boolean): CompiledSql => {
      const params = this.params(table);
      const order = this.orderBy(query.order, params);
      const rest = this.where(and(parts.filter((part) => part !== acl)), params);
      const where = shared ? this.where(query.where, params) : '';
      const limit = params.add(query.limit);
      const skip = params.add(query.skip);
      const rows = `(${limit}::int8 + ${skip}::int8)`;
      const own = shared ? principals : principals.filter((principal) => principal !== '*');
      const principalsAt = own.map((principal) => params.add(principal));
      const arms = principalsAt.map((at) => `(SELECT ${columns} FROM ${from} WHERE ${key} = ${at}::text AND ${rest} ORDER BY ${order} LIMIT ${rows})`);
      if (shared) {
        const sharedIds = `SELECT ${idsFirst ? columns : '"objectId"'} FROM ${from} WHERE ${key} = '' AND ${where} ORDER BY ${order} LIMIT ${rows}`;
        arms.push(idsFirst ? `(${sharedIds})` : `(SELECT ${columns} FROM ${from} WHERE "objectId" = ANY(ARRAY(${sharedIds})) ORDER BY ${order})`);
      }
      const merged = `FROM (${arms.join(' UNION ALL ')}) AS "_r" ORDER BY ${order} LIMIT ${limit} OFFSET ${skip}`;
      const page = idsFirst
        ? `SELECT "objectId", "createdAt", "updatedAt", ${this.selectDoc()} FROM ${from} WHERE "objectId" = ANY(ARRAY(SELECT "objectId" ${merged})) ORDER BY ${order}`
        : arms.length === 1
          ? // One arm (a user in no role, of own lists) is the page itself, with no merge around it.
            `SELECT "objectId", "createdAt", "updatedAt", ${this.selectDoc()} FROM ${from} WHERE ${key} = ${principalsAt[0]}::text AND ${rest} ORDER BY ${order} LIMIT ${limit} OFFSET ${skip}`
          : `SELECT "objectId", "createdAt", "updatedAt", ${this.selectDoc()} ${merged}`;
      const sql = shared ? page : `(${page}) UNION ALL SELECT NULL, NULL, NULL, NULL WHERE (SELECT ${key} FROM ${from} WHERE ${key} <= '*' ORDER BY ${key} LIMIT 1) IS NOT NULL`;
      return { sql, params: params.values, ...(onlyTheOrderedRange(query.where, query.order) ? { planForAnyValues: true } : {}) };
    };
    return { ...statement(true), ownListsOnly: statement(false) };
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
}

/** What `armsPage` merges: SQL text, each part already checked or compiled. */
export interface ArmsPage {
  readonly table: string;
  readonly field: string;
  readonly order: string;
  readonly rows: string;
  readonly page: string;
}

/** What `readerArms` writes a reader page from, checked by `readerPage`. */
export interface ReaderArms {
  /** The class table, named. */
  readonly from: string;
  readonly table: (className: string) => string;
  readonly query: FindQuery;
  /** The dialect's `readerKey`. */
  readonly key: string;
  /** The conjuncts of the query's where, `acl` among them. */
  readonly parts: readonly WhereNode[];
  readonly acl: Extract<WhereNode, { kind: 'acl' }>;
  /** The caller's principals, each once, '' left out. */
  readonly principals: readonly string[];
}
