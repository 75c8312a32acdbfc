import type { AppRoute } from '../route.ts';
import { createSession, deleteSession, findSessions, getSession, getSessionMe, pairSession, updateSession } from '../../rest/sessions.ts';
import { upgradeToRevocableSession } from '../../rest/session-upgrade.ts';

/**
 * The five object operations on sessions. The Parse SDKs reach sessions through
 * /1/classes/_Session too, which means the same; server.ts lists these routes before the
 * generic class routes so that they match first (batch, `_method`).
 */
function sessionObjectRoutes(base: string): AppRoute[] {
  return [
    { method: 'POST', path: base, handler: (ctx, { body }) => createSession(ctx, body) },
    { method: 'GET', path: base, handler: (ctx, { query }) => findSessions(ctx, query) },
    { method: 'GET', path: `${base}/:objectId`, handler: (ctx, { params }) => getSession(ctx, params.objectId!) },
    { method: 'PUT', path: `${base}/:objectId`, handler: (ctx, { params, body }) => updateSession(ctx, params.objectId!, body) },
    { method: 'DELETE', path: `${base}/:objectId`, handler: (ctx, { params }) => deleteSession(ctx, params.objectId!) },
  ];
}

/**
 * Spec 4.5. `me` comes before `:objectId`: batch and `_method` match routes in this order.
 * `/1/classes/_Session/me` is no alias of it (Parse Server serves `me` under /sessions only):
 * there `me` is an objectId, which names no session.
 */
export const sessionRoutes: AppRoute[] = [
  { method: 'GET', path: '/1/sessions/me', handler: (ctx) => getSessionMe(ctx) },
  { method: 'PUT', path: '/1/sessions/me', handler: (ctx, { body }) => pairSession(ctx, body) },
  ...sessionObjectRoutes('/1/sessions'),
  ...sessionObjectRoutes('/1/classes/_Session'),
  // Not in the spec: the Parse SDKs' exchange of a legacy token for a revocable one.
  { method: 'POST', path: '/1/upgradeToRevocableSession', handler: (ctx) => upgradeToRevocableSession(ctx) },
];
