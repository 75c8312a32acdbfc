import type { AppRoute } from '../route.ts';
import { cancelPush, sendPush } from '../../push/endpoint.ts';

/** Spec 4.8: send a push; decisions.md "Push": cancel one that has not started (master key). */
export const pushRoutes: AppRoute[] = [
  { method: 'POST', path: '/1/push', handler: (ctx, { body }) => sendPush(ctx, body) },
  { method: 'DELETE', path: '/1/push/:pushStatusId', handler: (ctx, { params }) => cancelPush(ctx, params.pushStatusId!) },
];
