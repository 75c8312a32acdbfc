import type { SmtpSettings } from '../apps/settings.ts';
import type { MailMessage, Mailer } from './port.ts';

/**
 * Sends through the app's SMTP server with nodemailer. A transport is made per message: mail is
 * rare (sign-ups, resets), and a fresh one always carries the app's current settings.
 */
export class SmtpMailer implements Mailer {
  constructor(private readonly settings: SmtpSettings) {}

  async send(message: MailMessage): Promise<void> {
    const { host, port, secure, auth, from } = this.settings;
    // Loaded on first use: most servers never send mail over SMTP, and nodemailer costs memory.
    const { createTransport } = await import('nodemailer');
    const transport = createTransport({
      host,
      ...(port === null ? {} : { port }),
      secure,
      ...(auth ? { auth } : {}),
      // nodemailer waits minutes by default; a mail server that does not answer within these is down.
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
    try {
      await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text });
    } finally {
      transport.close();
    }
  }
}
