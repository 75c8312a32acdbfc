import type { RequestContext, Result } from '../rest/context.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RouteInput {
  readonly params: Readonly<Record<string, string>>;
  /** URL query parameters, or for an SDK `_method: GET` override, the body's fields. */
  readonly query: Readonly<Record<string, unknown>>;
  readonly body: unknown;
}

/** An app-level endpoint: authenticated by app keys, callable directly and from /1/batch. */
export interface AppRoute {
  readonly method: Method;
  readonly path: string;
  readonly handler: (ctx: RequestContext, input: RouteInput) => Promise<Result>;
}

/** A route to register with a router: `route` is null on a POST path only for `_method` overrides. */
export interface RouteEntry {
  readonly method: Method;
  readonly path: string;
  readonly route: AppRoute | null;
}

/**
 * The table's routes, plus a POST on every path that has none: the Parse JS SDK sends every
 * request as a POST whose body carries `_method`, also to object URLs.
 */
export function routeEntries(routes: readonly AppRoute[]): RouteEntry[] {
  const entries: RouteEntry[] = routes.map((route) => ({ method: route.method, path: route.path, route }));
  const postPaths = new Set(routes.filter((route) => route.method === 'POST').map((route) => route.path));
  for (const path of new Set(routes.map((route) => route.path))) {
    if (!postPaths.has(path)) entries.push({ method: 'POST', path, route: null });
  }
  return entries;
}

/** A route's path as segments: a fixed name, or a parameter to capture. */
interface Segment {
  readonly text: string;
  readonly param: boolean;
}

interface CompiledRoute {
  readonly route: AppRoute;
  readonly segments: readonly Segment[];
}

/**
 * Matches `/1/…` paths to app routes without the HTTP framework (for batch and `_method`). Each
 * segment is decoded before it is compared, as the edge's router does, so that
 * `/1/classes/%5FUser` reaches the users' routes here too and not the generic class routes.
 * Routes are tried in order: the first that matches wins.
 */
export class RouteTable {
  private readonly compiled: CompiledRoute[];

  constructor(readonly routes: readonly AppRoute[]) {
    this.compiled = routes.map((route) => ({
      route,
      segments: route.path.split('/').map((part): Segment => (part.startsWith(':') ? { text: part.slice(1), param: true } : { text: part, param: false })),
    }));
  }

  match(method: string, path: string): { route: AppRoute; params: Record<string, string> } | null {
    const parts = path.split('/');
    // One trailing slash is ignored, as the edge's router is told to (edge/edge.ts ROUTER_OPTIONS).
    if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
    const decoded: string[] = [];
    for (const part of parts) {
      const value = decodePathSegment(part);
      // A broken escape, or a NUL (which names no class or object), matches no endpoint.
      if (value === null || !isNameable(value)) return null;
      decoded.push(value);
    }
    for (const { route, segments } of this.compiled) {
      if (route.method !== method || segments.length !== decoded.length) continue;
      const params: Record<string, string> = {};
      let matched = true;
      for (let i = 0; i < segments.length; i++) {
        const segment = segments[i]!;
        const value = decoded[i]!;
        if (segment.param) {
          if (value === '') {
            matched = false;
            break;
          }
          params[segment.text] = value;
        } else if (segment.text !== value) {
          matched = false;
          break;
        }
      }
      if (matched) return { route, params };
    }
    return null;
  }
}

/**
 * A path segment with NUL in it names no class or object (PostgreSQL could not even compare it),
 * so such a path is no endpoint, like one with a broken escape.
 */
export function isNameable(segment: string): boolean {
  return !segment.includes('\0');
}

/** Whether every path parameter is nameable; a loop, as this runs on every request. */
export function allNameable(params: Record<string, string>): boolean {
  for (const name in params) if (!isNameable(params[name]!)) return false;
  return true;
}

/**
 * Whether a query-string value holds NUL: no stored value can (PostgreSQL's text refuses it), so
 * such a value is refused like NUL in a body (107) rather than reaching a statement. A loop, as
 * this runs on every request.
 */
export function queryHoldsNul(query: Record<string, unknown>): boolean {
  for (const name in query) {
    if (name.includes('\0')) return true;
    const value = query[name];
    if (typeof value === 'string' ? value.includes('\0') : Array.isArray(value) && value.some((item) => typeof item === 'string' && item.includes('\0'))) return true;
  }
  return false;
}

/** A broken escape (`%E0%A4%A`) names nothing; the edge's router answers the same for direct requests. */
function decodePathSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
