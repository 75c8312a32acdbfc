import type { Logger } from 'pino';
import type { AppHandle } from '../apps/registry.ts';
import type { WriteStep } from '../storage/port.ts';

/** What a handler gets besides its payload. */
export interface JobHelpers {
  /** The app the job belongs to, with its current settings. */
  readonly app: AppHandle;
  readonly log: Logger;
  readonly job: { readonly id: string; readonly attempts: number; readonly maxAttempts: number };
}

/**
 * A job type: a small function of its payload (graphile-worker's shape). Delivery is at least
 * once, so a handler must be idempotent where a repeat would be seen. The queue owns retries,
 * leases and dead jobs; a handler only succeeds or throws.
 */
export interface JobType<P = unknown> {
  /** Checks a stored payload before each run (anything else is a permanent failure). */
  parse(payload: unknown): P;
  run(payload: P, helpers: JobHelpers): Promise<void>;
  /** Attempts before the job is dead; absent, the server's --queue-max-attempts. */
  readonly maxAttempts?: number;
  /** Writes made in the same transaction that marks the job dead (mail keeps a `failed` copy in the outbox). */
  onDead?(payload: P, error: string, helpers: JobHelpers): readonly WriteStep[];
  /** Whether the master key may enqueue it through POST /1/queue/jobs. */
  readonly enqueueable?: boolean;
}

export type JobTypes = Readonly<Record<string, JobType>>;

/** Thrown by a handler when trying again cannot help (a mail server's permanent refusal): the job is dead at once. */
export class PermanentJobError extends Error {
  override readonly name = 'PermanentJobError';
}
