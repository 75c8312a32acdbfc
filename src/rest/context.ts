import type { AppHandle } from '../apps/registry.ts';
import type { Principals } from '../storage/port.ts';
import type { SessionInfo } from '../auth/sessions.ts';

export type KeyKind = 'master' | 'rest' | 'client' | 'javascript' | 'windows';

export interface Auth {
  readonly key: KeyKind;
  readonly isMaster: boolean;
  /** The user of a valid session token, when one was sent. */
  readonly userId: string | null;
  readonly session: SessionInfo | null;
  readonly installationId: string | null;
  /** `X-Svc-Revocable-Session: 1`: sign-up and login hand out a revocable token whatever the app says. */
  readonly revocableSession: boolean;
}

/** Everything a use case knows about the request: no HTTP framework types cross this line. */
export interface RequestContext {
  readonly app: AppHandle;
  readonly auth: Auth;
  /** Public root URL of this server, without a trailing slash (Location headers, file URLs). */
  readonly publicUrl: string;
  readonly limits: { readonly objectSize: number };
  /** The request's logger: its lines carry the request id. */
  readonly log: Log;
}

/** What use cases need of a logger (pino's shape). */
export interface Log {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** The permission principals of the caller; null means the master key (no check). */
export function principals(ctx: RequestContext): Principals {
  if (ctx.auth.isMaster) return null;
  return ctx.auth.userId ? ['*', ctx.auth.userId] : ['*'];
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
