import type { FastifyRequest } from 'fastify';
import { Errors } from '../errors/index.ts';
import { authenticateKey } from '../auth/credentials.ts';
import type { RequestContext } from '../rest/context.ts';
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
  const userId = credentials.sessionToken ? await sessionUser(credentials.sessionToken) : null;
  return {
    app,
    auth: { key, isMaster: key === 'master', userId, installationId: credentials.installationId ?? null },
    publicUrl: publicUrl(deps, request),
    limits: { objectSize: deps.config.objectSizeLimit },
    log: request.log,
  };
}

/** Sessions arrive with the users issue; until then no token can be valid (spec 7: 209). */
async function sessionUser(_token: string): Promise<string | null> {
  throw Errors.invalidSessionToken();
}

export function publicUrl(deps: HttpDeps, request: FastifyRequest): string {
  if (deps.config.publicUrl) return deps.config.publicUrl.replace(/\/+$/, '');
  return `${request.protocol}://${request.headers.host ?? `localhost:${deps.config.port}`}`;
}
