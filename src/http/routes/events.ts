import type { AppRoute } from '../route.ts';
import { eventCounts, trackEvent } from '../../rest/events.ts';

/** Spec 4.7 (AppOpened is one event name among others), and the counts that the events feed. */
export const eventRoutes: AppRoute[] = [
  { method: 'POST', path: '/1/events/:eventName', handler: (ctx, { params, body }) => trackEvent(ctx, params.eventName!, body ?? {}) },
  { method: 'GET', path: '/1/events/:eventName/counts', handler: (ctx, { params, query }) => eventCounts(ctx, params.eventName!, query) },
];
