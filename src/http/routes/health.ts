import type { FastifyInstance } from 'fastify';
import { Errors } from '../../errors/index.ts';
import type { HttpDeps } from '../deps.ts';

/** GET /health: 200 while the database answers, 503 when it does not. Needs no key. */
export function registerHealthRoute(app: FastifyInstance, deps: HttpDeps): void {
  app.get('/health', async (_request, reply) => {
    try {
      await deps.backend.ping();
      return { status: 'ok', database: deps.backend.kind };
    } catch {
      const error = Errors.connectionFailed();
      return reply.code(error.status).send(error.toJSON());
    }
  });
}
