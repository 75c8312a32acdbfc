import type { FieldRef, TextIndexRef, ValueKind } from '../query/ast.ts';
import { CompilerBase } from './compiler-base.ts';
import { ident, TIE_BREAK, type Row, type SqlParam } from './params.ts';
import type { KeptColumnsSql } from './kept-columns.ts';
import type { FieldType } from '../schema/types.ts';

/** The compiler's DDL: column types, locks, indexes (plain, stored columns, text) and field drops. */
/** What a class's reader indexes are made from: its schema row, or the part a schema change is making. */
export interface ReaderIndexRecord {
  readonly fields?: Readonly<Record<string, FieldType>>;
  readonly indexes?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly storedIndexes?: Readonly<Record<string, readonly { readonly column: string }[]>>;
  readonly readerIndexes?: readonly string[];
}

/** Reads the database's catalog (a connection, or a transaction). */
export interface CatalogReader {
  all(sql: string, params?: readonly SqlParam[]): Promise<Row[]>;
}

export abstract class DdlCompiler extends CompilerBase {
  /** Column types of a class table. */
  abstract readonly docType: string;
  abstract readonly permsType: string;
  abstract readonly keyType: string;
  /**
   * A statement taking a lock, keyed by its one parameter, held until the transaction ends; null
   * where transactions already exclude each other (SQLite's BEGIN IMMEDIATE).
   */
  /**
   * Lifts the statement time limit for the rest of a transaction (schema changes: a CREATE INDEX
   * on a big table or a wait for a table lock may rightly run long); null where there is none.
   */
  unlimitedStatementsSql(): string | null {
    return null;
  }
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
  /** The columns of the index every class table has on createdAt. */
  readonly createdAtIndexColumns: string = '"createdAt"';
  /** Statements keeping a class table's read permission lists in the spelling its filter compares by text (SQLite). */
  permsSpelling(_className: string, _table: string): string[] {
    return [];
  }
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
  /**
   * Columns kept equal to a reading by a row trigger, added without rewriting the table (the
   * automatic indexes' columns, storage/kept-columns.ts); null where there are none.
   */
  readonly keptColumns: KeptColumnsSql | null = null;
  /**
   * The expression leading the reader index made beside schema indexes (over stored columns, or
   * over expressions: `expressionReaderIndexes`): the one principal of a read permission list of
   * one, and '' for every other list. A user's page then reads each of the user's principals' own entries, in the
   * index's order, instead of walking every reader's (sql/compiler-pages.ts, `readerPage`); null
   * where there are no reader indexes.
   */
  readonly readerKey: string | null = null;
  /**
   * Whether the reader index stands beside each schema index over expressions whose first key is
   * a field read as its type (SQLite, which keeps no stored columns), rather than beside each
   * schema index over stored columns (PostgreSQL).
   */
  readonly expressionReaderIndexes: boolean = false;
  /**
   * The key list of a schema index over stored columns: each column in its key's direction, then
   * the tie break (TIE_BREAK).
   */
  storedIndexKeys(columns: readonly string[], descending: readonly boolean[]): string[] {
    return [...columns.map((column, i) => `${ident(column)} ${this.orderDirection(descending[i] === true)}`), TIE_BREAK];
  }
  /**
   * The statement making a schema index over stored columns (`keys`, from `storedIndexKeys`);
   * its reader index is made apart (`readerIndexSql`). `online`: built while writes go on (outside
   * any transaction).
   */
  storedIndexSql(table: string, name: string, keys: readonly string[], online: boolean): string {
    return `${this.createIndex(online)} ${ident(name)} ON ${table} (${keys.join(', ')})${this.storedIndexInclude}`;
  }
  /**
   * The key list the reader index beside the schema index `indexName` takes after the reader key,
   * or null where that index has none: here, the index's stored columns (none over expressions).
   */
  async readerIndexKeys(_ex: CatalogReader, _table: string, _className: string, indexName: string, schema: ReaderIndexRecord): Promise<readonly string[] | null> {
    const columns = schema.storedIndexes?.[indexName];
    if (!this.readerKey || !columns) return null;
    const descending = Object.values(schema.indexes?.[indexName] ?? {}).map((direction) => direction === -1);
    return this.storedIndexKeys(columns.map((column) => column.column), descending);
  }
  /** The reader index beside a schema index over stored columns: the same keys led by the reader key; null where there is none. */
  readerIndexSql(table: string, name: string, keys: readonly string[], online: boolean): string | null {
    return this.readerKey ? `${this.createIndex(online)} ${ident(name)} ON ${table} (${this.readerKey}, ${keys.join(', ')})${this.storedIndexInclude}` : null;
  }
  private createIndex(online: boolean): string {
    return `CREATE INDEX${online ? this.onlineIndexKeyword : ''} IF NOT EXISTS`;
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
  /**
   * A query with the qualified table name as parameter answering `rows` (the planner's estimate)
   * and `changed` (rows inserted, updated or deleted since the table was last analyzed); null
   * where statistics are not kept up by Basalt (storage/statistics-keeper.ts).
   */
  changesSinceAnalyzeSql(): string | null {
    return null;
  }
  /** Refreshes the table's statistics (and what else the planner reads of it) in the background of reads and writes; null where not kept. */
  keepStatisticsSql(_table: string): string | null {
    return null;
  }
  /** Expression-index column list entry (PostgreSQL wants expressions in parentheses). */
  indexExpr(expr: string, descending: boolean): string {
    return `${expr} ${this.orderDirection(descending)}`;
  }
  /**
   * Put after CREATE INDEX to build an index while writes go on (PostgreSQL's CONCURRENTLY, which
   * must run outside any transaction); empty where the database has no such build.
   */
  readonly onlineIndexKeyword: string = '';
  /**
   * A query with the namespace and the index name as parameters that returns a row when the
   * index exists but is not usable (an online build that failed leaves one); null where a failed
   * build leaves nothing behind.
   */
  invalidIndexSql(): string | null {
    return null;
  }
  /**
   * A query with the namespace and the table name as parameters returning `name` and `scans`
   * (times the planner read each index of the table since statistics were last reset); null where
   * the database keeps no such count.
   */
  indexScansSql(): string | null {
    return null;
  }
  /** The document with one top-level key removed (for dropping a field's data). */
  abstract removeKey(doc: string, key: string): string;
  /** A query returning a row when the index exists: `qualified` as `qualifyIndex` writes it, `name` bare. */
  abstract indexExists(qualified: string, name: string): { sql: string; params: string[] };
  /**
   * Statements giving the index `qualified` (on `columns` of `table`) the bare name `name`, in
   * the same namespace.
   */
  abstract renameIndex(qualified: string, name: string, table: string, columns: string): string[];
  /** An identifier for an index in the app's namespace, for DROP INDEX. */
  abstract qualifyIndex(namespace: string | null, indexName: string): string;
  /**
   * Statements creating the text index `index` over the text at `field` (a String field) and
   * filling it from the class's rows; `qualify` names an object of the app's namespace. From then
   * on every write of the class keeps the index in step, within the writing statement.
   */
  abstract createTextIndex(index: TextIndexRef, field: FieldRef, qualify: (name: string) => string): string[];
  /** Statements dropping the text index and everything that keeps it; each does nothing when run again. */
  abstract dropTextIndex(index: TextIndexRef, qualify: (name: string) => string): string[];
}
