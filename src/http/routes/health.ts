import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../../errors/index.ts';
import { isPlainObject } from '../../encoding/values.ts';
import type { HttpDeps } from '../deps.ts';
import { noEndpoint } from '../errors.ts';

/**
 * GET /health: 200 while the database answers, 503 when it does not. Needs no key.
 *
 * The Parse SDKs ask `<serverURL>/health` (`Parse.getServerHealth()`), which is `/1/health`, and
 * send it as every SDK request: a POST whose body names the method (`_method: "GET"`). Both
 * forms answer the same; a POST that names another method has no endpoint, as anywhere else.
 */
export function registerHealthRoute(app: FastifyInstance, deps: HttpDeps): void {
  const answer = async (reply: FastifyReply) => {
    try {
      await deps.backend.ping();
      return { status: 'ok', database: deps.backend.kind };
    } catch {
      const error = Errors.connectionFailed();
      return reply.code(error.status).send(error.toJSON());
    }
  };
  app.get('/health', (_request, reply) => answer(reply));
  app.get('/1/health', (_request, reply) => answer(reply));
  app.post('/1/health', (request: FastifyRequest, reply) => {
    const override = isPlainObject(request.body) ? request.body._method : undefined;
    if (typeof override === 'string' && override.toUpperCase() === 'GET') return answer(reply);
    return reply.code(404).send(noEndpoint(request.method, request.url).toJSON());
  });
}
