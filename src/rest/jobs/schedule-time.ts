/**
 * When a `_JobSchedule` runs (docs/cloud-code.md "Schedules"), in Parse Dashboard's fields:
 * - `startAfter` (ISO time): the earliest run; absent, the moment it was saved;
 * - `repeatMinutes` > 0: runs at startAfter, then every repeatMinutes;
 * - otherwise `timeOfDay` ("HH:MM", "HH:MM:SS" or "HH:MM:SS.mmmZ", UTC): runs each day at that
 *   time from startAfter on, on the `daysOfWeek` only when given (0 = Sunday … 6 = Saturday);
 * - neither: runs once, at startAfter.
 */
export interface ScheduleTimes {
  readonly startAfter: number;
  readonly repeatMinutes: number | null;
  /** Milliseconds after midnight UTC. */
  readonly timeOfDay: number | null;
  readonly daysOfWeek: readonly number[] | null;
}

const DAY_MS = 86_400_000;

/** "HH:MM[:SS[.mmm]][Z]" as milliseconds after midnight; null when it is not such a time. */
export function parseTimeOfDay(text: string): number | null {
  const match = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?Z?$/.exec(text);
  if (!match) return null;
  const [hours, minutes, seconds] = [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
  if (hours > 23 || minutes > 59 || seconds > 59) return null;
  return ((hours * 60 + minutes) * 60 + seconds) * 1000 + Number((match[4] ?? '0').padEnd(3, '0'));
}

/**
 * The first run strictly after `after` (a run that was due while no process ran is skipped, not
 * made up: a schedule runs at its next time); null when a one-time schedule is past.
 */
export function nextRun(times: ScheduleTimes, after: number): number | null {
  const { startAfter, repeatMinutes, timeOfDay, daysOfWeek } = times;
  if (repeatMinutes !== null && repeatMinutes > 0) {
    if (startAfter > after) return startAfter;
    const step = repeatMinutes * 60_000;
    return startAfter + (Math.floor((after - startAfter) / step) + 1) * step;
  }
  if (timeOfDay !== null) {
    const from = Math.max(after + 1, startAfter);
    let day = Math.floor(from / DAY_MS) * DAY_MS;
    for (let i = 0; i < 8; i++, day += DAY_MS) {
      const at = day + timeOfDay;
      if (at < from) continue;
      if (daysOfWeek && daysOfWeek.length > 0 && !daysOfWeek.includes(new Date(at).getUTCDay())) continue;
      return at;
    }
    return null;
  }
  return startAfter > after ? startAfter : null;
}
