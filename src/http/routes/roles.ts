import type { AppRoute } from '../route.ts';
import { createRole, deleteRole, findRoles, getRole, updateRole } from '../../rest/roles.ts';
import { parseShape } from '../../rest/shape.ts';

/**
 * Spec 4.4. The Parse SDKs save and query roles through /1/classes/_Role, which means the same;
 * those paths come before the generic class routes so that they match first (batch, `_method`).
 */
export const roleRoutes: AppRoute[] = ['/1/roles', '/1/classes/_Role'].flatMap((base): AppRoute[] => [
  { method: 'POST', path: base, handler: (ctx, { body }) => createRole(ctx, body ?? {}) },
  { method: 'GET', path: base, handler: (ctx, { query }) => findRoles(ctx, query) },
  { method: 'GET', path: `${base}/:objectId`, handler: (ctx, { params, query }) => getRole(ctx, params.objectId!, parseShape(query)) },
  { method: 'PUT', path: `${base}/:objectId`, handler: (ctx, { params, body }) => updateRole(ctx, params.objectId!, body ?? {}) },
  { method: 'DELETE', path: `${base}/:objectId`, handler: (ctx, { params }) => deleteRole(ctx, params.objectId!) },
]);
