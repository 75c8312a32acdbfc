import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import type { Result } from '../rest/context.ts';
import type { HttpDeps } from './deps.ts';
import { resolveContext, type RequestFacts } from './context.ts';
import { noEndpoint } from './errors.ts';
import { splitSdkFields } from './sdk-body.ts';
import { svcHeader } from './credentials.ts';
import { runOnce } from '../rest/idempotency.ts';
import { allNameable, queryHoldsNul, routeEntries, type AppRoute, type Method, type RouteTable } from './route.ts';
import type { EdgeRoute } from './edge/types.ts';

/** The app-level routes as routes of the edge (see routeEntries for the POST of every path). */
export function appRoutes(deps: HttpDeps, table: RouteTable): EdgeRoute[] {
  return routeEntries(table.routes).map(({ method, path, route }) => ({
    method,
    path,
    handler: (request) => runAppRoute(deps, table, route, request.params, request.query, request),
  }));
}

/** What an app route reads of a request. */
export interface AppRequest extends RequestFacts {
  readonly method: string;
  readonly url: string;
  readonly body: unknown;
}

/** `route` is null on a POST path that exists only for `_method` overrides. */
export async function runAppRoute(
  deps: HttpDeps,
  table: RouteTable,
  route: AppRoute | null,
  routeParams: Record<string, string>,
  routeQuery: Record<string, unknown>,
  request: AppRequest,
): Promise<Result> {
  const { sdk, body } = splitSdkFields(request.body);
  // Spec 4: bodies are JSON objects. Checked here, once for every endpoint, so that a DELETE
  // with `[1]` as its body is refused like a POST, not silently run.
  if (body !== undefined && !isPlainObject(body)) throw Errors.invalidJson('The request body must be a JSON object.');
  const queryStart = request.url.indexOf('?');
  const path = queryStart === -1 ? request.url : request.url.slice(0, queryStart);
  let target = route;
  let params = routeParams;
  let query = routeQuery;
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
  if (!target || !allNameable(params)) return { status: 404, body: noEndpoint(method, path).toJSON() };
  if (queryHoldsNul(query)) throw Errors.invalidJson('Query parameters must not hold the NUL character (\\u0000).');
  const ctx = await resolveContext(deps, request, sdk);
  const run = () => target.handler(ctx, { params, query, body: input });
  const requestId = method === 'GET' || method === 'HEAD' ? undefined : svcHeader(request.headers, 'request-id');
  return requestId === undefined ? await run() : await runOnce(ctx, requestId, run);
}
