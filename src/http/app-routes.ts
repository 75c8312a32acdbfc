import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Errors } from '../errors/index.ts';
import type { Result } from '../rest/context.ts';
import type { HttpDeps } from './deps.ts';
import { resolveContext } from './context.ts';
import { splitSdkFields } from './sdk-body.ts';
import type { AppRoute, Method, RouteTable } from './route.ts';

/**
 * Registers the app-level routes with fastify. A POST whose body carries the SDKs' `_method`
 * runs the route of that method instead (the Parse JS SDK sends GETs this way).
 */
export function registerAppRoutes(app: FastifyInstance, deps: HttpDeps, table: RouteTable): void {
  for (const route of table.routes) {
    app.route({
      method: route.method,
      url: route.path.replace(/:(\w+)/g, ':$1'),
      handler: (request, reply) => handle(deps, table, route, request, reply),
    });
  }
}

async function handle(deps: HttpDeps, table: RouteTable, route: AppRoute, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { sdk, body } = splitSdkFields(request.body);
  let target = route;
  let params = request.params as Record<string, string>;
  let query = request.query as Record<string, unknown>;
  let input = body;
  const override = sdk.method?.toUpperCase();
  if (request.method === 'POST' && override && override !== 'POST') {
    const matched = table.match(override as Method, request.url.split('?')[0]!);
    if (!matched) throw Errors.commandUnavailable(`No endpoint at ${override} ${request.url.split('?')[0]}.`);
    target = matched.route;
    params = matched.params;
    if (override === 'GET') {
      query = { ...query, ...(body as Record<string, unknown>) };
      input = undefined;
    }
  }
  const ctx = await resolveContext(deps, request, sdk);
  send(reply, await target.handler(ctx, { params, query, body: input }));
}

export function send(reply: FastifyReply, result: Result): void {
  if (result.headers) reply.headers(result.headers);
  reply.code(result.status).send(result.body);
}
