import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { AppHandle, AppRegistry } from '../apps/registry.ts';
import type { Backend } from '../sql/backend.ts';
import type { JobRecord } from '../storage/sql-jobs.ts';
import type { WriteStep } from '../storage/port.ts';
import { afterFailure, errorText, renewalInterval } from './policy.ts';
import { PermanentJobError, type JobHelpers, type JobTypes } from './types.ts';

export interface QueueOptions {
  /** Jobs this process runs at once, over all apps; 0 runs none here. */
  readonly concurrency: number;
  /** How often every app is checked for due retries and for jobs whose lease ran out. */
  readonly sweepIntervalMs: number;
  /** How long a taken job stays this process's without a renewal. */
  readonly leaseMs: number;
  /** The first retry's wait; it doubles with each attempt (policy.ts). */
  readonly retryDelayMs: number;
}

/**
 * The workers of one server process. They learn that an app has work from the backend's job
 * announcements (sent when an enqueuing transaction commits), from timers this process sets for
 * the retries it scheduled, and from a slower sweep over every app, which finds retries scheduled
 * by other processes and jobs whose lease ran out (their process died). Jobs are taken from an
 * app as many at once as there are free slots, so a burst costs one claim per batch.
 */
export class JobRunner {
  /** Who holds a lease: unique per process start, so a restarted process does not own its predecessor's jobs. */
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly ready = new Set<string>();
  private readonly timers = new Map<string, { readonly at: number; readonly timer: NodeJS.Timeout }>();
  private readonly runningByApp = new Map<string, number>();
  private readonly recovered = new Set<string>();
  private readonly idle: (() => void)[] = [];
  private running = 0;
  private pumping = false;
  private pumpAgain = false;
  private pumpScheduled = false;
  private sweeping = false;
  private stopping = false;
  private sweepTimer: NodeJS.Timeout | null = null;
  private renewTimer: NodeJS.Timeout | null = null;
  private readonly log: Logger;

  constructor(
    private readonly apps: AppRegistry,
    private readonly backend: Backend,
    private readonly types: JobTypes,
    private readonly options: QueueOptions,
    logger: Logger,
  ) {
    this.log = logger.child({ queue: this.owner });
  }

  start(): void {
    if (this.options.concurrency <= 0) return;
    this.backend.onJobs((appId) => this.wake(appId));
    this.sweepTimer = setInterval(() => void this.sweep(), this.options.sweepIntervalMs);
    this.sweepTimer.unref();
    this.renewTimer = setInterval(() => void this.renew(), renewalInterval(this.options.leaseMs));
    this.renewTimer.unref();
    void this.sweep();
  }

  /** The app may have due jobs: take what the free slots allow. */
  wake(appId: string): void {
    if (this.stopping || this.options.concurrency <= 0) return;
    this.ready.add(appId);
    void this.pump();
  }

