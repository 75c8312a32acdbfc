/**
 * Times of a push (spec 2.12): `push_time`, `expiration_time`, and the devices' local wall time.
 * Everything is milliseconds since 1970 once parsed.
 */

/** An instant, or a wall time that each device reads in its own time zone. */
export type PushTime = { readonly kind: 'absolute'; readonly at: number } | { readonly kind: 'local'; readonly wall: number };

// An ISO 8601 date-time ends with Z or ±hh:mm (±hhmm) when it names its zone.
const ZONED = /(Z|[+-]\d\d(:?\d\d)?)$/i;
const ISO_DATE = /^\d{4}-\d\d-\d\d([T ]\d\d:\d\d(:\d\d(\.\d{1,9})?)?)?/;

/**
 * `push_time` or `expiration_time` as sent: epoch seconds (UTC), or ISO 8601. A string without a
 * zone is a local wall time (only `push_time` allows one); null when it is no date at all.
 */
export function parsePushTime(value: unknown): PushTime | null {
  if (typeof value === 'number') return Number.isFinite(value) ? { kind: 'absolute', at: Math.round(value * 1000) } : null;
  if (typeof value !== 'string' || !ISO_DATE.test(value.trim())) return null;
  const text = value.trim();
  if (ZONED.test(text) && text.length > 10) {
    const at = Date.parse(text);
    return Number.isFinite(at) ? { kind: 'absolute', at } : null;
  }
  // Read as if it were UTC: the digits of the wall time, kept as a number.
  const wall = Date.parse(`${text.replace(' ', 'T')}${text.length === 10 ? 'T00:00:00' : ''}Z`);
  return Number.isFinite(wall) ? { kind: 'local', wall } : null;
}

const FORMATS = new Map<string, Intl.DateTimeFormat | null>();

function formatOf(zone: string): Intl.DateTimeFormat | null {
  let format = FORMATS.get(zone);
  if (format === undefined) {
    try {
      format = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    } catch {
      // Not a zone the runtime knows: such installations are left out like those without one.
      format = null;
    }
    // Bounded by the distinct zones of an app's installations (a few hundred IANA names at most).
    if (FORMATS.size < 5000) FORMATS.set(zone, format);
  }
  return format;
}

/** The zone's offset from UTC at `at`, in minutes (UTC+5:30 is 330); null for an unknown zone. */
export function offsetMinutes(zone: string, at: number): number | null {
  const format = formatOf(zone);
  if (!format) return null;
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(new Date(at))) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  const asUtc = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return Math.round((asUtc - Math.floor(at / 1000) * 1000) / 60_000);
}

/**
 * The instant the zone's clock shows `wall`. Around a daylight-saving change the offset of the
 * first guess may differ from that of the answer, so it is checked once more.
 */
export function instantOfWallTime(wall: number, zone: string): { readonly at: number; readonly offset: number } | null {
  const first = offsetMinutes(zone, wall);
  if (first === null) return null;
  let at = wall - first * 60_000;
  const second = offsetMinutes(zone, at)!;
  if (second !== first) at = wall - second * 60_000;
  return { at, offset: offsetMinutes(zone, at)! };
}

/** Parse's key of `sentPerUTCOffset`: hours from UTC, as a number's text ("-5", "5.5"). */
export function offsetKey(offsetMinutes: number): string {
  return String(offsetMinutes / 60);
}

/** The earliest and latest offsets in use on Earth: UTC−12 and UTC+14. */
export const EARLIEST_OFFSET_MS = 14 * 3_600_000;
export const LATEST_OFFSET_MS = 12 * 3_600_000;
