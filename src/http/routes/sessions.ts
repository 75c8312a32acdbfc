import type { AppRoute } from '../route.ts';
import { createSession, deleteSession, findSessions, getSession, getSessionMe, pairSession, updateSession } from '../../rest/sessions.ts';

/** Spec 4.5. `me` comes before `:objectId`: batch and `_method` match routes in this order. */
export const sessionRoutes: AppRoute[] = [
  { method: 'POST', path: '/1/sessions', handler: (ctx, { body }) => createSession(ctx, body) },
  { method: 'GET', path: '/1/sessions', handler: (ctx, { query }) => findSessions(ctx, query) },
  { method: 'GET', path: '/1/sessions/me', handler: (ctx) => getSessionMe(ctx) },
  { method: 'PUT', path: '/1/sessions/me', handler: (ctx, { body }) => pairSession(ctx, body) },
  { method: 'GET', path: '/1/sessions/:objectId', handler: (ctx, { params }) => getSession(ctx, params.objectId!) },
  { method: 'PUT', path: '/1/sessions/:objectId', handler: (ctx, { params, body }) => updateSession(ctx, params.objectId!, body) },
  { method: 'DELETE', path: '/1/sessions/:objectId', handler: (ctx, { params }) => deleteSession(ctx, params.objectId!) },
];
