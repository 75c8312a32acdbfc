import { ensureBuiltinClass } from '../../schema/builtin.ts';
import { isoTimestamp } from '../../apps/ids.ts';
import { PermanentJobError, type JobType } from '../../queue/types.ts';
import { INTERNAL, writeUpdate } from '../write/pipeline.ts';
import { createJobRun } from './start.ts';
import { JOB_SCHEDULE, nextRun, nextRunValue, runJob, timesOf, type ScheduleRunPayload } from './schedules.ts';
import { JOB_STATUS } from './status.ts';

/**
 * The queue's `jobScheduleRun` type: one run of a `_JobSchedule` at its time. In one transaction
 * it moves the schedule's `nextRunAt` from this run's time to the next one (the row's lock makes
 * this a compare-and-set), queues the next run, and creates the job's `_JobStatus` and `cloudJob`.
 * A run whose time is no longer the schedule's nextRunAt (the schedule was edited, deleted, or a
 * repeat of a run that already committed) does nothing: each time runs once, whichever process
 * takes it, and a crash before the commit leaves the run to the queue's retry.
 */
export const scheduleRunJob: JobType<ScheduleRunPayload> = {
  parse(payload) {
    const { scheduleId, at } = (payload ?? {}) as Partial<Record<keyof ScheduleRunPayload, unknown>>;
    if (typeof scheduleId !== 'string' || typeof at !== 'number') throw new PermanentJobError('jobScheduleRun: the payload must have scheduleId and at');
    return { scheduleId, at };
  },
  async run({ scheduleId, at }, { app, log }) {
    if (!(await app.schemas.get(JOB_SCHEDULE))) return;
    await ensureBuiltinClass(app.schemas, JOB_STATUS);
    const due = new Date(at).toISOString();
    const ran = await app.store.unitOfWork(async (unit) => {
      const target = { store: unit, schemas: app.schemas, hooks: app.hooks, jobs: app.jobs, record: app.record };
      let run: { jobName: string; params: Record<string, unknown> } | null = null;
      const now = Date.now();
      await writeUpdate(target, INTERNAL, {
        className: JOB_SCHEDULE,
        objectId: scheduleId,
        write: null,
        change: (current) => {
          const stored = current.data.nextRunAt as { iso?: string } | undefined;
          if (stored?.iso !== due) {
            run = null;
            return { object: current, relations: [] };
          }
          run = { jobName: String(current.data.jobName), params: paramsOf(current.data.params) };
          const next = nextRun(timesOf(current.data, current.createdAt), Math.max(at, now));
          const { nextRunAt: _was, ...rest } = current.data;
          const value = nextRunValue(next);
          const data = { ...rest, lastRun: at, ...(value ? { nextRunAt: value } : {}) };
          const steps = next === null ? [] : [app.jobs.enqueueStep(runJob(scheduleId, next)).step];
          return { object: { ...current, updatedAt: isoTimestamp(now), data }, relations: [], steps };
        },
      });
      const chosen = run as { jobName: string; params: Record<string, unknown> } | null;
      if (!chosen) return null;
      const id = await createJobRun(target, chosen.jobName, 'schedule', chosen.params, now);
      return { ...chosen, id };
    });
    if (ran) log.info({ scheduleId, jobName: ran.jobName, jobStatusId: ran.id }, 'scheduled job queued');
  },
};

/** A schedule's params are JSON text (Parse Dashboard's form); anything else runs with none. */
function paramsOf(text: unknown): Record<string, unknown> {
  if (typeof text !== 'string') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
