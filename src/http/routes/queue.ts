import type { AppRoute } from '../route.ts';
import { enqueueJobs, getJob, listJobs, retryJob } from '../../rest/queue.ts';

/**
 * The app's durable job queue, for the master key: list, read, retry, and enqueue test jobs.
 * Not /1/jobs: Parse keeps that path for cloud code jobs.
 */
export const queueRoutes: AppRoute[] = [
  { method: 'GET', path: '/1/queue/jobs', handler: (ctx, { query }) => listJobs(ctx, query) },
  { method: 'POST', path: '/1/queue/jobs', handler: (ctx, { body }) => enqueueJobs(ctx, body) },
  { method: 'GET', path: '/1/queue/jobs/:objectId', handler: (ctx, { params }) => getJob(ctx, params.objectId!) },
  { method: 'POST', path: '/1/queue/jobs/:objectId/retry', handler: (ctx, { params }) => retryJob(ctx, params.objectId!) },
];
