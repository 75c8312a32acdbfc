import Database from 'better-sqlite3';
import type pg from 'pg';
import { postgresApp, sqliteApp } from './app-database.ts';
import type { Target } from './targets.ts';

/**
 * What a text index is in the database, read beside the server: on SQLite an FTS5 table (with
 * its shadow tables) and three triggers on the class table, on PostgreSQL a GIN index and the
 * function it is built on. Each is named after the schema index, "<class>_idx:<index>…".
 */
export interface TextIndexDb {
  /** Every table, trigger, index and function of the app whose name starts with "<className>_idx:", as "<kind> <name>", sorted. */
  objects(className: string): Promise<string[]>;
  /**
   * The plan of the lookup the compiler writes for `{field: {$text: {$search: {$term: word}}}}`
   * through the text index `index` (without the word test that follows it). On PostgreSQL
   * sequential scans are priced out, so a table of a few rows still shows what the index can do.
   */
  plan(className: string, index: string, field: string, word: string): Promise<string>;
  /** The objectIds the SQLite FTS5 table of the index holds (SQLite only). */
  indexedIds(className: string, index: string): Promise<string[]>;
  /** Removes one object's row from the SQLite FTS5 table of the index, behind the server's back (SQLite only). */
  forget(className: string, index: string, objectId: string): Promise<void>;
  close(): Promise<void>;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

export async function openTextIndexDb(target: Target, markerClass: string): Promise<TextIndexDb> {
  return target.backend === 'postgres' ? postgresDb(markerClass) : sqliteDb(markerClass);
}

async function postgresDb(markerClass: string): Promise<TextIndexDb> {
  const { client, schema }: { client: pg.Client; schema: string } = await postgresApp(markerClass);
  await client.query('SET enable_seqscan = off');
  return {
    async objects(className) {
      const prefix = `${className}_idx:`;
      const { rows } = await client.query(
        `SELECT (CASE c.relkind WHEN 'i' THEN 'index ' ELSE 'relation ' END) || c.relname AS "o" FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND left(c.relname, length($2)) = $2
         UNION ALL SELECT 'function ' || p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 AND left(p.proname, length($2)) = $2 ORDER BY 1`,
        [schema, prefix],
      );
      return rows.map((row) => String(row.o)).sort();
    },
    async plan(className, index, field, word) {
      const fn = `${quote(schema)}.${quote(`${className}_idx:${index}`)}`;
      const sql = `EXPLAIN SELECT "objectId" FROM ${quote(schema)}.${quote(className)} WHERE ${fn}((("data"->>'${field}') COLLATE "C")) @> ARRAY['${word}']::text[]`;
      const { rows } = await client.query(sql);
      return rows.map((row) => String(row['QUERY PLAN'])).join('\n');
    },
    async indexedIds() {
      throw new Error('the words of a GIN index cannot be listed');
    },
    async forget() {
      throw new Error('a GIN index cannot be changed behind the server');
    },
    async close() {
      await client.end();
    },
  };
}

function sqliteDb(markerClass: string): TextIndexDb {
  const file = sqliteApp(markerClass);
  const fts = (className: string, index: string) => quote(`${className}_idx:${index}:words`);
  return {
    async objects(className) {
      const prefix = `${className}_idx:`;
      const rows = file.prepare(`SELECT "type" || ' ' || "name" AS "o" FROM sqlite_master WHERE substr("name", 1, length(?)) = ? ORDER BY "name"`).all(prefix, prefix) as { o: string }[];
      return rows.map((row) => row.o).sort();
    },
    async plan(className, index, _field, word) {
      const sql = `EXPLAIN QUERY PLAN SELECT "objectId" FROM ${quote(className)} WHERE "objectId" IN (SELECT "objectId" FROM ${fts(className, index)} WHERE "words" MATCH '"${word}"') ORDER BY "objectId" LIMIT 100`;
      return (file.prepare(sql).all() as { detail: string }[]).map((row) => row.detail).join('\n');
    },
    async indexedIds(className, index) {
      const rows = file.prepare(`SELECT "objectId" FROM ${fts(className, index)} ORDER BY "objectId"`).all() as { objectId: string }[];
      return rows.map((row) => row.objectId);
    },
    async forget(className, index, objectId) {
      // The reading handle is read-only; a short-lived writer waits for the server's own writes.
      const writer = new Database(file.name, { fileMustExist: true, timeout: 10_000 });
      try {
        writer.prepare(`DELETE FROM ${fts(className, index)} WHERE "objectId" MATCH ? AND "objectId" = ?`).run(`"${objectId}"`, objectId);
      } finally {
        writer.close();
      }
    },
    async close() {
      file.close();
    },
  };
}
