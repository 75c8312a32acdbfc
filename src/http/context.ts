import type { IncomingHttpHeaders } from 'node:http';
import { Errors } from '../errors/index.ts';
import { authenticateKey } from '../auth/credentials.ts';
import { callerPrincipals, type Auth, type UserOptions, type RequestContext } from '../rest/context.ts';
import type { AppHandle } from '../apps/registry.ts';
import type { AutoIndexOptions } from '../rest/auto-index-options.ts';
import type { SessionInfo } from '../auth/sessions.ts';
import type { HttpDeps } from './deps.ts';
import { readCredentials } from './credentials.ts';
import type { SdkFields } from './sdk-body.ts';

/**
 * What the use cases' context reads of an HTTP request (the edge's EdgeRequest, edge/request.ts).
 */
export interface RequestFacts {
  readonly id: string;
  readonly headers: IncomingHttpHeaders;
  readonly log: RequestContext['log'];
  /** The client's address; with --trust-proxy, the first of X-Forwarded-For. */
  readonly ip: string;
  readonly protocol: string;
}

/** Resolves the app and the key of a request: 401/902 without an app id, 401/903 without a valid key. */
export async function resolveContext(deps: HttpDeps, request: RequestFacts, sdk: SdkFields): Promise<RequestContext> {
  const credentials = readCredentials(request.headers, sdk);
  if (!credentials.applicationId) throw Errors.missingApplicationId();
  const record = deps.apps.findLoaded(credentials.applicationId) ?? (await deps.apps.find(credentials.applicationId));
  if (!record) throw Errors.unauthorized();
  const key = authenticateKey(record, credentials);
  const app = deps.apps.handleLoaded(record) ?? (await deps.apps.handle(record));
  const session = credentials.sessionToken ? await resolveSession(app, credentials.sessionToken) : null;
  // Roles matter to every read and write a user makes, so they are looked up once, here (cached per user).
  const roles = session ? await app.roles.principalsOf(session.userId) : [];
  const auth = {
    key,
    isMaster: key === 'master',
    userId: session?.userId ?? null,
    session,
    installationId: credentials.installationId ?? null,
    revocableSession: credentials.revocableSession ?? false,
    principals: callerPrincipals(session?.userId ?? null, roles),
  };
  return new HttpRequestContext(app, auth, deps, request);
}

/**
 * A class rather than an object literal with getters: V8 gives every such literal a shape of its
 * own, which costs each request more than the rest of the context.
 */
class HttpRequestContext implements RequestContext {
  readonly limits: RequestContext['limits'];
  readonly userOptions: UserOptions;
  readonly log: RequestContext['log'];

  constructor(
    readonly app: AppHandle,
    readonly auth: Auth,
    private readonly deps: HttpDeps,
    private readonly request: RequestFacts,
  ) {
    this.limits = limitsOf(deps);
    this.userOptions = userOptions(deps);
    this.log = request.log;
  }

  // Read when a use case asks: most requests need neither, and the address costs a system call.
  get publicUrl(): string {
    return publicUrl(this.deps, this.request);
  }

  get clientIp(): string {
    return this.request.ip;
  }

  get headers(): RequestFacts['headers'] {
    return this.request.headers;
  }
}

const limitsByDeps = new WeakMap<HttpDeps, RequestContext['limits']>();

function limitsOf(deps: HttpDeps): RequestContext['limits'] {
  let limits = limitsByDeps.get(deps);
  if (!limits) limitsByDeps.set(deps, (limits = Object.freeze({ objectSize: deps.config.objectSizeLimit, autoIndex: autoIndexOptions(deps) })));
  return limits;
}

function autoIndexOptions({ config }: HttpDeps): AutoIndexOptions {
  return Object.freeze({
    enabled: config.autoIndexes,
    scans: config.autoIndexScans,
    windowMs: config.autoIndexWindow,
    maxPerClass: config.autoIndexMaxPerClass,
    unusedAfterMs: config.autoIndexUnusedDays * 86_400_000,
  });
}

/**
 * Spec 5 rule 6: an unknown, deleted or expired revocable token fails every request with 209; a
 * legacy token (no `r:` prefix, in an app that does not require revocable sessions) that is not
 * valid runs the request as an anonymous user.
 */
async function resolveSession(app: AppHandle, token: string): Promise<SessionInfo | null> {
  const session = await app.sessions.resolve(token);
  if (session) return session;
  const legacy = !token.startsWith('r:') && !app.record.settings.requireRevocableSessions;
  if (legacy) return null;
  throw Errors.invalidSessionToken('Invalid session token.');
}

export function publicUrl(deps: HttpDeps, request: RequestFacts): string {
  if (deps.config.publicUrl) return deps.config.publicUrl.replace(/\/+$/, '');
  return `${request.protocol}://${request.headers.host ?? `localhost:${deps.config.port}`}`;
}

/**
 * Links in mails must not follow a request's Host header: a caller could otherwise have a
 * password-reset link for someone else's account point at a host of its choosing. Without
 * --public-url they point at this server's own listening address.
 */
export function linkBaseUrl(deps: HttpDeps): string {
  if (deps.config.publicUrl) return deps.config.publicUrl.replace(/\/+$/, '');
  const host = ['0.0.0.0', '::', ''].includes(deps.config.host) ? 'localhost' : deps.config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${deps.config.port}`;
}

const optionsOf = new WeakMap<HttpDeps, UserOptions>();

/** Built once per server: every request carries the same object. */
export function userOptions(deps: HttpDeps): UserOptions {
  let options = optionsOf.get(deps);
  if (!options) {
    const { config } = deps;
    options = Object.freeze({ linkBaseUrl: linkBaseUrl(deps), authRequestsPerMinute: config.authRequestsPerMinute, facebookGraphUrl: config.facebookGraphUrl, twitterApiUrl: config.twitterApiUrl });
    optionsOf.set(deps, options);
  }
  return options;
}
