import type { FastifyReply, FastifyRequest } from 'fastify';

const SVC_HEADERS = [
  'Application-Id', 'REST-API-Key', 'Client-Key', 'Javascript-Key', 'JavaScript-Key', 'Windows-Key', 'Master-Key',
  'Session-Token', 'Revocable-Session', 'Installation-Id', 'Email', 'Password', 'Account-Key', 'Request-Id',
  'Client-Version', 'Upload-Mode', 'Cloud-Context',
];
const ALLOWED_HEADERS = [
  'Content-Type', 'Authorization', 'X-Requested-With', 'Range', 'If-None-Match', 'Cache-Control',
  ...SVC_HEADERS.flatMap((name) => [`X-Svc-${name}`, `X-Parse-${name}`]),
].join(', ');
const EXPOSED_HEADERS = [
  'X-Request-Id', 'Location', 'ETag', 'Content-Range', 'Accept-Ranges',
  'X-Svc-Job-Status-Id', 'X-Parse-Job-Status-Id', 'X-Svc-Push-Status-Id', 'X-Parse-Push-Status-Id',
].join(', ');

/**
 * CORS on every route (spec 1): any origin may call with the spec's headers; preflights answer
 * 204. Returns whether the request was a preflight, now answered. Called from the server's one
 * `onRequest` hook: each hook is a step of every request.
 */
export function applyCors(request: FastifyRequest, reply: FastifyReply): boolean {
  setCorsHeaders(request, reply);
  if (request.method !== 'OPTIONS') return false;
  reply.header('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE, OPTIONS');
  reply.header('Access-Control-Allow-Headers', ALLOWED_HEADERS);
  reply.header('Access-Control-Max-Age', '86400');
  reply.code(204).send();
  return true;
}

/**
 * Also called where fastify answers without running hooks (see frameworkErrors in errors.ts).
 */
export function setCorsHeaders(request: FastifyRequest, reply: FastifyReply): void {
  const headers = corsHeaders(request.headers.origin);
  for (let i = 0; i < headers.length; i += 2) reply.header(headers[i]!, headers[i + 1]!);
}

const ANY_ORIGIN = Object.freeze(['access-control-allow-origin', '*']);

/**
 * The CORS headers of an answer, as name, value, name, value. The list of exposed headers goes
 * only to requests with an Origin, which every cross-origin request of a browser carries: no
 * other client reads it, and node checks each of its 170 characters on every response.
 */
export function corsHeaders(origin: string | undefined): readonly string[] {
  if (!origin) return ANY_ORIGIN;
  return ['access-control-allow-origin', origin, 'vary', 'Origin', 'access-control-expose-headers', EXPOSED_HEADERS];
}
