import type { AppNamespace } from './namespace.ts';
import { newObjectId } from '../apps/ids.ts';

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
}

export class SqlOutboxStore implements OutboxStore {
  constructor(private readonly ns: AppNamespace) {}

  async add(entry: Omit<OutboxEntry, 'id' | 'createdAt'>): Promise<OutboxEntry> {
    const d = this.ns.driver.dialect;
    const stored: OutboxEntry = { id: newObjectId(), createdAt: new Date().toISOString(), ...entry };
    await this.ns.driver.run(
      `INSERT INTO ${this.ns.table('_Outbox')} ("id", "createdAt", "to", "subject", "text", "html", "status", "error") VALUES (${[1, 2, 3, 4, 5, 6, 7, 8].map((i) => d.placeholder(i)).join(', ')})`,
      [stored.id, stored.createdAt, stored.to, stored.subject, stored.text, stored.html, stored.status, stored.error],
    );
    return stored;
  }
}
