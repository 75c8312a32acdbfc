/**
 * When a `_JobSchedule` runs (docs/cloud-code.md "Schedules"), in Parse Dashboard's fields:
 * - `startAfter` (ISO time): the earliest run; absent, the moment it was saved;
 * - `timeOfDay` ("HH:MM", "HH:MM:SS" or "HH:MM:SS.mmmZ", UTC): the first run is the first such
 *   time from startAfter on (without it, startAfter itself);
 * - `repeatMinutes` > 0: then every repeatMinutes (the dashboard's "daily" is 1440); absent, the
 *   schedule runs once;
 * - `daysOfWeek`: the days it may run on. The dashboard sends seven flags, Sunday first
 *   (`[1,1,1,1,1,1,1]`); a list of day numbers (0 = Sunday … 6) is read too.
 */
export interface ScheduleTimes {
  readonly startAfter: number;
  readonly repeatMinutes: number | null;
  /** Milliseconds after midnight UTC. */
  readonly timeOfDay: number | null;
  /** The allowed days, 0 = Sunday; null: every day. */
  readonly daysOfWeek: readonly number[] | null;
}

const DAY_MS = 86_400_000;

/** `daysOfWeek` as allowed day numbers: seven 0/1 flags (Parse Dashboard) or day numbers; null for every day. */
export function allowedDays(value: unknown): number[] | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  if (value.length === 7 && value.every((flag) => flag === 0 || flag === 1 || flag === true || flag === false)) {
    const days = value.flatMap((flag, day) => (flag === 1 || flag === true ? [day] : []));
    return days.length === 7 ? null : days;
  }
  return value.map(Number).filter((day) => Number.isInteger(day) && day >= 0 && day <= 6);
}

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
 * made up: a schedule runs at its next time); null when there is none (a one-time schedule past,
 * or no allowed day).
 */
export function nextRun(times: ScheduleTimes, after: number): number | null {
  const { startAfter, repeatMinutes, timeOfDay, daysOfWeek } = times;
  const allowed = (at: number) => !daysOfWeek || daysOfWeek.includes(new Date(at).getUTCDay());
  let first = startAfter;
  if (timeOfDay !== null) {
    first = Math.floor(startAfter / DAY_MS) * DAY_MS + timeOfDay;
    if (first < startAfter) first += DAY_MS;
  }
  if (repeatMinutes === null || repeatMinutes <= 0) {
    // Once: at startAfter, or at the time of day on the first allowed day from then on.
    if (timeOfDay === null) return first > after ? first : null;
    for (let i = 0; i < 7; i++, first += DAY_MS) if (allowed(first)) return first > after ? first : null;
    return null;
  }
  const step = repeatMinutes * 60_000;
  let at = first > after ? first : first + (Math.floor((after - first) / step) + 1) * step;
  // A week of steps covers every day (a step is at least a minute).
  for (let i = 0; i <= 7 * 1440; i++, at += step) if (allowed(at)) return at;
  return null;
}
