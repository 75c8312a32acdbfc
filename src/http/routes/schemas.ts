import type { AppRoute } from '../route.ts';
import { createSchema, deleteSchema, getSchema, listSchemas, updateSchema } from '../../rest/schemas.ts';

/** Spec 4.11 (master key only). */
export const schemaRoutes: AppRoute[] = [
  { method: 'GET', path: '/1/schemas', handler: (ctx) => listSchemas(ctx) },
  { method: 'POST', path: '/1/schemas', handler: (ctx, { body }) => createSchema(ctx, undefined, body) },
  { method: 'GET', path: '/1/schemas/:className', handler: (ctx, { params }) => getSchema(ctx, params.className!) },
  { method: 'POST', path: '/1/schemas/:className', handler: (ctx, { params, body }) => createSchema(ctx, params.className!, body) },
  { method: 'PUT', path: '/1/schemas/:className', handler: (ctx, { params, body }) => updateSchema(ctx, params.className!, body) },
  { method: 'DELETE', path: '/1/schemas/:className', handler: (ctx, { params }) => deleteSchema(ctx, params.className!) },
];