  /**
   * Stops taking jobs, gives the running ones up to `waitMs` to finish, then releases the leases
   * of those still running so another process takes them at once instead of after the lease.
   */
  async stop(waitMs: number): Promise<void> {
    this.stopping = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    if (this.running > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        this.idle.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    if (this.renewTimer) clearInterval(this.renewTimer);
    for (const [appId, count] of this.runningByApp) {
      if (count === 0) continue;
      try {
        const handle = await this.handleOf(appId);
        const released = handle ? await handle.jobs.release(this.owner, Date.now()) : 0;
        this.log.info({ appId, released }, 'queue: released the leases of jobs still running at shutdown');
      } catch (error) {
        this.log.error({ appId, err: errorText(error) }, 'queue: could not release leases at shutdown; they run out by themselves');
      }
    }
  }

  private async handleOf(appId: string): Promise<AppHandle | null> {
    const record = await this.apps.find(appId);
    return record ? this.apps.handle(record) : null;
  }

  /**
   * After the turn: the jobs of a batch that end together free their slots first, and the next
   * claim takes as many jobs as there are free slots, instead of one claim per job.
   */
  private pumpSoon(): void {
    if (this.pumpScheduled || this.stopping) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      void this.pump();
    });
  }

  private async pump(): Promise<void> {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        for (const appId of [...this.ready]) {
          const free = this.options.concurrency - this.running;
          if (free <= 0 || this.stopping) return;
          this.ready.delete(appId);
          await this.claimFrom(appId, free);
        }
      } while (!this.stopping && (this.pumpAgain || (this.ready.size > 0 && this.running < this.options.concurrency)));
    } finally {
      this.pumping = false;
    }
  }

  private async claimFrom(appId: string, free: number): Promise<void> {
    let handle: AppHandle | null;
    let jobs: JobRecord[];
    try {
      handle = await this.handleOf(appId);
      if (!handle) return;
      const now = Date.now();
      jobs = await handle.jobs.claim(this.owner, free, now, now + this.options.leaseMs);
    } catch (error) {
      // The database is unreachable for now: the sweep comes back to this app.
      this.log.error({ appId, err: errorText(error) }, 'queue: could not take jobs');
      return;
    }
    // A full batch: there may be more.
    if (jobs.length === free) this.ready.add(appId);
    for (const job of jobs) void this.execute(appId, handle, job);
  }

  private async execute(appId: string, handle: AppHandle, job: JobRecord): Promise<void> {
    this.running += 1;
    this.runningByApp.set(appId, (this.runningByApp.get(appId) ?? 0) + 1);
    const fields = { appId, jobId: job.id, type: job.type, attempt: job.attempts };
    const helpers: JobHelpers = { app: handle, log: this.log.child(fields), job: { id: job.id, attempts: job.attempts, maxAttempts: job.maxAttempts } };
    const type = this.types[job.type];
    let payload: unknown;
    let parsed = false;
    // Wall-clock times with a fraction of a millisecond: runs in several processes can be compared.
    this.log.debug({ ...fields, startedAt: wallClock(), lateMs: Date.now() - job.runAt }, 'job started');
    try {
      if (!type) throw new PermanentJobError(`no job type named ${JSON.stringify(job.type)}`);
      payload = type.parse(job.payload);
      parsed = true;
      await type.run(payload, helpers);
      await handle.jobs.complete(job.id, this.owner);
      this.log.debug({ ...fields, endedAt: wallClock() }, 'job done');
    } catch (error) {
      await this.failed(appId, handle, job, error, (message) => (type?.onDead && parsed ? type.onDead(payload, message, helpers) : []), fields);
    } finally {
      this.running -= 1;
      this.runningByApp.set(appId, this.runningByApp.get(appId)! - 1);
      if (this.running === 0) for (const resolve of this.idle.splice(0)) resolve();
      this.pumpSoon();
    }
  }

  private async failed(appId: string, handle: AppHandle, job: JobRecord, error: unknown, onDead: (message: string) => readonly WriteStep[], fields: Record<string, unknown>): Promise<void> {
    const message = errorText(error);
    const outcome = afterFailure(job.attempts, job.maxAttempts, error instanceof PermanentJobError, Date.now(), this.options.retryDelayMs);
    try {
      if (outcome.kind === 'retry') {
        await handle.jobs.reschedule(job.id, this.owner, outcome.runAt, message);
        this.log.warn({ ...fields, err: message, retryAt: new Date(outcome.runAt).toISOString(), endedAt: wallClock() }, 'job failed; it will be tried again');
        this.wakeAt(appId, outcome.runAt);
      } else {
        await handle.jobs.bury(job.id, this.owner, message, onDead(message));
        this.log.error({ ...fields, err: message, endedAt: wallClock() }, 'job failed for the last time; it is kept as dead');
      }
    } catch (stored) {
      // The lease runs out and the job is taken again: at least once.
      this.log.error({ ...fields, err: errorText(stored) }, 'queue: could not record a failed attempt');
    }
  }

  /** Wakes the app at `at`, unless an earlier wake is set already. */
  private wakeAt(appId: string, at: number): void {
    if (this.stopping) return;
    const current = this.timers.get(appId);
    if (current && current.at <= at) return;
    if (current) clearTimeout(current.timer);
    const timer = setTimeout(() => {
      this.timers.delete(appId);
      this.wake(appId);
    }, Math.max(at - Date.now(), 0));
    timer.unref();
    this.timers.set(appId, { at, timer });
  }

  /**
   * Every app: where one process owns the database, jobs left running by a previous process are
   * made due at once (the first time only); then due jobs are taken, and a wake is set for one
   * that becomes due before the next sweep.
   */
  async sweep(): Promise<void> {
    if (this.sweeping || this.stopping) return;
    this.sweeping = true;
    try {
      for (const record of await this.apps.list()) {
        if (this.stopping) break;
        const appId = record.applicationId;
        try {
          const handle = await this.apps.handle(record);
          if (!this.backend.sharedByProcesses && !this.recovered.has(appId)) {
            const recovered = await handle.jobs.recoverOrphans(this.owner, Date.now());
            if (recovered > 0) this.log.info({ appId, recovered }, 'queue: jobs left running by a stopped process are due again');
            this.recovered.add(appId);
          }
          const next = await handle.jobs.nextDue();
          if (next === null) continue;
          if (next <= Date.now()) this.wake(appId);
          else if (next - Date.now() < 2 * this.options.sweepIntervalMs) this.wakeAt(appId, next);
        } catch (error) {
          this.log.error({ appId, err: errorText(error) }, 'queue: could not check the app for due jobs');
        }
      }
    } catch (error) {
      this.log.error({ err: errorText(error) }, 'queue: could not list the apps');
    } finally {
      this.sweeping = false;
    }
  }

  private async renew(): Promise<void> {
    const until = Date.now() + this.options.leaseMs;
    for (const [appId, count] of this.runningByApp) {
      if (count === 0) continue;
      try {
        await (await this.handleOf(appId))?.jobs.renew(this.owner, until);
      } catch (error) {
        this.log.error({ appId, err: errorText(error) }, 'queue: could not renew leases');
      }
    }
  }
}

function wallClock(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000) / 1000;
}
