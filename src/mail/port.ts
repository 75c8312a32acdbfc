/** One mail as Basalt sends it: plain text, one recipient. */
export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

/** Where mail goes: an SMTP server (smtp.ts) or the app's outbox (outbox.ts). */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** What the mailers need of a logger (pino's shape). */
export interface MailLog {
  info(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}
