import type { AppHandle } from '../apps/registry.ts';
import type { Principals } from '../storage/port.ts';
import type { SessionInfo } from '../auth/sessions.ts';
import type { KeyKind } from '../auth/credentials.ts';
import type { AutoIndexOptions } from './auto-index-options.ts';

export type { KeyKind } from '../auth/credentials.ts';

export interface Auth {
  readonly key: KeyKind;
  readonly isMaster: boolean;
  /** The user of a valid session token, when one was sent. */
  readonly userId: string | null;
  readonly session: SessionInfo | null;
  readonly installationId: string | null;
  /** `X-Svc-Revocable-Session: 1`: sign-up and login hand out a revocable token whatever the app says. */
  readonly revocableSession: boolean;
  /**
   * Who the caller is in ACLs and class-level permissions: `*`, the user's id and `role:<name>`
   * for each of its roles, inherited ones included (spec 2.5, 2.6). Computed once per request.
   */
  readonly principals: readonly string[];
}

/** The principals of a caller: everyone's, then the user's own and its roles'. */
export function callerPrincipals(userId: string | null, roles: readonly string[]): readonly string[] {
  return userId ? ['*', userId, ...roles] : ANYONE;
}

/** An anonymous caller's principals: one frozen list for every such request. */
const ANYONE: readonly string[] = Object.freeze(['*']);

/** Everything a use case knows about the request: no HTTP framework types cross this line. */
export interface RequestContext {
  readonly app: AppHandle;
  readonly auth: Auth;
  /** Public root URL of this server, without a trailing slash (Location headers, file URLs). */
  readonly publicUrl: string;
  readonly limits: { readonly objectSize: number; readonly autoIndex: AutoIndexOptions };
  /** The client's address (X-Forwarded-For only with --trust-proxy): per-address limits count it. */
  readonly clientIp: string;
  readonly userOptions: UserOptions;
  /** The request's logger: its lines carry the request id. */
  readonly log: Log;
  /** The request's HTTP headers (names in lower case), for cloud code's `request.headers`; absent where no HTTP request is behind the context. */
  readonly headers?: Readonly<Record<string, string | string[] | undefined>>;
}

/** What use cases need of a logger (pino's shape). */
export interface Log {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** Server-wide options of sign-up, login and emailed links (src/config), which apps may override. */
export interface UserOptions {
  /** Root of the links in mails: the configured public URL, never a request's Host header, which a caller controls. */
  readonly linkBaseUrl: string;
  readonly authRequestsPerMinute: number;
  readonly facebookGraphUrl: string;
  readonly twitterApiUrl: string;
}

/** The permission principals of the caller; null means the master key (no check). */
export function principals(ctx: RequestContext): Principals {
  return ctx.auth.isMaster ? null : ctx.auth.principals;
}

/** A use case's answer: the HTTP edge turns it into a response. */
export interface Result {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export function ok(body: unknown, status = 200, headers?: Record<string, string>): Result {
  return headers ? { status, body, headers } : { status, body };
}
