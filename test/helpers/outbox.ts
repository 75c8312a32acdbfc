import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Target } from './targets.ts';

/** A row of an app's `_Outbox` table: mail kept because there is no SMTP server, or it failed. */
export interface OutboxRow {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly status: string;
  readonly error: string | null;
}

/**
 * Reads the outbox and the emailed-link tokens of one app beside the server, never through src/
 * (like storage.ts): the app is the one whose database holds the table of `markerClass`.
 */
export interface MailTables {
  outbox(to?: string): Promise<OutboxRow[]>;
  /** Every stored token value (the `hash` column). */
  tokenHashes(): Promise<string[]>;
  close(): Promise<void>;
}

export async function openMailTables(target: Target, markerClass: string): Promise<MailTables> {
  return target.backend === 'postgres' ? postgresTables(markerClass) : sqliteTables(markerClass);
}

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests with \`npm test\`.`);
  return value;
}

function toRow(row: Record<string, unknown>): OutboxRow {
  return { to: String(row.to), subject: String(row.subject), text: String(row.text), status: String(row.status), error: row.error == null ? null : String(row.error) };
}

async function postgresTables(markerClass: string): Promise<MailTables> {
  const client = new pg.Client({ connectionString: env('TEST_POSTGRES_URL') });
  await client.connect();
  const found = await client.query(`SELECT schemaname FROM pg_tables WHERE tablename = $1 AND schemaname LIKE 'app\\_%'`, [markerClass]);
  assert.equal(found.rows.length, 1, `the app schema holding ${markerClass}`);
  const schema = String(found.rows[0].schemaname);
  return {
    async outbox(to) {
      const { rows } = await client.query(`SELECT * FROM "${schema}"."_Outbox" WHERE $1::text IS NULL OR "to" = $1 ORDER BY "createdAt", "id"`, [to ?? null]);
      return rows.map(toRow);
    },
    async tokenHashes() {
      const { rows } = await client.query(`SELECT "hash" FROM "${schema}"."_Token"`);
      return rows.map((row) => String(row.hash));
    },
    async close() {
      await client.end();
    },
  };
}

function sqliteTables(markerClass: string): MailTables {
  const dir = join(env('TEST_SQLITE_DATA_DIR'), 'apps');
  let db: Database.Database | null = null;
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.db'))) {
    let candidate: Database.Database | null = null;
    try {
      candidate = new Database(join(dir, file), { readonly: true, fileMustExist: true });
      if (candidate.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(markerClass)) {
        db = candidate;
        break;
      }
    } catch {
      // Other test files create and drop apps meanwhile.
    }
    candidate?.close();
  }
  assert.ok(db, `the app file holding ${markerClass}`);
  const file = db;
  return {
    async outbox(to) {
      const rows = file.prepare(`SELECT * FROM "_Outbox" WHERE ? IS NULL OR "to" = ? ORDER BY "createdAt", "id"`).all(to ?? null, to ?? null) as Record<string, unknown>[];
      return rows.map(toRow);
    },
    async tokenHashes() {
      return (file.prepare(`SELECT "hash" FROM "_Token"`).all() as { hash: string }[]).map((row) => row.hash);
    },
    async close() {
      file.close();
    },
  };
}
