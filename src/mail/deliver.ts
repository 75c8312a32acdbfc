import { smtpOf } from '../apps/settings.ts';
import type { AppRecord } from '../apps/types.ts';
import type { OutboxStore } from '../storage/sql-outbox.ts';
import type { JobStore } from '../storage/sql-jobs.ts';
import type { WriteStep } from '../storage/port.ts';
import type { MailLog, MailMessage } from './port.ts';

/** The job type that sends a mail over SMTP (queue/jobs/mail.ts). */
export const MAIL_JOB = 'mail';

/**
 * How a mail leaves, as a step of the unit of work that causes it (a sign-up, an address change,
 * a reset token), so the mail exists if and only if that write does. Without SMTP settings the
 * mail is written to the outbox. With them a `mail` job is queued: the queue sends it after the
 * commit, retries a failure with back-off, and keeps it in the outbox as `failed` after the last
 * attempt. A slow or absent mail server never holds up the request, and a mail accepted before
 * the process stops is sent after it starts again.
 */
export function mailStep(app: { readonly record: AppRecord; readonly outbox: OutboxStore; readonly jobs: JobStore }, log: MailLog, message: MailMessage): WriteStep {
  if (smtpOf(app.record.settings)) return app.jobs.enqueueStep({ type: MAIL_JOB, payload: message }).step;
  const { entry, step } = app.outbox.addStep({ to: message.to, subject: message.subject, text: message.text, html: null, status: 'unsent', error: null });
  return async (tx) => {
    await step(tx);
    log.info({ outboxId: entry.id, to: message.to, subject: message.subject, text: message.text }, 'mail kept in the outbox (the app has no SMTP settings)');
  };
}
