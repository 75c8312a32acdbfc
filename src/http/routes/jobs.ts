import type { AppRoute } from '../route.ts';
import type { JobSource } from '../../rest/jobs/source.ts';
import { startJob } from '../../rest/jobs/start.ts';
import { createSchedule, deleteSchedule, editSchedule, jobsData, listSchedules } from '../../rest/jobs/schedules.ts';

/** Cloud code jobs (decisions.md, docs/cloud-code.md "Jobs"): run one, and Parse Dashboard's schedules. Master key only. */
export function jobRoutes(source: JobSource): AppRoute[] {
  return [
    { method: 'POST', path: '/1/jobs/:name', handler: (ctx, { params, body }) => startJob(ctx, source, params.name!, body) },
    // Parse Dashboard's "Run now": the name in the body (`{jobName, input, description, when}`).
    { method: 'POST', path: '/1/jobs', handler: (ctx, { body }) => startJob(ctx, source, null, body) },
    { method: 'GET', path: '/1/cloud_code/jobs/data', handler: (ctx) => jobsData(ctx, source) },
    { method: 'GET', path: '/1/cloud_code/jobs', handler: (ctx) => listSchedules(ctx) },
    { method: 'POST', path: '/1/cloud_code/jobs', handler: (ctx, { body }) => createSchedule(ctx, source, body) },
    { method: 'PUT', path: '/1/cloud_code/jobs/:objectId', handler: (ctx, { params, body }) => editSchedule(ctx, source, params.objectId!, body) },
    { method: 'DELETE', path: '/1/cloud_code/jobs/:objectId', handler: (ctx, { params }) => deleteSchedule(ctx, params.objectId!) },
  ];
}
