import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import { JOB_TYPES } from '../queue/job-types.ts';
import { PermanentJobError } from '../queue/types.ts';
import { JOB_STATUSES, type JobRecord, type JobStatus } from '../storage/sql-jobs.ts';
import { ok, type RequestContext, type Result } from './context.ts';
import { parseLimit, parseSkip } from './find.ts';

/** Jobs one POST /1/queue/jobs may enqueue. */
const MAX_ENQUEUE = 1000;
const MAX_ATTEMPTS_GIVEN = 100;

function requireMaster(ctx: RequestContext): void {
  if (!ctx.auth.isMaster) throw Errors.operationForbidden('The job queue is open to the master key only.');
}

/** A job as the API shows it: times as ISO text, the payload as stored. */
export function renderJob(job: JobRecord): Record<string, unknown> {
  return {
    objectId: job.id,
    type: job.type,
    status: job.status,
    attempts: job.attempts,
    maxAttempts: job.maxAttempts,
    runAt: new Date(job.runAt).toISOString(),
    lockedUntil: job.lockedUntil === null ? null : new Date(job.lockedUntil).toISOString(),
    lastError: job.lastError,
    payload: job.payload,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
  };
}

/**
 * GET /1/queue/jobs?status=pending|running|dead&limit&skip&count=1: the app's queued jobs,
 * oldest first (jobs that succeeded are gone). Master key only (403/119).
 */
export async function listJobs(ctx: RequestContext, query: Readonly<Record<string, unknown>>): Promise<Result> {
  requireMaster(ctx);
  const status = parseStatus(query.status);
  const limit = parseLimit(query.limit);
  const skip = parseSkip(query.skip);
  const withCount = query.count === '1' || query.count === 1 || query.count === true || query.count === 'true';
  const results = limit > 0 ? (await ctx.app.jobs.list({ status, limit, skip })).map(renderJob) : [];
  return ok(withCount ? { results, count: await ctx.app.jobs.count(status) } : { results });
}

function parseStatus(value: unknown): JobStatus | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'string' && (JOB_STATUSES as readonly string[]).includes(value)) return value as JobStatus;
  throw Errors.invalidQuery(`status must be one of ${JOB_STATUSES.join(', ')}.`);
}

/** GET /1/queue/jobs/<objectId>: one job (404/101 when there is none: it may have succeeded). */
export async function getJob(ctx: RequestContext, id: string): Promise<Result> {
  requireMaster(ctx);
  const job = await ctx.app.jobs.get(id);
  if (!job) throw Errors.objectNotFound(`No queued job ${id}: it may have been done already.`);
  return ok(renderJob(job));
}

/**
 * POST /1/queue/jobs/<objectId>/retry: a dead (or pending) job becomes pending, due now, with
 * its attempts counted from zero; its last error stays until the next attempt. A running job
 * is refused (400/142): its attempt is not over. Answers the job as it now is.
 */
export async function retryJob(ctx: RequestContext, id: string): Promise<Result> {
  requireMaster(ctx);
  const job = await ctx.app.jobs.retry(id, Date.now());
  if (job) return ok(renderJob(job));
  if (await ctx.app.jobs.get(id)) throw Errors.validationError(`Job ${id} is running; it can be retried once its attempt fails.`);
  throw Errors.objectNotFound(`No queued job ${id}: it may have been done already.`);
}

/**
 * POST /1/queue/jobs `{type, payload?, count?, maxAttempts?}`: enqueues `count` (1 to 1000)
 * jobs of a type open to the API, in one transaction. Only `noop` is (a job that waits
 * `payload.ms` milliseconds and does nothing, for measuring the queue); mail is queued by the
 * writes that cause it. Answers 201 `{objectIds}`.
 */
export async function enqueueJobs(ctx: RequestContext, body: unknown): Promise<Result> {
  requireMaster(ctx);
  if (!isPlainObject(body)) throw Errors.invalidJson('The body must be {"type": …, "payload"?: {…}, "count"?: n, "maxAttempts"?: n}.');
  const type = typeof body.type === 'string' ? JOB_TYPES[body.type] : undefined;
  if (!type?.enqueueable) throw Errors.validationError(`Jobs of type ${JSON.stringify(body.type)?.slice(0, 60)} cannot be enqueued through the API (only noop can).`);
  const count = body.count === undefined ? 1 : body.count;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_ENQUEUE) throw Errors.validationError(`count must be a whole number from 1 to ${MAX_ENQUEUE}.`);
  const maxAttempts = body.maxAttempts;
  if (maxAttempts !== undefined && (typeof maxAttempts !== 'number' || !Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS_GIVEN)) {
    throw Errors.validationError(`maxAttempts must be a whole number from 1 to ${MAX_ATTEMPTS_GIVEN}.`);
  }
  const payload = body.payload ?? {};
  try {
    type.parse(payload);
  } catch (error) {
    throw Errors.validationError(error instanceof PermanentJobError ? error.message : 'The payload does not fit the job type.');
  }
  const jobs = Array.from({ length: count }, () => ({ type: body.type as string, payload, ...(maxAttempts === undefined ? {} : { maxAttempts: maxAttempts as number }) }));
  const { ids, step } = ctx.app.jobs.enqueueStep(jobs);
  await ctx.app.store.runSteps([step]);
  return ok({ objectIds: ids }, 201);
}
