import type { AppNamespace } from '../sql/namespace.ts';
import type { Row } from '../sql/driver.ts';
import type { WriteStep } from './port.ts';
import { newObjectId } from './ids.ts';

/**
 * `unsent`: the app has no SMTP settings, so the mail waits here for the operator (the embedded
 * default works without a mail server); `failed`: the SMTP server refused it or could not be reached.
 */
export type OutboxStatus = 'unsent' | 'failed';

export interface OutboxEntry {
  readonly id: string;
  readonly createdAt: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string | null;
  readonly status: OutboxStatus;
  readonly error: string | null;
}

/** Mail kept in the app's own database, in the `_Outbox` table. */
export interface OutboxStore {
  add(entry: Omit<OutboxEntry, 'id' | 'createdAt'>): Promise<OutboxEntry>;
  /** The same row as a step of a unit of work (the mail of a sign-up is kept with the user). */
  addStep(entry: Omit<OutboxEntry, 'id' | 'createdAt'>): { readonly entry: OutboxEntry; readonly step: WriteStep };
  /**
   * Newest first (createdAt, then id, both descending), `limit` mails older than the mail
   * `before` names: a keyset page. null when `before` names no mail.
   */
  list(page: { readonly before: string | null; readonly limit: number }): Promise<OutboxEntry[] | null>;
}

export class SqlOutboxStore implements OutboxStore {
  constructor(private readonly ns: AppNamespace) {}

  async add(entry: Omit<OutboxEntry, 'id' | 'createdAt'>): Promise<OutboxEntry> {
    const { entry: stored, step } = this.addStep(entry);
    await step(this.ns.driver);
    return stored;
  }

  addStep(entry: Omit<OutboxEntry, 'id' | 'createdAt'>): { readonly entry: OutboxEntry; readonly step: WriteStep } {
    const d = this.ns.driver.dialect;
    const stored: OutboxEntry = { id: newObjectId(), createdAt: new Date().toISOString(), ...entry };
    const sql = `INSERT INTO ${this.ns.table('_Outbox')} ("id", "createdAt", "to", "subject", "text", "html", "status", "error") VALUES (${[1, 2, 3, 4, 5, 6, 7, 8].map((i) => d.placeholder(i)).join(', ')})`;
    const step: WriteStep = async (tx) => {
      await tx.run(sql, [stored.id, stored.createdAt, stored.to, stored.subject, stored.text, stored.html, stored.status, stored.error]);
    };
    return { entry: stored, step };
  }

  async list(page: { readonly before: string | null; readonly limit: number }): Promise<OutboxEntry[] | null> {
    const d = this.ns.driver.dialect;
    const table = this.ns.table('_Outbox');
    const columns = '"id", "createdAt", "to", "subject", "text", "html", "status", "error"';
    if (page.before === null) {
      const rows = await this.ns.driver.all(`SELECT ${columns} FROM ${table} ORDER BY "createdAt" DESC, "id" DESC LIMIT ${d.placeholder(1)}`, [page.limit]);
      return rows.map(toEntry);
    }
    const cursor = await this.ns.driver.all(`SELECT "createdAt" FROM ${table} WHERE "id" = ${d.placeholder(1)}`, [page.before]);
    if (!cursor[0]) return null;
    const rows = await this.ns.driver.all(
      `SELECT ${columns} FROM ${table} WHERE "createdAt" < ${d.placeholder(1)} OR ("createdAt" = ${d.placeholder(2)} AND "id" < ${d.placeholder(3)}) ORDER BY "createdAt" DESC, "id" DESC LIMIT ${d.placeholder(4)}`,
      [String(cursor[0].createdAt), String(cursor[0].createdAt), page.before, page.limit],
    );
    return rows.map(toEntry);
  }
}

function toEntry(row: Row): OutboxEntry {
  const nullable = (value: unknown) => (value === null || value === undefined ? null : String(value));
  return {
    id: String(row.id),
    createdAt: String(row.createdAt),
    to: String(row.to),
    subject: String(row.subject),
    text: String(row.text),
    html: nullable(row.html),
    status: row.status as OutboxStatus,
    error: nullable(row.error),
  };
}
