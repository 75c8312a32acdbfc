import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import type { Target } from './targets.ts';
import { postgresApp, sqliteApp } from './app-database.ts';

/**
 * What a request did to the database itself, read beside the server (never through src/):
 * PostgreSQL keeps an app in the schema app_<namespace> of TEST_POSTGRES_URL; SQLite in the file
 * apps/<namespace>.db under TEST_SQLITE_DATA_DIR. The app's namespace is not part of the API, so
 * the app is found by a class that only it has.
 */
export interface Storage {
  tableExists(className: string): Promise<boolean>;
  /** Index name → its definition, for every index on the class table. */
  indexes(className: string): Promise<Map<string, string>>;
  /** The indexes on the class table whose database name contains `fragment`, reader indexes left out. */
  indexesNamed(className: string, fragment: string): Promise<[name: string, definition: string][]>;
  /**
   * The plan the database picks for a query on the class table with this WHERE clause. On
   * PostgreSQL sequential scans are priced out, so that on tables of a few rows the plan still
   * shows whether an index can answer the query.
   */
  plan(className: string, where: string): Promise<string>;
  /** Rows of the app's relation join table for one class and field. */
  joinRows(className: string, field: string): Promise<number>;
  /** Every object of the class as stored: its id and its JSON document, server-only fields included. */
  documents(className: string): Promise<StoredDocument[]>;
  /** Replaces the JSON document of one object, for state the API cannot create (an imported password hash). */
  writeDocument(className: string, objectId: string, data: Record<string, unknown>): Promise<void>;
  /**
   * Runs one schema statement in the app's database, for state the API no longer creates (an
   * index of an older shape); `qualified` names a table or index of the app.
   */
  execute(statement: (qualified: (name: string) => string) => string): Promise<void>;
  close(): Promise<void>;
}

export interface StoredDocument {
  readonly objectId: string;
  readonly data: Record<string, any>;
}

/** A PostgreSQL reader index, made beside a schema index (docs/architecture.md, "Reader indexes"). */
export const isReaderIndex = (name: string) => name.includes('_rdr:');

/** Opens the storage of the app on `target` that holds the table of `markerClass`. */
export async function openStorage(target: Target, markerClass: string): Promise<Storage> {
  const base = target.backend === 'postgres' ? await postgresStorage(markerClass) : sqliteStorage(markerClass);
  return {
    ...base,
    async indexesNamed(className, fragment) {
      return [...(await base.indexes(className))].filter(([name]) => name.includes(fragment) && !isReaderIndex(name));
    },
  };
}


async function postgresStorage(markerClass: string): Promise<Omit<Storage, 'indexesNamed'>> {
  const { client, schema } = await postgresApp(markerClass);
  await client.query('SET enable_seqscan = off');
  return {
    async tableExists(className) {
      return (await client.query('SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = $2', [schema, className])).rows.length === 1;
    },
    async indexes(className) {
      const { rows } = await client.query('SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = $2', [schema, className]);
      return new Map(rows.map((row) => [String(row.indexname), String(row.indexdef)]));
    },
    async plan(className, where) {
      const { rows } = await client.query(`EXPLAIN SELECT "objectId" FROM "${schema}"."${className}" WHERE ${where}`);
      return rows.map((row) => String(row['QUERY PLAN'])).join('\n');
    },
    async joinRows(className, field) {
      const { rows } = await client.query(`SELECT count(*)::int AS n FROM "${schema}"."_Join" WHERE "owningClass" = $1 AND "owningField" = $2`, [className, field]);
      return Number(rows[0].n);
    },
    async documents(className) {
      const { rows } = await client.query(`SELECT "objectId", "data" FROM "${schema}"."${className}" ORDER BY "objectId"`);
      return rows.map((row) => ({ objectId: String(row.objectId), data: row.data as Record<string, any> }));
    },
    async writeDocument(className, objectId, data) {
      const result = await client.query(`UPDATE "${schema}"."${className}" SET "data" = $1::jsonb WHERE "objectId" = $2`, [JSON.stringify(data), objectId]);
      assert.equal(result.rowCount, 1, `${className} ${objectId} is stored`);
    },
    async execute(statement) {
      await client.query(statement((name) => `"${schema}"."${name}"`));
    },
    async close() {
      await client.end();
    },
  };
}

function sqliteStorage(markerClass: string): Omit<Storage, 'indexesNamed'> {
  const file = sqliteApp(markerClass);
  return {
    async tableExists(className) {
      return file.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(className) !== undefined;
    },
    async indexes(className) {
      const rows = file.prepare(`SELECT name, coalesce(sql, '') AS sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ?`).all(className) as { name: string; sql: string }[];
      return new Map(rows.map((row) => [row.name, row.sql]));
    },
    async plan(className, where) {
      const rows = file.prepare(`EXPLAIN QUERY PLAN SELECT "objectId" FROM "${className}" WHERE ${where}`).all() as { detail: string }[];
      return rows.map((row) => row.detail).join('\n');
    },
    async joinRows(className, field) {
      const row = file.prepare(`SELECT count(*) AS n FROM "_Join" WHERE "owningClass" = ? AND "owningField" = ?`).get(className, field) as { n: number };
      return row.n;
    },
    async documents(className) {
      const rows = file.prepare(`SELECT "objectId", json("data") AS "data" FROM "${className}" ORDER BY "objectId"`).all() as { objectId: string; data: string }[];
      return rows.map((row) => ({ objectId: row.objectId, data: JSON.parse(row.data) as Record<string, any> }));
    },
    async writeDocument(className, objectId, data) {
      // The reading handle is read-only; a short-lived writer waits for the server's own writes.
      const writer = new Database(file.name, { fileMustExist: true, timeout: 10_000 });
      try {
        const result = writer.prepare(`UPDATE "${className}" SET "data" = jsonb(?) WHERE "objectId" = ?`).run(JSON.stringify(data), objectId);
        assert.equal(result.changes, 1, `${className} ${objectId} is stored`);
      } finally {
        writer.close();
      }
    },
    async execute(statement) {
      const writer = new Database(file.name, { fileMustExist: true, timeout: 10_000 });
      try {
        writer.exec(statement((name) => `"${name}"`));
      } finally {
        writer.close();
      }
    },
    async close() {
      file.close();
    },
  };
}
