import { Errors } from '../errors/index.ts';
import { ensureBuiltinClass } from '../schema/builtin.ts';
import { parseQuery } from '../query/parse.ts';
import { ok, type RequestContext, type Result } from '../rest/context.ts';
import { INTERNAL, writeCreate, writeUpdate } from '../rest/write/pipeline.ts';
import type { NewJob } from '../storage/sql-jobs.ts';
import { pageJob, PUSH_PLAN_JOB, PUSH_REMOVE_JOB, PUSH_STATUS_LIFETIME_MS } from './pipeline.ts';
import { parsePushRequest, type PushRequest } from './request.ts';
import { ALL, newPushStatus, PUSH_STATUS, type PushState } from './status.ts';
import { EARLIEST_OFFSET_MS } from './time.ts';

/**
 * POST /1/push (spec 4.8, 2.12): checks the message, then writes its `_PushStatus` and its first
 * job in one transaction and answers; the queue does the sending (pipeline.ts). Nothing is sent
 * before the status exists, and a status never exists without the job that completes it.
 */
export async function sendPush(ctx: RequestContext, body: unknown): Promise<Result> {
  assertMayPush(ctx);
  const now = Date.now();
  const request = parsePushRequest(body, now);
  await assertInstallationQuery(ctx, request.audience);
  await ensureBuiltinClass(ctx.app.schemas, PUSH_STATUS);
  const status = newPushStatus(request, now, pushTimeText(request, now));
  const id = status.objectId;
  const jobs: NewJob[] = [firstJob(request, id, now), { type: PUSH_REMOVE_JOB, payload: { pushStatusId: id }, runAt: now + PUSH_STATUS_LIFETIME_MS }];
  const { step } = ctx.app.jobs.enqueueStep(jobs);
  await writeCreate(ctx.app, INTERNAL, { className: PUSH_STATUS, write: { object: status, relations: [], steps: [step] } });
  ctx.log.info({ pushStatusId: id, scheduled: request.pushTime !== null }, 'push accepted');
  return ok({ result: true }, 200, { 'X-Svc-Push-Status-Id': id, 'X-Parse-Push-Status-Id': id });
}

/** Spec 5: the master and REST keys push; client-side keys only with the app's clientPushEnabled. */
function assertMayPush(ctx: RequestContext): void {
  if (ctx.auth.isMaster || ctx.auth.key === 'rest') return;
  if (ctx.app.record.settings.clientPushEnabled === true) return;
  throw Errors.operationForbidden('Client keys may not send pushes in this app (its clientPushEnabled setting is off).');
}

/** The audience must be a query the language accepts over _Installation (102 otherwise), inner queries included. */
async function assertInstallationQuery(ctx: RequestContext, audience: Record<string, unknown>): Promise<void> {
  const schemas = await ctx.app.schemas.all();
  parseQuery(audience, schemas.get('_Installation') ?? null, (name) => schemas.get(name) ?? null);
}

/** `pushTime` as Parse Server stores it: ISO in UTC, without the Z for a local time. */
function pushTimeText(request: PushRequest, now: number): string {
  const time = request.pushTime;
  if (!time) return new Date(now).toISOString();
  if (time.kind === 'absolute') return new Date(time.at).toISOString();
  return new Date(time.wall).toISOString().slice(0, -1);
}

/**
 * Immediate or absolute: the audience's first page, due at push_time. Local time: the plan, due
 * when the first zone (UTC+14) nears the time, so zones registered until then count.
 */
function firstJob(request: PushRequest, pushStatusId: string, now: number): NewJob {
  const time = request.pushTime;
  if (time?.kind === 'local') return { type: PUSH_PLAN_JOB, payload: { pushStatusId }, runAt: Math.max(now, time.wall - EARLIEST_OFFSET_MS) };
  return pageJob({ pushStatusId, batch: ALL, after: '', expiresAt: request.expiresAt, zones: null }, time?.at ?? now);
}

/** DELETE /1/push/<pushStatusId> (decisions.md, master key): a push that has not started is canceled. */
export async function cancelPush(ctx: RequestContext, pushStatusId: string): Promise<Result> {
  if (!ctx.auth.isMaster) throw Errors.operationForbidden('Canceling a push needs the master key.');
  const notFound = () => Errors.objectNotFound(`No push status has the id ${JSON.stringify(pushStatusId.slice(0, 40))}.`);
  if (!(await ctx.app.schemas.get(PUSH_STATUS))) throw notFound();
  let was: PushState | null = null;
  const updated = await writeUpdate(ctx.app, INTERNAL, {
    className: PUSH_STATUS,
    objectId: pushStatusId,
    write: null,
    change: (current) => {
      was = current.data.status as PushState;
      if (was !== 'scheduled' && was !== 'pending') return { object: current, relations: [] };
      return { object: { ...current, updatedAt: new Date().toISOString(), data: { ...current.data, status: 'canceled' } }, relations: [] };
    },
  });
  if (!updated) throw notFound();
  if (was !== 'scheduled' && was !== 'pending') throw Errors.validationError(`This push is ${String(was)}: only a scheduled or pending push can be canceled.`);
  ctx.log.info({ pushStatusId }, 'push canceled');
  return ok({});
}
