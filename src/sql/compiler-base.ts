import type { FieldRef, IndexHint, ValueKind } from '../query/ast.ts';
import { Params, ident, safeKey } from './params.ts';
import type { Row, SqlParam } from './params.ts';


/** A page number written into SQL text: a whole number, checked again here. */
export function pageNumber(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`not a page number: ${n}`);
  return String(n);
}

export interface CompiledSql {
  readonly sql: string;
  readonly params: readonly SqlParam[];
  /** The best plan does not depend on the values, so every run may reuse one (and skip planning). */
  readonly planOnce?: boolean;
  /**
   * One plan serves every value, but PostgreSQL's own choice would plan each run anew (its generic
   * plan prices a bound OFFSET at a tenth of the rows): the statement runs on a plan made for any
   * values (StatementOptions.planForAnyValues).
   */
  readonly planForAnyValues?: boolean;
  /**
   * A reader page (compiler-pages.ts, `readerPage`) for a class whose read lists are all of one
   * principal besides "*": only the caller's own principals' entries are read. Where the class
   * holds any other list it answers one more row, all NULL (`isSharedListsMark`), and the page
   * must be read with the statement itself.
   */
  readonly ownListsOnly?: CompiledSql;
}

/** The row `CompiledSql.ownListsOnly` adds where its class holds read lists of "*" or of several principals. */
export function isSharedListsMark(row: Row): boolean {
  return row.objectId === null;
}

/**
 * The root of the one SQL compiler (see compiler.ts for the whole): what a statement can do on this
 * database, how a parameter and a field of the document are written. The compiler is one class
 * built in layers, a file per concern (compiler-base, -ddl, -geo, -where, -pages, then
 * compiler.ts); a dialect extends the last and overrides the handful of methods where SQLite and
 * PostgreSQL differ.
 */
export abstract class CompilerBase {
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
  /**
   * Whether a page whose permission test its index's entries can make (`permissionsInRange`)
   * first picks its ids from the index alone, then reads only those rows. PostgreSQL tests a
   * plain index scan's filter on the row, so a user who may read one object in twenty had each
   * page read some four hundred rows to keep twenty; an index-only scan tests the entries (see
   * docs/architecture.md, "Rows read last"). SQLite already tests an entry before reading its row.
   */
  readonly lateRowReads: boolean = false;
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

  /** Makes a text expression compare byte-wise, so both backends sort strings alike. */
  textCollate(expr: string): string {
    return expr;
  }

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

  protected rawText(field: FieldRef): string {
    return field.kind === 'column' ? ident(field.column) : this.docText(field.path.map(safeKey));
  }

  protected docPath(field: FieldRef): readonly string[] {
    if (field.kind !== 'doc') throw new Error('array operators apply to document fields only');
    return field.path.map(safeKey);
  }
}
