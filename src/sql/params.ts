import { createHash } from 'node:crypto';

/** A value bound to a statement: SQL owns it, the drivers in src/storage/ take it as it is. */
export type SqlParam = string | number | boolean | null | Buffer | readonly string[];
/** A result row as a driver returns it. */
export type Row = Record<string, unknown>;

/** Collects bound parameters while SQL text is built, so values never enter the text. */
export class Params {
  readonly values: SqlParam[] = [];
  constructor(
    private readonly placeholder: (index: number) => string,
    /** The qualified table of a class in the app being queried (for sub-queries). */
    readonly table: (className: string) => string = () => {
      throw new Error('this statement cannot reference other tables');
    },
  ) {}

  add(value: SqlParam): string {
    this.values.push(value);
    return this.placeholder(this.values.length);
  }
}

/**
 * The column of a class table (PostgreSQL, with schema indexes over stored columns) that tells
 * whether "*" may read the row: always equal to `"_rperm" && '{*}'`, and carried by the indexes.
 */
export const PUBLIC_COLUMN = '_public';

/** Quotes an identifier. Callers pass only names already validated by the schema layer. */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Field names reach SQL text only through here, after the same check the schema applies. */
export function safeKey(key: string): string {
  if (!/^[A-Za-z0-9_]+$/.test(key)) throw new Error(`unsafe key reached the SQL compiler: ${key}`);
  return key;
}

/**
 * The name of a database object of a class ("<className>_<suffix>"). PostgreSQL truncates
 * identifiers past 63 bytes; longer names keep a hash so they stay distinct.
 */
export function objectName(className: string, suffix: string): string {
  const name = `${className}_${suffix}`;
  if (Buffer.byteLength(name) <= 63) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 10);
  return `${name.slice(0, 50)}_${hash}`;
}

/**
 * Follows the keys of a schema index (not a unique one, whose uniqueness it would void, nor a
 * GeoPoint's): entries with equal keys are then in objectId order, the order every query breaks
 * ties by, so a page of one value of a field (an `$inQuery` arm, sql/compiler.ts) or of equal
 * sort keys is read in order rather than sorted.
 */
export const TIE_BREAK = '"objectId"';

/**
 * The database name of a schema-API index. Class names and index names never hold ":", so
 * "<class>_idx:<index>" can be neither another class's index nor a built-in "<class>_<column>"
 * index, whatever underscores the names contain.
 */
export function schemaIndexName(className: string, indexName: string): string {
  return objectName(className, `idx:${indexName}`);
}

/**
 * The database name of the reader index beside a schema index (see
 * `DdlCompiler.readerKey`): "<class>_rdr:<index>", for the same reasons as `schemaIndexName`.
 */
export function readerIndexName(className: string, indexName: string): string {
  return objectName(className, `rdr:${indexName}`);
}
