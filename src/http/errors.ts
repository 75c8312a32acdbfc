import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, Errors, CATALOG } from '../errors/index.ts';
import { setCorsHeaders } from './cors.ts';

/** Maps any failure to `{code, error}`; nothing else (no stack, no driver text) reaches a client. */
export function toApiError(error: unknown): ApiError | null {
  if (error instanceof ApiError) return error;
  const fastifyError = error as Partial<FastifyError>;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return Errors.objectTooLarge('The request body is too large.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return Errors.invalidContentLength();
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return Errors.invalidJson('The request body must be JSON.');
  }
  if (fastifyError.statusCode && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) return Errors.invalidJson(fastifyError.message);
  return null;
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const known = toApiError(error);
    if (known) {
      if (known.status >= 500) request.log.error({ err: error }, 'request failed');
      return reply.code(known.status).send(known.toJSON());
    }
    request.log.error({ err: error }, 'unexpected error');
    return reply.code(500).send({ code: CATALOG.internalServerError.code, error: `Internal server error (request ${request.id}).` });
  });
  app.setNotFoundHandler((request, reply) => reply.code(404).send(noEndpoint(request.method, request.url).toJSON()));
}

/** The answer for a path with no route: 404/108, before any key is checked. */
export function noEndpoint(method: string, url: string): ApiError {
  return new ApiError(CATALOG.commandUnavailable, `No endpoint at ${method} ${url.split('?')[0]!.slice(0, 200)}.`, 404);
}

/**
 * fastify's `frameworkErrors` option: the router answers a path it cannot take apart (a broken
 * %-escape, a segment over maxParamLength) before any hook runs, with a body of its own shape.
 * Such a path names no endpoint, so it gets the unknown-route answer, with the headers every
 * response carries.
 */
export function frameworkErrors(_error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('X-Request-Id', request.id);
  setCorsHeaders(request, reply);
  reply.code(404).send(noEndpoint(request.method, request.url).toJSON());
}
