import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import type { Result } from '../rest/context.ts';
import type { HttpDeps } from './deps.ts';
import { resolveContext } from './context.ts';
import { noEndpoint } from './errors.ts';
import { splitSdkFields } from './sdk-body.ts';
import { svcHeader } from './credentials.ts';
import { runOnce } from '../rest/idempotency.ts';
import { JsonText } from '../rest/encoded.ts';
import { isNameable, type AppRoute, type Method, type RouteTable } from './route.ts';

/**
 * Registers the app-level routes with fastify. A POST whose body carries the SDKs' `_method`
 * runs the route of that method instead: the Parse JS SDK sends every request this way, also to
 * object URLs that have no POST route of their own, so every path of the table accepts a POST.
 */
export function registerAppRoutes(app: FastifyInstance, deps: HttpDeps, table: RouteTable): void {
  const postPaths = new Set(table.routes.filter((route) => route.method === 'POST').map((route) => route.path));
  const overrideOnly = new Set<string>();
  for (const route of table.routes) {
    app.route({ method: route.method, url: route.path, handler: (request, reply) => handle(deps, table, route, request, reply) });
    if (!postPaths.has(route.path) && !overrideOnly.has(route.path)) {
      overrideOnly.add(route.path);
      app.route({ method: 'POST', url: route.path, handler: (request, reply) => handle(deps, table, null, request, reply) });
    }
  }
}

/** `route` is null on a POST path that exists only for `_method` overrides. */
async function handle(deps: HttpDeps, table: RouteTable, route: AppRoute | null, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { sdk, body } = splitSdkFields(request.body);
  // Spec 4: bodies are JSON objects. Checked here, once for every endpoint, so that a DELETE
  // with `[1]` as its body is refused like a POST, not silently run.
  if (body !== undefined && !isPlainObject(body)) throw Errors.invalidJson('The request body must be a JSON object.');
  const queryStart = request.url.indexOf('?');
  const path = queryStart === -1 ? request.url : request.url.slice(0, queryStart);
  let target = route;
  let params = request.params as Record<string, string>;
  let query = request.query as Record<string, unknown>;
  let input: unknown = body;
  const override = request.method === 'POST' ? sdk.method?.toUpperCase() : undefined;
  const method = override && override !== 'POST' ? override : request.method;
  if (method !== request.method) {
    const matched = table.match(method as Method, path);
    target = matched?.route ?? null;
    params = matched?.params ?? {};
    if (method === 'GET') {
      query = { ...query, ...body };
      input = undefined;
    }
  }
  if (!target || !Object.values(params).every(isNameable)) {
    reply.code(404).send(noEndpoint(method, path).toJSON());
    return;
  }
  const ctx = await resolveContext(deps, request, sdk);
  const run = () => target.handler(ctx, { params, query, body: input });
  const requestId = method === 'GET' ? undefined : svcHeader(request.headers, 'request-id');
  send(reply, requestId === undefined ? await run() : await runOnce(ctx, requestId, run));
}

export function send(reply: FastifyReply, result: Result): void {
  if (result.headers) reply.headers(result.headers);
  if (result.body instanceof JsonText) {
    reply.code(result.status).type('application/json; charset=utf-8').send(result.body.text);
    return;
  }
  reply.code(result.status).send(result.body);
}
