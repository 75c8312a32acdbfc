import type { FastifyInstance } from 'fastify';
import type { HttpDeps } from '../deps.ts';

/** GET /health: 200 while the database answers, 503 when it does not. Needs no key. */
export function registerHealthRoute(app: FastifyInstance, deps: HttpDeps): void {
  app.get('/health', async (_request, reply) => {
    try {
      await deps.backend.ping();
      return { status: 'ok', database: deps.backend.kind };
    } catch {
      return reply.code(503).send({ code: 100, error: 'The database is unavailable.' });
    }
  });
}
