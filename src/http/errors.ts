import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, Errors, CATALOG } from '../errors/index.ts';
import { setCorsHeaders } from './cors.ts';
import type { Log } from '../rest/context.ts';
import { splitSdkFields } from './sdk-body.ts';

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

/**
 * The answer for a request that failed: `{code, error}` of a known failure; for anything else a
 * 500 that names the request id, which the logged line carries too.
 */
export function failureAnswer(error: unknown, log: Log, requestId: string): { status: number; body: { code: number; error: string } } {
  const known = toApiError(error);
  if (known) {
    if (known.status >= 500) log.error({ err: error }, 'request failed');
    return { status: known.status, body: known.toJSON() };
  }
  log.error({ err: error }, 'unexpected error');
  return { status: 500, body: { code: CATALOG.internalServerError.code, error: `Internal server error (request ${requestId}).` } };
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    if ((error as Partial<FastifyError>).code === 'FST_ERR_CTP_BODY_TOO_LARGE') readRestOfBody(request, reply);
    const { status, body } = failureAnswer(error, request.log, request.id);
    return reply.code(status).send(body);
  });
  app.setNotFoundHandler((request, reply) => reply.code(404).send(noEndpoint(meantMethod(request.method, request.body), request.url).toJSON()));
}

/**
 * The method the client meant: the Parse SDKs send every request as a POST whose body names the
 * real one in `_method`, and a 404 that named the POST would point at the wrong request.
 */
export function meantMethod(wireMethod: string, body: unknown): string {
  if (wireMethod !== 'POST') return wireMethod;
  const override = splitSdkFields(body).sdk.method?.toUpperCase();
  return override || wireMethod;
}

/** Bodies refused for their size that are still read to their end, so the client reads the 413. */
const LINGER_BYTES = 16 * 1024 * 1024;

/**
 * Fastify answers a body over the limit as soon as its Content-Length says so, and closes the
 * connection while the client may still be sending: the client's next write then meets a reset,
 * and it may never read the 413. A body of a size given, up to LINGER_BYTES, is read to its end
 * and dropped instead (node does so once the answer is sent), and the connection stays open.
 * Larger or unsized bodies still close it.
 */
function readRestOfBody(request: FastifyRequest, reply: FastifyReply): void {
  const length = Number(request.headers['content-length']);
  if (Number.isInteger(length) && length <= LINGER_BYTES) reply.removeHeader('connection');
}

/** The answer for a path with no route: 404/108, before any key is checked. */
export function noEndpoint(method: string, url: string): ApiError {
  return new ApiError(CATALOG.commandUnavailable, `No endpoint at ${method.slice(0, 20)} ${url.split('?')[0]!.slice(0, 200)}.`, 404);
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
