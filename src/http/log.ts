import type { FastifyRequest } from 'fastify';

/**
 * Query parameters whose values never reach the log: GET /1/login carries the password in its
 * URL (spec 4.3), and the emailed verification and reset links carry single-use tokens.
 */
const SECRET_PARAMS = new Set(['password', 'token']);

/** The request as fastify's request log prints it, with secret query values replaced. */
export function requestForLog(request: FastifyRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

export function redactUrl(url: string): string {
  const query = url.indexOf('?');
  if (query === -1) return url;
  const params = url
    .slice(query + 1)
    .split('&')
    .map((pair) => {
      const name = pair.split('=', 1)[0]!;
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // A broken escape is logged as sent; it cannot be a secret parameter's name.
      }
      return SECRET_PARAMS.has(decoded.toLowerCase()) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, query)}?${params.join('&')}`;
}
