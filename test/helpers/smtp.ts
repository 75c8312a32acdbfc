import { SMTPServer } from 'smtp-server';

/** A mail as a local SMTP server received it, with its text body decoded. */
export interface ReceivedMail {
  /** Envelope recipients (RCPT TO). */
  readonly to: readonly string[];
  /** Envelope sender (MAIL FROM). */
  readonly from: string;
  /** Header name (lower case) → value, unfolded and with encoded words decoded. */
  readonly headers: ReadonlyMap<string, string>;
  readonly subject: string;
  readonly text: string;
}

export interface SmtpOptions {
  /** Require SMTP AUTH with exactly these credentials. */
  readonly auth?: { readonly user: string; readonly pass: string };
  /** Listen on this port (one a test chose before, where mail could not be delivered until now). */
  readonly port?: number;
}

/**
 * A real SMTP server on 127.0.0.1 for the tests (the `smtp-server` package): Basalt sends to it
 * with nodemailer as it would to any mail server. `settings(from)` is the app `email` setting
 * that points at it. STARTTLS is not offered: the server has no trusted certificate.
 */
export class TestSmtp {
  private readonly mails: ReceivedMail[] = [];
  private readonly waiters: { match: (mail: ReceivedMail) => boolean; resolve: (mail: ReceivedMail) => void }[] = [];
  /** Logins the server refused (wrong credentials). */
  refusedLogins = 0;

  private constructor(private readonly server: SMTPServer, readonly port: number) {}

  static async start(options: SmtpOptions = {}): Promise<TestSmtp> {
    let instance: TestSmtp | null = null;
    const server = new SMTPServer({
      logger: false,
      disabledCommands: options.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
      authOptional: !options.auth,
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        if (options.auth && auth.username === options.auth.user && auth.password === options.auth.pass) return callback(null, { user: auth.username });
        if (instance) instance.refusedLogins += 1;
        return callback(new Error('Invalid username or password'));
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const envelope = session.envelope;
          const from = envelope.mailFrom ? envelope.mailFrom.address : '';
          instance?.received(parseMail(Buffer.concat(chunks).toString('utf8'), envelope.rcptTo.map((rcpt) => rcpt.address), from));
          callback();
        });
      },
    });
    const port = await new Promise<number>((resolve, reject) => {
      server.on('error', reject);
      server.listen(options.port ?? 0, '127.0.0.1', () => {
        const address = server.server.address();
        if (typeof address === 'object' && address) resolve(address.port);
        else reject(new Error('the SMTP server has no port'));
      });
    });
    instance = new TestSmtp(server, port);
    return instance;
  }

  /** The app setting `email` that sends through this server. */
  settings(from: string, auth?: { user: string; pass: string }): Record<string, unknown> {
    return { host: '127.0.0.1', port: this.port, secure: false, from, ...(auth ? { auth } : {}) };
  }

  private received(mail: ReceivedMail): void {
    this.mails.push(mail);
    for (const waiter of [...this.waiters]) {
      if (waiter.match(mail)) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve(mail);
      }
    }
  }

  /**
   * The first mail to `address` that `skip` mails to it came before; waits until it arrives.
   * Mail is sent in the background, so a test waits here rather than reading right away.
   */
  mailTo(address: string, skip = 0): Promise<ReceivedMail> {
    const match = (mail: ReceivedMail) => mail.to.includes(address.toLowerCase());
    const already = this.mails.filter(match);
    if (already.length > skip) return Promise.resolve(already[skip]!);
    let seen = already.length;
    return new Promise((resolve) => {
      this.waiters.push({
        match: (mail) => match(mail) && seen++ === skip,
        resolve,
      });
    });
  }

  /** Mails received so far for `address`. */
  mailsTo(address: string): ReceivedMail[] {
    return this.mails.filter((mail) => mail.to.includes(address.toLowerCase()));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The first link of a mail's text that opens this page of Basalt (verify_email or reset_password). */
export function linkIn(mail: { text: string }, page: 'verify_email' | 'reset_password'): string {
  const match = new RegExp(`https?://\\S+/apps/[^/\\s]+/${page}\\?token=[A-Za-z0-9_%-]+`).exec(mail.text);
  if (!match) throw new Error(`no ${page} link in:\n${mail.text}`);
  return match[0];
}

/** Enough MIME for the mails under test: one text part, 7bit, quoted-printable or base64. */
function parseMail(raw: string, to: string[], from: string): ReceivedMail {
  const split = raw.indexOf('\r\n\r\n');
  const head = split === -1 ? raw : raw.slice(0, split);
  let body = split === -1 ? '' : raw.slice(split + 4);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), decodeWords(line.slice(colon + 1).trim()));
  }
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  if (encoding === 'quoted-printable') body = decodeQuotedPrintable(body);
  else if (encoding === 'base64') body = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return { to: to.map((address) => address.toLowerCase()), from, headers, subject: headers.get('subject') ?? '', text: body.replace(/\r\n/g, '\n') };
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  const joined = text.replace(/=\r?\n/g, '');
  for (let i = 0; i < joined.length; i++) {
    const hex = joined.slice(i + 1, i + 3);
    if (joined[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(...Buffer.from(joined[i]!, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`), as nodemailer writes non-ASCII headers. */
function decodeWords(value: string): string {
  return value.replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=\s*/g, (_all, _charset: string, kind: string, data: string) =>
    kind.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : decodeQuotedPrintable(data.replace(/_/g, ' ')),
  );
}
