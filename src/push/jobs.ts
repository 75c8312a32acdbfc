import { PermanentJobError, type JobHelpers, type JobType, type JobTypes } from '../queue/types.ts';
import { abandonPush, PUSH_PAGE_JOB, PUSH_PLAN_JOB, PUSH_REMOVE_JOB, PUSH_RETRY_JOB, removeStatus, runPage, runPlan, type PagePayload, type PipelineOptions, type RetryPayload } from './pipeline.ts';
import { runRetry } from './retry.ts';

/**
 * The push pipeline's job types. They are built by src/server.ts with the delivery networks and
 * the page size, not listed in src/queue/job-types.ts: src/push uses the write pipeline of
 * src/rest, which itself reads that list (rest/queue.ts), and the layers allow no such cycle.
 */
export function pushJobTypes(options: PipelineOptions): JobTypes {
  const page: JobType<PagePayload> = {
    parse: parsePage,
    run: (payload, helpers) => lastAttemptFails(payload.pushStatusId, helpers, () => runPage(helpers.app, payload, options, helpers.log)),
  };
  const plan: JobType<string> = {
    parse: (payload) => statusId(payload, PUSH_PLAN_JOB),
    run: (pushStatusId, helpers) => lastAttemptFails(pushStatusId, helpers, () => runPlan(helpers.app, pushStatusId)),
  };
  const retry: JobType<RetryPayload> = {
    parse: parseRetry,
    run: (payload, helpers) => lastAttemptFails(payload.pushStatusId, helpers, () => runRetry(helpers.app, payload, options, helpers.log)),
  };
  const remove: JobType<string> = {
    parse: (payload) => statusId(payload, PUSH_REMOVE_JOB),
    run: (pushStatusId, { app }) => removeStatus(app, pushStatusId),
  };
  return { [PUSH_PAGE_JOB]: page as JobType, [PUSH_PLAN_JOB]: plan as JobType, [PUSH_REMOVE_JOB]: remove as JobType, [PUSH_RETRY_JOB]: retry as JobType };
}

/** Runs a push's job; when its last attempt fails too, the push ends failed rather than stay unfinished. */
async function lastAttemptFails(pushStatusId: string, { app, log, job }: JobHelpers, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (job.attempts >= job.maxAttempts) {
      const text = error instanceof Error ? error.message : String(error);
      await abandonPush(app, pushStatusId, text).catch((stored: unknown) => log.error({ err: String(stored) }, 'push: could not record a push as failed'));
    }
    throw error;
  }
}

function statusId(payload: unknown, type: string): string {
  const id = (payload as { pushStatusId?: unknown } | null)?.pushStatusId;
  if (typeof id !== 'string' || id === '') throw new PermanentJobError(`${type}: the payload must name a pushStatusId`);
  return id;
}

function parsePage(payload: unknown): PagePayload {
  const { batch, after, expiresAt, zones } = (payload ?? {}) as Record<string, unknown>;
  const pushStatusId = statusId(payload, PUSH_PAGE_JOB);
  const zoneList = zones === null || zones === undefined ? null : zones;
  if (typeof batch !== 'string' || typeof after !== 'string' || (expiresAt !== null && typeof expiresAt !== 'number') || (zoneList !== null && !(Array.isArray(zoneList) && zoneList.every((zone) => typeof zone === 'string')))) {
    throw new PermanentJobError(`${PUSH_PAGE_JOB}: the payload must have batch, after, expiresAt and zones`);
  }
  return { pushStatusId, batch, after, expiresAt, zones: zoneList as string[] | null };
}

function parseRetry(payload: unknown): RetryPayload {
  const { key, attempt, ...page } = (payload ?? {}) as Record<string, unknown>;
  const { pushStatusId, batch, expiresAt, zones } = parsePage({ ...page, after: '' });
  if (typeof key !== 'string' || typeof attempt !== 'number' || !Number.isInteger(attempt) || attempt < 2) {
    throw new PermanentJobError(`${PUSH_RETRY_JOB}: the payload must have key and attempt`);
  }
  return { pushStatusId, batch, key, attempt, expiresAt, zones };
}
