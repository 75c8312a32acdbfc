import { smtpOf } from '../apps/settings.ts';
import type { AppRecord } from '../apps/types.ts';
import type { OutboxStore } from '../storage/sql-outbox.ts';
import { OutboxMailer } from './outbox.ts';
import type { MailLog, MailMessage } from './port.ts';
import { SmtpMailer } from './smtp.ts';

/**
 * Sends a mail the way the app is set up. Without SMTP settings it goes to the outbox before this
 * returns. With them it is handed to the SMTP server in the background, so that a slow or absent
 * mail server never holds up a sign-up; a mail the server does not take is kept in the outbox as
 * `failed`, with the reason, and logged.
 */
export async function deliverMail(app: { readonly record: AppRecord; readonly outbox: OutboxStore }, log: MailLog, message: MailMessage): Promise<void> {
  const smtp = smtpOf(app.record.settings);
  if (!smtp) {
    await new OutboxMailer(app.outbox, log).send(message);
    return;
  }
  void new SmtpMailer(smtp).send(message).catch(async (error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    log.error({ to: message.to, subject: message.subject, err: reason }, 'SMTP delivery failed; the mail is kept in the outbox');
    await app.outbox.add({ to: message.to, subject: message.subject, text: message.text, html: null, status: 'failed', error: reason.slice(0, 2000) }).catch((stored: unknown) => {
      log.error({ to: message.to, err: stored instanceof Error ? stored.message : String(stored) }, 'could not keep a failed mail in the outbox');
    });
  });
}
