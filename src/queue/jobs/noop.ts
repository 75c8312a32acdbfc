import { setTimeout as sleep } from 'node:timers/promises';
import { PermanentJobError, type JobType } from '../types.ts';

export interface NoopPayload {
  /** Milliseconds the job takes (0 to 60,000). */
  readonly ms: number;
}

/**
 * A job that does nothing but take `ms` milliseconds. It exists to measure the queue (`npm run
 * bench`) and to check it from outside (the process tests count its runs in the debug log); only
 * the master key can enqueue it, through POST /1/queue/jobs, and it touches no data.
 */
export const noopJob: JobType<NoopPayload> = {
  enqueueable: true,
  parse(payload) {
    const ms = payload && typeof payload === 'object' ? (payload as { ms?: unknown }).ms : undefined;
    if (ms === undefined) return { ms: 0 };
    if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0 || ms > 60_000) throw new PermanentJobError('noop: ms must be an integer from 0 to 60000');
    return { ms };
  },
  async run({ ms }) {
    if (ms > 0) await sleep(ms);
  },
};
