import type { AppHandle } from '../../apps/registry.ts';
import { PermanentJobError, type JobType } from '../../queue/types.ts';
import { INTERNAL, writeUpdate } from '../write/pipeline.ts';
import type { JobSource } from './source.ts';
import { finished, JOB_STATUS, started, withFields, type CloudJobPayload } from './status.ts';

export const STOPPED_MESSAGE = 'The process running this job stopped before it finished; the job was not run again.';

/**
 * The queue's `cloudJob` type (server.ts adds it, as src/rest may not be listed by src/queue):
 * runs one cloud code job and records its end in `_JobStatus`.
 *
 * Delivery is at least once: after a crash (or a shutdown that released the job) the queue runs
 * it again. A job's side effects are the app's own and may not be safe to repeat, so a repeat
 * never runs the code again: the status is marked `started` (its `startedAt`) under the row's lock
 * before the code runs, and an attempt that finds it started marks it failed with STOPPED_MESSAGE.
 * A job runs at most once; one whose process died says so instead of staying `running`.
 */
export function cloudJobType(source: JobSource): JobType<CloudJobPayload> {
  return {
    parse(payload) {
      const id = (payload as { jobStatusId?: unknown } | null)?.jobStatusId;
      if (typeof id !== 'string') throw new PermanentJobError('cloudJob: the payload must have a jobStatusId');
      return { jobStatusId: id };
    },
    async run({ jobStatusId }, { app, log }) {
      let outcome = 'finished' as 'run' | 'finished' | 'repeat';
      let jobName = '';
      let params: Record<string, unknown> = {};
      const now = Date.now();
      await writeUpdate(app, INTERNAL, {
        className: JOB_STATUS,
        objectId: jobStatusId,
        write: null,
        change: (current) => {
          jobName = String(current.data.jobName);
          params = (current.data.params as Record<string, unknown> | undefined) ?? {};
          if (current.data.status !== 'running') outcome = 'finished';
          else outcome = current.data.startedAt === undefined ? 'run' : 'repeat';
          if (outcome === 'run') return { object: withFields(current, started(now), now), relations: [] };
          if (outcome === 'repeat') return { object: withFields(current, finished('failed', STOPPED_MESSAGE, now), now), relations: [] };
          return { object: current, relations: [] };
        },
      });
      if (outcome === 'repeat') log.warn({ jobStatusId, jobName }, 'a job whose process stopped is marked failed');
      if (outcome !== 'run') return;
      const messages = new MessageWriter(app, jobStatusId);
      let end: ReturnType<typeof finished>;
      try {
        await source.runJob(app.record.applicationId, jobName, params, (text) => messages.set(text));
        end = finished('succeeded', messages.latest, Date.now());
      } catch (error) {
        end = finished('failed', (error as Error).message, Date.now());
      }
      await messages.idle();
      await writeUpdate(app, INTERNAL, {
        className: JOB_STATUS,
        objectId: jobStatusId,
        write: null,
        change: (current) => ({ object: withFields(current, end, Date.now()), relations: [] }),
      });
      log.info({ jobStatusId, jobName, status: end.status }, 'job finished');
    },
  };
}

/**
 * `request.message(text)` writes the status's message; a job may send many quickly, so writes
 * are one at a time and only the latest waiting one is written.
 */
class MessageWriter {
  latest: string | null = null;
  private writing: Promise<void> | null = null;
  private waiting = false;

  constructor(private readonly app: AppHandle, private readonly jobStatusId: string) {}

  set(text: string): void {
    this.latest = text;
    if (this.writing) {
      this.waiting = true;
      return;
    }
    this.writing = this.write();
  }

  async idle(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async write(): Promise<void> {
    do {
      this.waiting = false;
      const message = this.latest;
      try {
        await writeUpdate(this.app, INTERNAL, {
          className: JOB_STATUS,
          objectId: this.jobStatusId,
          write: null,
          change: (current) => (current.data.status === 'running' ? { object: withFields(current, { message }, Date.now()), relations: [] } : { object: current, relations: [] }),
        });
      } catch {
        // A lost progress message is not the job's failure; its end is still recorded.
      }
    } while (this.waiting);
    this.writing = null;
  }
}
