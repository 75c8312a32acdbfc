import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError, CATALOG } from '../../errors/index.ts';
import type { HttpMetrics } from '../metrics.ts';
import type { EdgeRoute } from '../edge/types.ts';

/**
 * GET /metrics in Prometheus' text format; registered only with --metrics. With --metrics-token,
 * a scrape must send it as `Authorization: Bearer <token>`: 401 (code 903) without one, 403 (code
 * 119) with another. App keys do not open it: the figures span every app.
 */
export function metricsRoute(metrics: HttpMetrics, token: string | undefined): EdgeRoute {
  // Compared as digests of equal length, in constant time: the comparison tells nothing of the token.
  const expected = token === undefined ? undefined : digest(token);
  return {
    method: 'GET',
    path: '/metrics',
    handler: async (request) => {
      if (expected !== undefined) {
        const refusal = tokenRefusal(request.headers.authorization, expected);
        if (refusal) return { status: refusal.status, body: refusal.toJSON() };
      }
      const text = await metrics.render();
      return { status: 200, body: text, headers: { 'content-type': metrics.contentType } };
    },
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function tokenRefusal(header: string | undefined, expected: Buffer): ApiError | null {
  const match = header === undefined ? null : /^Bearer +(\S+) *$/i.exec(header);
  if (!match) return new ApiError(CATALOG.unauthorized, 'GET /metrics needs the metrics token as Authorization: Bearer <token>.', 401);
  if (!timingSafeEqual(digest(match[1]!), expected)) return new ApiError(CATALOG.operationForbidden, 'The metrics token is not this server\'s.', 403);
  return null;
}
