import type { FastifyRequest } from 'fastify';
import { Errors } from '../errors/index.ts';
import { authenticateKey } from '../auth/credentials.ts';
import type { RequestContext } from '../rest/context.ts';
import type { AppHandle } from '../apps/registry.ts';
import type { SessionInfo } from '../auth/sessions.ts';
import type { HttpDeps } from './deps.ts';
import { readCredentials } from './credentials.ts';
import type { SdkFields } from './sdk-body.ts';

/** Resolves the app and the key of a request: 401/902 without an app id, 401/903 without a valid key. */
export async function resolveContext(deps: HttpDeps, request: FastifyRequest, sdk: SdkFields): Promise<RequestContext> {
  const credentials = readCredentials(request.headers, sdk);
  if (!credentials.applicationId) throw Errors.missingApplicationId();
  const record = await deps.apps.find(credentials.applicationId);
  if (!record) throw Errors.unauthorized();
  const key = authenticateKey(record, credentials);
  const app = await deps.apps.handle(record);
  const session = credentials.sessionToken ? await resolveSession(app, credentials.sessionToken) : null;
  return {
    app,
    auth: {
      key,
      isMaster: key === 'master',
      userId: session?.userId ?? null,
      session,
      installationId: credentials.installationId ?? null,
      revocableSession: credentials.revocableSession ?? false,
    },
    publicUrl: publicUrl(deps, request),
    limits: { objectSize: deps.config.objectSizeLimit },
    log: request.log,
  };
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

export function publicUrl(deps: HttpDeps, request: FastifyRequest): string {
  if (deps.config.publicUrl) return deps.config.publicUrl.replace(/\/+$/, '');
  return `${request.protocol}://${request.headers.host ?? `localhost:${deps.config.port}`}`;
}
