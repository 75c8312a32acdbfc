import type { AppRoute } from '../route.ts';
import { getConfig, updateConfig } from '../../rest/config.ts';

/** Spec 4.10: the app's config; PUT is how the Parse SDKs and the dashboard change it. */
export const configRoutes: AppRoute[] = [
  { method: 'GET', path: '/1/config', handler: (ctx) => getConfig(ctx) },
  { method: 'PUT', path: '/1/config', handler: (ctx, { body }) => updateConfig(ctx, body ?? {}) },
];
