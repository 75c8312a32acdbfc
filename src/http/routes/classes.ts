import type { AppRoute } from '../route.ts';
import { createObject, deleteObject, getObject, updateObject } from '../../rest/objects.ts';
import { findObjects } from '../../rest/find.ts';
import { parseShape } from '../../rest/shape.ts';

/** Spec 4.1: objects of developer-defined classes. */
export const classRoutes: AppRoute[] = [
  { method: 'GET', path: '/1/classes/:className', handler: (ctx, { params, query }) => findObjects(ctx, params.className!, query) },
  { method: 'POST', path: '/1/classes/:className', handler: (ctx, { params, body }) => createObject(ctx, params.className!, body ?? {}) },
  { method: 'GET', path: '/1/classes/:className/:objectId', handler: (ctx, { params, query }) => getObject(ctx, params.className!, params.objectId!, parseShape(query)) },
  { method: 'PUT', path: '/1/classes/:className/:objectId', handler: (ctx, { params, body }) => updateObject(ctx, params.className!, params.objectId!, body ?? {}) },
  { method: 'DELETE', path: '/1/classes/:className/:objectId', handler: (ctx, { params }) => deleteObject(ctx, params.className!, params.objectId!) },
];
