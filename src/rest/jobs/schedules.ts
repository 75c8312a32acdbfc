import { Errors } from '../../errors/index.ts';
import { isPlainObject } from '../../encoding/values.ts';
import { TRUE } from '../../query/ast.ts';
import { ensureBuiltinClass } from '../../schema/builtin.ts';
import { isoTimestamp, newObjectId } from '../../apps/ids.ts';
import type { StoredObject } from '../../storage/port.ts';
import type { NewJob } from '../../storage/sql-jobs.ts';
import { ok, type RequestContext, type Result } from '../context.ts';
import { renderObject } from '../render.ts';
import { INTERNAL, writeCreate, writeDelete, writeUpdate } from '../write/pipeline.ts';
import { allowedDays, nextRun, parseTimeOfDay, type ScheduleTimes } from './schedule-time.ts';
import type { JobSource } from './source.ts';
import { assertMaster } from './start.ts';

export const JOB_SCHEDULE = '_JobSchedule';
/** The queue's job type of one run of a schedule (schedule-run.ts). */
export const SCHEDULE_RUN_JOB = 'jobScheduleRun';

export interface ScheduleRunPayload {
  readonly scheduleId: string;
  /** The run's time (ms): the schedule's nextRunAt when it was queued; a run whose time is no longer the schedule's is stale. */
  readonly at: number;
}

const EDITABLE = ['jobName', 'description', 'params', 'startAfter', 'timeOfDay', 'daysOfWeek', 'repeatMinutes'] as const;
const LIMIT = 1000;

export function timesOf(data: Readonly<Record<string, unknown>>, createdAt: string): ScheduleTimes {
  const startAfter = typeof data.startAfter === 'string' && !Number.isNaN(Date.parse(data.startAfter)) ? Date.parse(data.startAfter) : Date.parse(createdAt);
  const repeat = typeof data.repeatMinutes === 'number' && data.repeatMinutes > 0 ? data.repeatMinutes : null;
  const timeOfDay = typeof data.timeOfDay === 'string' ? parseTimeOfDay(data.timeOfDay) : null;
  return { startAfter, repeatMinutes: repeat, timeOfDay, daysOfWeek: allowedDays(data.daysOfWeek) };
}

export { nextRun };
export const nextRunValue = (at: number | null) => (at === null ? undefined : { __type: 'Date', iso: new Date(at).toISOString() });
export const runJob = (scheduleId: string, at: number): NewJob => ({ type: SCHEDULE_RUN_JOB, payload: { scheduleId, at } satisfies ScheduleRunPayload, runAt: at });

/** `job_schedule` of Parse Dashboard's body, checked (141 for a job the code does not define, as Parse Server refuses it too). */
async function scheduleFields(ctx: RequestContext, source: JobSource, body: unknown, creating: boolean): Promise<Record<string, unknown>> {
  const given = isPlainObject(body) ? (body as Record<string, unknown>).job_schedule : undefined;
  if (!isPlainObject(given)) throw Errors.invalidJson('The body must be {"job_schedule": {…}}.');
  const fields: Record<string, unknown> = {};
  for (const key of EDITABLE) if (key in given) fields[key] = given[key];
  if (creating || 'jobName' in fields) {
    if (typeof fields.jobName !== 'string') throw Errors.invalidJson('job_schedule.jobName must be the name of a job.');
    if (!(await source.jobNames(ctx.app.record.applicationId)).includes(fields.jobName)) {
      throw Errors.scriptFailed(`Cannot schedule the job ${JSON.stringify(fields.jobName.slice(0, 80))}: the app's cloud code does not define it.`);
    }
  }
  if ('params' in fields && fields.params !== undefined) {
    if (typeof fields.params !== 'string' || !isJsonObject(fields.params)) throw Errors.invalidJson('job_schedule.params must be a JSON object as text.');
  }
  if ('startAfter' in fields && (typeof fields.startAfter !== 'string' || Number.isNaN(Date.parse(fields.startAfter)))) throw Errors.invalidJson('job_schedule.startAfter must be an ISO 8601 time.');
  if ('timeOfDay' in fields && fields.timeOfDay !== undefined && (typeof fields.timeOfDay !== 'string' || parseTimeOfDay(fields.timeOfDay) === null)) throw Errors.invalidJson('job_schedule.timeOfDay must be a time of day such as "10:30:00.000Z".');
  if ('repeatMinutes' in fields && fields.repeatMinutes !== undefined && fields.repeatMinutes !== null && (typeof fields.repeatMinutes !== 'number' || !Number.isInteger(fields.repeatMinutes) || fields.repeatMinutes < 0)) {
    throw Errors.invalidJson('job_schedule.repeatMinutes must be a whole number of minutes.');
  }
  if ('daysOfWeek' in fields && fields.daysOfWeek !== undefined && !Array.isArray(fields.daysOfWeek)) throw Errors.invalidJson('job_schedule.daysOfWeek must be an array.');
  if (creating && fields.startAfter === undefined) fields.startAfter = new Date().toISOString();
  return fields;
}

