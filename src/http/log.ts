import type { Bindings, ChildLoggerOptions, Logger } from 'pino';

/**
 * Query parameters whose values never reach the log: GET /1/login carries the password in its
 * URL (spec 4.3), and the emailed verification and reset links carry single-use tokens.
 */
const SECRET_PARAMS = new Set(['password', 'token']);

/** What the request log prints of a request (the edge's EdgeRequest). */
interface LoggedRequest {
  readonly method: string;
  readonly url: string;
  readonly host: string;
  readonly ip: string;
  readonly socket?: { readonly remotePort?: number } | null;
}

/** The request as the request log prints it (pino's usual fields), with secret query values replaced. */
export function requestForLog(request: LoggedRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

export function redactUrl(url: string): string {
  const query = url.indexOf('?');
  if (query === -1) return url;
  const params = url
    .slice(query + 1)
    .split('&')
    .map((pair) => {
      const name = pair.split('=', 1)[0]!;
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // A broken escape is logged as sent; it cannot be a secret parameter's name.
      }
      return SECRET_PARAMS.has(decoded.toLowerCase()) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, query)}?${params.join('&')}`;
}

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type LogArgs = Parameters<Logger['info']>;

/**
 * A request's logger that makes pino's child (the request id bound into every line) only when a
 * line is written at an enabled level. Every request needs a logger of its own, and at the
 * default level most requests never log: the child was a few microseconds of every request.
 */
export class RequestLogger {
  private made: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get level(): string {
    return this.parent.level;
  }

  private write(level: Level, args: LogArgs): void {
    if (!this.parent.isLevelEnabled(level)) return;
    this.made ??= this.parent.child(this.bindings, this.options);
    this.made[level](...args);
  }

  fatal(...args: LogArgs): void {
    this.write('fatal', args);
  }
  error(...args: LogArgs): void {
    this.write('error', args);
  }
  warn(...args: LogArgs): void {
    this.write('warn', args);
  }
  info(...args: LogArgs): void {
    this.write('info', args);
  }
  debug(...args: LogArgs): void {
    this.write('debug', args);
  }
  trace(...args: LogArgs): void {
    this.write('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made.child(bindings, options);
  }
}

/** A request's logger: a lazy child, unless a level of its own is asked for. */
export function requestLogger(parent: Logger, bindings: Bindings, options: ChildLoggerOptions): Logger {
  if (options.level !== undefined) return parent.child(bindings, options);
  return new RequestLogger(parent, bindings, options) as unknown as Logger;
}
