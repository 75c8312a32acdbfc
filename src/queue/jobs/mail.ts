import { smtpOf } from '../../apps/settings.ts';
import { OutboxMailer } from '../../mail/outbox.ts';
import { SmtpMailer } from '../../mail/smtp.ts';
import type { MailMessage } from '../../mail/port.ts';
import { PermanentJobError, type JobType } from '../types.ts';

/**
 * Sends one mail through the app's SMTP server (mail/deliver.ts enqueues it in the transaction
 * of the write that causes it). A repeat after a crash between the send and the job's removal
 * sends the mail twice: a second copy of the same link, which is harmless.
 */
export const mailJob: JobType<MailMessage> = {
  parse(payload) {
    const { to, subject, text } = (payload ?? {}) as Partial<Record<keyof MailMessage, unknown>>;
    if (typeof to !== 'string' || typeof subject !== 'string' || typeof text !== 'string') throw new PermanentJobError('mail: the payload must have to, subject and text');
    return { to, subject, text };
  },
  async run(message, { app, log }) {
    const smtp = smtpOf(app.record.settings);
    // The SMTP settings were removed after the mail was queued: it waits for the operator as any mail of such an app.
    if (!smtp) return new OutboxMailer(app.outbox, log).send(message);
    try {
      await new SmtpMailer(smtp).send(message);
    } catch (error) {
      // RFC 5321: a 5xx reply is a permanent refusal (a bad recipient, a refused login); asking
      // again gets the same answer. Connection failures and 4xx replies are worth retrying.
      const code = (error as { responseCode?: unknown }).responseCode;
      if (typeof code === 'number' && code >= 500 && code < 600) throw new PermanentJobError(error instanceof Error ? error.message : String(error));
      throw error;
    }
  },
  onDead(message, error, { app, log }) {
    log.error({ to: message.to, subject: message.subject, err: error }, 'SMTP delivery failed; the mail is kept in the outbox');
    return [app.outbox.addStep({ to: message.to, subject: message.subject, text: message.text, html: null, status: 'failed', error }).step];
  },
};
