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
