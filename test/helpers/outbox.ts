import type { Target } from './targets.ts';
import { postgresApp, sqliteApp } from './app-database.ts';

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


function toRow(row: Record<string, unknown>): OutboxRow {
  return { to: String(row.to), subject: String(row.subject), text: String(row.text), status: String(row.status), error: row.error == null ? null : String(row.error) };
}

async function postgresTables(markerClass: string): Promise<MailTables> {
  const { client, schema } = await postgresApp(markerClass);
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
  const file = sqliteApp(markerClass);
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
