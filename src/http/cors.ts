import type { Answer } from './edge/types.ts';

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
 * CORS on every route (spec 1): any origin may call with the spec's headers. Every OPTIONS
 * request is a preflight, answered 204 with this before any route is looked up; the origin
 * headers of corsHeaders go on it as on every answer.
 */
export const PREFLIGHT: Answer = Object.freeze({
  status: 204,
  headers: Object.freeze({
    'access-control-allow-methods': 'GET, POST, PUT, DELETE, OPTIONS',
    'access-control-allow-headers': ALLOWED_HEADERS,
    'access-control-max-age': '86400',
  }),
});

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
