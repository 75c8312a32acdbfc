/**
 * The queue's timing rules, as pure functions: how long a failed job waits before its next
 * attempt, when it is given up, and how a lease is held.
 */

/** The longest wait between two attempts, whatever the attempt number. */
export const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;

/**
 * Exponential back-off with jitter: after attempt n (1-based) the job waits between half and
 * all of `base · 2^(n-1)` (at most an hour). The random half spreads the retries of many jobs
 * that failed together (a mail server that was down) instead of sending them back at once;
 * the fixed half keeps the growth, so a long outage is not hammered.
 */
export function retryDelay(attempt: number, baseMs: number, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(attempt, 1) - 1, 40);
  const ceiling = Math.min(baseMs * 2 ** exponent, MAX_RETRY_DELAY_MS);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

export type FailureOutcome = { readonly kind: 'retry'; readonly runAt: number } | { readonly kind: 'dead' };

/**
 * What becomes of a job whose attempt failed. `attempts` counts the attempt that just failed
 * (attempts are counted when a job is taken, so one that crashed its process counts too).
 */
export function afterFailure(attempts: number, maxAttempts: number, permanent: boolean, now: number, baseMs: number, random: () => number = Math.random): FailureOutcome {
  if (permanent || attempts >= maxAttempts) return { kind: 'dead' };
  return { kind: 'retry', runAt: now + retryDelay(attempts, baseMs, random) };
}

/**
 * A running job's lease is renewed three times per lease period, so two renewals can be late
 * (a busy event loop, a slow database) before another process may take the job.
 */
export function renewalInterval(leaseMs: number): number {
  return Math.max(Math.floor(leaseMs / 3), 50);
}

/** The text kept as a job's last error: the message, bounded. */
export function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message || error.name : String(error);
  return text.slice(0, 2000);
}
