import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';

/**
 * Direct access to one test app's database, for tests that must check or prepare stored state.
 * The app is found by a class only it has: its namespace is not part of the API.
 */
export function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests with \`npm test\`.`);
  return value;
}

/** A connection to the test PostgreSQL database and the schema of the app holding `markerClass`. */
export async function postgresApp(markerClass: string): Promise<{ client: pg.Client; schema: string }> {
  const client = new pg.Client({ connectionString: env('TEST_POSTGRES_URL') });
  await client.connect();
  const found = await client.query(`SELECT schemaname FROM pg_tables WHERE tablename = $1 AND schemaname LIKE 'app\\_%'`, [markerClass]);
  assert.equal(found.rows.length, 1, `the app schema holding ${markerClass}`);
  return { client, schema: String(found.rows[0].schemaname) };
}

/**
 * VACUUMs the class's table until every page is marked all-visible, so that an index-only scan
 * reads no row. VACUUM marks a page only once no open transaction (another test's) may still not
 * see its rows.
 */
export async function vacuumUntilAllVisible(client: pg.Client, schema: string, className: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    await client.query(`VACUUM (ANALYZE) "${schema}"."${className}"`);
    const { rows } = await client.query(`SELECT relpages, relallvisible FROM pg_class WHERE oid = '"${schema}"."${className}"'::regclass`);
    if (Number(rows[0].relallvisible) >= Number(rows[0].relpages)) return;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

/**
 * Rows of the class read through an index so far (an index scan, a bitmap heap scan; not an
 * index-only scan of all-visible pages), as PostgreSQL's statistics have them now.
 */
export async function rowsReadThroughIndexes(client: pg.Client, schema: string, className: string): Promise<number> {
  await client.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await client.query('SELECT coalesce(idx_tup_fetch, 0)::int AS n FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = $2', [schema, className]);
  return Number(rows[0].n);
}

/** A handle on the SQLite file of the app holding `markerClass`, read-only unless asked. */
export function sqliteApp(markerClass: string, { writable = false } = {}): Database.Database {
  const dir = join(env('TEST_SQLITE_DATA_DIR'), 'apps');
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.db'))) {
    let candidate: Database.Database | null = null;
    try {
      candidate = new Database(join(dir, file), { readonly: !writable, fileMustExist: true });
      if (candidate.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(markerClass)) return candidate;
    } catch {
      // Other test files create and drop apps meanwhile; a file that vanished is not this app's.
    }
    candidate?.close();
  }
  assert.fail(`no app file holds ${markerClass}`);
}
