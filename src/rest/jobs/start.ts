import { Errors } from '../../errors/index.ts';
import { isPlainObject } from '../../encoding/values.ts';
import { ensureBuiltinClass } from '../../schema/builtin.ts';
import type { NewJob } from '../../storage/sql-jobs.ts';
import type { WriteStep } from '../../storage/port.ts';
import { ok, type RequestContext, type Result } from '../context.ts';
import { INTERNAL, writeCreate, type WriteTarget } from '../write/pipeline.ts';
import type { JobSource } from './source.ts';
import { CLOUD_JOB, JOB_STATUS, newJobStatus, type CloudJobPayload } from './status.ts';

export function assertMaster(ctx: RequestContext, what: string): void {
  if (!ctx.auth.isMaster) throw Errors.operationForbidden(`${what} needs the master key.`);
}

/** Parse Server's answer for a name the code does not define. */
export function unknownJob(): Error {
  return Errors.scriptFailed('Invalid job.');
}

/**
 * POST /1/jobs/<name> (decisions.md): writes the job's `_JobStatus` and its queue job in one
 * transaction and answers the status id; the queue runs it (run.ts). The body is the job's params.
 */
export async function startJob(ctx: RequestContext, source: JobSource, named: string | null, body: unknown): Promise<Result> {
  assertMaster(ctx, 'Running a job');
  // Without a name in the path (Parse Dashboard's form), the body's jobName; the params are the
  // whole body either way, as Parse Server gives them.
  const params = isPlainObject(body) ? (body as Record<string, unknown>) : {};
  const jobName = named ?? (typeof params.jobName === 'string' ? params.jobName : '');
  if (!(await source.jobNames(ctx.app.record.applicationId)).includes(jobName)) throw unknownJob();
  const id = await createJobRun(ctx.app, jobName, 'api', params, Date.now());
  ctx.log.info({ jobStatusId: id, jobName }, 'job queued');
  return ok({ jobStatusId: id }, 200, { 'X-Svc-Job-Status-Id': id, 'X-Parse-Job-Status-Id': id });
}

/** What writing a job run needs: the write pipeline's target (a unit of work's, for a schedule's run) and the queue. */
type JobApp = WriteTarget & { readonly jobs: Pick<RequestContext['app']['jobs'], 'enqueueStep'> };

/** A job's status and its queue job, written together (with `extra` steps of the caller's); answers the status id. */
export async function createJobRun(app: JobApp, jobName: string, source: 'api' | 'schedule', params: Record<string, unknown>, now: number, extra: readonly WriteStep[] = []): Promise<string> {
  await ensureBuiltinClass(app.schemas, JOB_STATUS);
  const status = newJobStatus(jobName, source, params, now);
  const payload: CloudJobPayload = { jobStatusId: status.objectId };
  const job: NewJob = { type: CLOUD_JOB, payload };
  const { step } = app.jobs.enqueueStep(job);
  await writeCreate(app, INTERNAL, { className: JOB_STATUS, write: { object: status, relations: [], steps: [step, ...extra] } });
  return status.objectId;
}
