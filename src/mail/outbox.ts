import type { OutboxStore } from '../storage/sql-outbox.ts';
import type { MailLog, MailMessage, Mailer } from './port.ts';

/**
 * For apps without SMTP settings: the mail is kept in the app's outbox and printed to the log,
 * so that the embedded default works with no mail server (decisions.md).
 */
export class OutboxMailer implements Mailer {
  constructor(
    private readonly outbox: OutboxStore,
    private readonly log: MailLog,
  ) {}

  async send(message: MailMessage): Promise<void> {
    const entry = await this.outbox.add({ to: message.to, subject: message.subject, text: message.text, html: null, status: 'unsent', error: null });
    this.log.info({ outboxId: entry.id, to: message.to, subject: message.subject, text: message.text }, 'mail kept in the outbox (the app has no SMTP settings)');
  }
}
