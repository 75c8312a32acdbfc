import { Errors } from '../../errors/index.ts';
import { isPlainObject } from '../../encoding/values.ts';
import type { HttpDeps } from '../deps.ts';
import { noEndpoint } from '../errors.ts';
import type { Answer, EdgeRoute } from '../edge/types.ts';

/**
 * GET /health: 200 while the database answers, 503 when it does not. Needs no key.
 *
 * The Parse SDKs ask `<serverURL>/health` (`Parse.getServerHealth()`), which is `/1/health`, and
 * send it as every SDK request: a POST whose body names the method (`_method: "GET"`). Both
 * forms answer the same; a POST that names another method has no endpoint, as anywhere else.
 */
export function healthRoutes(deps: HttpDeps): EdgeRoute[] {
  const answer = async (): Promise<Answer> => {
    try {
      await deps.backend.ping();
      return { status: 200, body: { status: 'ok', database: deps.backend.kind } };
    } catch {
      const error = Errors.connectionFailed();
      return { status: error.status, body: error.toJSON() };
    }
  };
  return [
    { method: 'GET', path: '/health', handler: answer },
    { method: 'GET', path: '/1/health', handler: answer },
    {
      method: 'POST',
      path: '/1/health',
      handler: (request) => {
        const override = isPlainObject(request.body) ? request.body._method : undefined;
        if (typeof override === 'string' && override.toUpperCase() === 'GET') return answer();
        return { status: 404, body: noEndpoint(request.method, request.url).toJSON() };
      },
    },
  ];
}
