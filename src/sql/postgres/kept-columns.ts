import type { ValueKind } from '../../query/ast.ts';
import type { KeptColumnsSql, KeptReading } from '../kept-columns.ts';
import { ident, PUBLIC_COLUMN, safeKey } from '../params.ts';

/** Marks a column comment as a kept reading's record (a JSON object under this key). */
const NOTE_KEY = 'basaltKept';

/** Column types of a reading: the types fieldExpr's expressions have, text compared byte by byte. */
function columnType(as: ValueKind): string {
  return as === 'number' ? 'float8' : as === 'boolean' ? 'boolean' : 'text COLLATE "C"';
}

/**
 * PostgreSQL's kept columns. `read(path, as, row)` is the compiler's own reading of a field
 * (fieldExpr's expression) on the row named `row`, so the column always holds what the
 * expression gives, and a value the cast refuses fails the write as an expression index would.
 */
export class PostgresKeptColumns implements KeptColumnsSql {
  constructor(private readonly read: (path: readonly string[], as: ValueKind, row: string) => string) {}

  private expr(reading: KeptReading, row: string): string {
    if (reading.path === null) return `(${row}."_rperm" && '{*}'::text[])`;
    return this.read(reading.path.map(safeKey), reading.as, row);
  }

  addColumn(table: string, reading: KeptReading): string {
    return `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS ${ident(reading.column)} ${reading.path === null ? 'boolean' : columnType(reading.as)}`;
  }

  describe(table: string, reading: KeptReading): string {
    const note = JSON.stringify({ [NOTE_KEY]: { path: reading.path, as: reading.as } });
    return `COMMENT ON COLUMN ${table}.${ident(reading.column)} IS '${note.replace(/'/g, "''")}'`;
  }

  readonly columnsSql =
    `SELECT a.attname AS "column", col_description(a.attrelid, a.attnum) AS "note", a.attgenerated <> '' AS "generated" FROM pg_attribute a ` +
    `WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped AND (a.attname LIKE 'f.%' OR a.attname = '${PUBLIC_COLUMN}')`;

  readingOf(column: string, note: string | null): KeptReading | null {
    if (!note) return null;
    try {
      const kept = (JSON.parse(note) as Record<string, { path: string[] | null; as: ValueKind } | undefined>)[NOTE_KEY];
      return kept ? { column, path: kept.path, as: kept.as } : null;
    } catch {
      return null;
    }
  }

  trigger(table: string, fn: string, readings: readonly KeptReading[]): string[] {
    if (readings.length === 0) return [`DROP TRIGGER IF EXISTS "basalt_kept" ON ${table}`, `DROP FUNCTION IF EXISTS ${fn}()`];
    const assignments = readings.map((reading) => `NEW.${ident(reading.column)} := ${this.expr(reading, 'NEW')};`).join(' ');
    return [
      `CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $kept$ BEGIN ${assignments} RETURN NEW; END $kept$`,
      // Made once (CREATE OR REPLACE TRIGGER needs PostgreSQL 14); a new function body is all a change of the set needs.
      `DO $make$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = '${table.replace(/'/g, "''")}'::regclass AND tgname = 'basalt_kept') THEN ` +
        `CREATE TRIGGER "basalt_kept" BEFORE INSERT OR UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${fn}(); END IF; END $make$`,
    ];
  }

  batchEnd(table: string): string {
    return `SELECT max("objectId") AS "last" FROM (SELECT "objectId" FROM ${table} WHERE "objectId" > $1 ORDER BY "objectId" LIMIT $2) AS "b"`;
  }

  backfill(table: string, readings: readonly KeptReading[]): string {
    const sets = readings.map((reading) => `${ident(reading.column)} = ${this.expr(reading, '"r"')}`);
    const differs = readings.map((reading) => `"r".${ident(reading.column)} IS DISTINCT FROM ${this.expr(reading, '"r"')}`);
    // The bounds come first among the tests (cheaper), so no row outside the batch is read as a reading.
    return `UPDATE ${table} AS "r" SET ${sets.join(', ')} WHERE "r"."objectId" > $1 AND "r"."objectId" <= $2 AND (${differs.join(' OR ')})`;
  }

  lockTimeout(ms: number): string {
    return `SET LOCAL lock_timeout = ${Math.round(ms)}`;
  }

  lockTimedOut(error: unknown): boolean {
    return (error as { code?: unknown }).code === '55P03';
  }
}