function isJsonObject(text: string): boolean {
  try {
    return isPlainObject(JSON.parse(text));
  } catch {
    return false;
  }
}

/** POST /1/cloud_code/jobs: the schedule and its first run's queue job, in one transaction. */
export async function createSchedule(ctx: RequestContext, source: JobSource, body: unknown): Promise<Result> {
  assertMaster(ctx, 'Scheduling a job');
  const fields = await scheduleFields(ctx, source, body, true);
  await ensureBuiltinClass(ctx.app.schemas, JOB_SCHEDULE);
  const now = Date.now();
  const at = isoTimestamp(now);
  const id = newObjectId(now);
  const next = nextRun(timesOf(fields, at), now - 1);
  const object: StoredObject = { objectId: id, createdAt: at, updatedAt: at, data: withNext(fields, next), rperm: [], wperm: [] };
  const steps = next === null ? [] : [ctx.app.jobs.enqueueStep(runJob(id, next)).step];
  await writeCreate(ctx.app, INTERNAL, { className: JOB_SCHEDULE, write: { object, relations: [], steps } });
  return ok({ objectId: id, createdAt: at }, 201);
}

function withNext(data: Readonly<Record<string, unknown>>, next: number | null): Record<string, unknown> {
  const { nextRunAt: _was, ...rest } = data;
  const value = nextRunValue(next);
  return value ? { ...rest, nextRunAt: value } : rest;
}

/** PUT /1/cloud_code/jobs/<id>: the changed schedule runs at its new next time (a run queued for the old one is stale). */
export async function editSchedule(ctx: RequestContext, source: JobSource, objectId: string, body: unknown): Promise<Result> {
  assertMaster(ctx, 'Editing a job schedule');
  const fields = await scheduleFields(ctx, source, body, false);
  const notFound = () => Errors.objectNotFound(`No job schedule has the id ${JSON.stringify(objectId.slice(0, 40))}.`);
  if (!(await ctx.app.schemas.get(JOB_SCHEDULE))) throw notFound();
  const now = Date.now();
  const updated = await writeUpdate(ctx.app, INTERNAL, {
    className: JOB_SCHEDULE,
    objectId,
    write: null,
    change: (current) => {
      const data: Record<string, unknown> = { ...current.data };
      for (const [key, value] of Object.entries(fields)) {
        if (value === undefined || value === null) delete data[key];
        else data[key] = value;
      }
      const next = nextRun(timesOf(data, current.createdAt), now - 1);
      const steps = next === null ? [] : [ctx.app.jobs.enqueueStep(runJob(objectId, next)).step];
      return { object: { ...current, updatedAt: isoTimestamp(now), data: withNext(data, next) }, relations: [], steps };
    },
  });
  if (!updated) throw notFound();
  return ok({ updatedAt: updated.updatedAt });
}

/** DELETE /1/cloud_code/jobs/<id>: its queued run finds no schedule and ends. */
export async function deleteSchedule(ctx: RequestContext, objectId: string): Promise<Result> {
  assertMaster(ctx, 'Deleting a job schedule');
  const notFound = () => Errors.objectNotFound(`No job schedule has the id ${JSON.stringify(objectId.slice(0, 40))}.`);
  if (!(await ctx.app.schemas.get(JOB_SCHEDULE))) throw notFound();
  if (!(await writeDelete(ctx.app, INTERNAL, { className: JOB_SCHEDULE, objectId, write: null }))) throw notFound();
  return ok({});
}

async function allSchedules(ctx: RequestContext): Promise<StoredObject[]> {
  if (!(await ctx.app.schemas.get(JOB_SCHEDULE))) return [];
  return ctx.app.store.find(JOB_SCHEDULE, { where: TRUE, order: [], limit: LIMIT, skip: 0 });
}

/** GET /1/cloud_code/jobs (Parse Dashboard's list of schedules): an array of `_JobSchedule` objects, nextRunAt included. */
export async function listSchedules(ctx: RequestContext): Promise<Result> {
  assertMaster(ctx, 'This endpoint');
  const schema = (await ctx.app.schemas.get(JOB_SCHEDULE)) ?? null;
  return ok((await allSchedules(ctx)).map((schedule) => renderObject(ctx, schema, schedule)));
}

/** GET /1/cloud_code/jobs/data: the jobs the code defines and those some schedule uses. */
export async function jobsData(ctx: RequestContext, source: JobSource): Promise<Result> {
  assertMaster(ctx, 'This endpoint');
  const inUse = [...new Set((await allSchedules(ctx)).map((schedule) => String(schedule.data.jobName)))];
  return ok({ in_use: inUse, jobs: [...(await source.jobNames(ctx.app.record.applicationId))] });
}
