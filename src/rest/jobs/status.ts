import { isoTimestamp, newObjectId } from '../../apps/ids.ts';
import type { StoredObject } from '../../storage/port.ts';

export const JOB_STATUS = '_JobStatus';

/** The queue's job type that runs a cloud code job (run.ts). */
export const CLOUD_JOB = 'cloudJob';

export type JobSourceKind = 'api' | 'schedule';

export interface CloudJobPayload {
  readonly jobStatusId: string;
}

const dateValue = (at: number) => ({ __type: 'Date', iso: new Date(at).toISOString() });

/**
 * A new job's `_JobStatus`, in Parse Server's field names: `running` from the start (the job is
 * queued in the same transaction). `startedAt` is written when a process begins running it, which
 * is how a later attempt knows an earlier one began (run.ts). Master key only: no one is in the
 * permission lists.
 */
export function newJobStatus(jobName: string, source: JobSourceKind, params: Record<string, unknown>, now: number): StoredObject {
  const at = isoTimestamp(now);
  return { objectId: newObjectId(now), createdAt: at, updatedAt: at, data: { jobName, source, status: 'running', params }, rperm: [], wperm: [] };
}

/** The changes of a status: started, a message, finished. */
export function withFields(current: StoredObject, fields: Record<string, unknown>, now: number): StoredObject {
  return { ...current, updatedAt: isoTimestamp(now), data: { ...current.data, ...fields } };
}

export const started = (now: number) => ({ startedAt: dateValue(now) });
export const finished = (status: 'succeeded' | 'failed', message: string | null, now: number) => ({
  status,
  finishedAt: dateValue(now),
  ...(message === null ? {} : { message }),
});
