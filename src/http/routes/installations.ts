import type { AppRoute } from '../route.ts';
import { createInstallation, deleteInstallation, findInstallations, getInstallation, updateInstallation } from '../../rest/installations.ts';
import { parseShape } from '../../rest/shape.ts';

/**
 * Spec 4.9. The Parse SDKs save and query installations through /1/classes/_Installation, which
 * means the same; those paths come before the generic class routes so that they match first
 * (batch, `_method`).
 */
export const installationRoutes: AppRoute[] = ['/1/installations', '/1/classes/_Installation'].flatMap((base): AppRoute[] => [
  { method: 'POST', path: base, handler: (ctx, { body }) => createInstallation(ctx, body ?? {}) },
  { method: 'GET', path: base, handler: (ctx, { query }) => findInstallations(ctx, query) },
  { method: 'GET', path: `${base}/:objectId`, handler: (ctx, { params, query }) => getInstallation(ctx, params.objectId!, parseShape(query)) },
  { method: 'PUT', path: `${base}/:objectId`, handler: (ctx, { params, body }) => updateInstallation(ctx, params.objectId!, body ?? {}) },
  { method: 'DELETE', path: `${base}/:objectId`, handler: (ctx, { params }) => deleteInstallation(ctx, params.objectId!) },
]);
