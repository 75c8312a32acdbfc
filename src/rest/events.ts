import { Errors } from '../errors/index.ts';
import { isPlainObject, normalizeIso } from '../encoding/values.ts';
import type { EventCountQuery, TrackedEvent } from '../storage/port.ts';
import { ok, type RequestContext, type Result } from './context.ts';
import { quote } from '../errors/quote.ts';

/** Spec 2.13 and 8: only the first eight dimension pairs of an event are kept. */
const KEPT_DIMENSIONS = 8;
/**
 * Dimension keys and values become keys of the count index: bounded, so that an entry stays far
 * below PostgreSQL's B-tree limit (about 2,700 bytes) whatever the characters.
 */
const MAX_DIMENSION_KEY = 64;
const MAX_DIMENSION_VALUE = 256;
/** Rows of one counts answer; past it the caller narrows the range or asks for days. */
const MAX_COUNT_ROWS = 10_000;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * 1 to 64 characters: ASCII letters, digits, space, `_`, `-`, `.` and `:`; the first a letter or
 * digit, the last not a space. Covers `AppOpened`, `Error`, `Button Click`, `checkout.step-2`.
 */
const EVENT_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9 _.:-]{0,62}[A-Za-z0-9_.:-])?$/;

/** POST /1/events/<eventName> (spec 4.7), with any app key: records the event, answers `{}`. */
export async function trackEvent(ctx: RequestContext, name: string, body: unknown): Promise<Result> {
  await ctx.app.store.events.append(parseEvent(name, body, Date.now()));
  return ok({});
}

/**
 * The body is `{dimensions?, at?}` (spec 2.13). Other keys are ignored: the iOS SDK sends
 * `push_hash` with AppOpened for push-open tracking, which Basalt does not count.
 */
function parseEvent(name: string, body: unknown, now: number): TrackedEvent {
  const eventName = parseEventName(name);
  if (!isPlainObject(body)) throw Errors.invalidJson('The request body must be a JSON object.');
  return { name: eventName, at: parseAt(body.at, now), dimensions: parseDimensions(body.dimensions) };
}

function parseEventName(name: string): string {
  if (!EVENT_NAME.test(name)) {
    throw Errors.invalidEventName(
      `Invalid event name ${quote(name)}: 1 to 64 letters, digits, spaces, "_", "-", "." or ":", starting with a letter or digit and not ending with a space.`,
    );
  }
  return name;
}

function parseAt(value: unknown, now: number): number {
  if (value === undefined) return now;
  if (!isPlainObject(value) || value.__type !== 'Date') throw Errors.incorrectType('at must be a Date: {"__type": "Date", "iso": "2024-01-31T12:00:00.000Z"}.');
  const at = Date.parse(normalizeIso(value.iso, 'at'));
  // Buckets count hours from 1970; an earlier time is a broken clock, not an event.
  if (at < 0) throw Errors.incorrectType(`at ${JSON.stringify(value.iso)} is before 1970.`);
  return at;
}

/**
 * Every pair is checked, kept or not: a malformed body is refused whole rather than half
 * recorded. The pairs kept are the first eight in the order JSON.parse gives them, which is the
 * body's order except that keys that are whole numbers ("1", "42") come first, ascending.
 */
function parseDimensions(value: unknown): [string, string][] {
  if (value === undefined) return [];
  if (!isPlainObject(value)) throw Errors.invalidQuery('dimensions must be an object of string keys to string values.');
  const pairs = Object.entries(value);
  for (const [key, item] of pairs) {
    const shown = JSON.stringify(key.slice(0, 80));
    if (key.length === 0 || key.length > MAX_DIMENSION_KEY) throw Errors.invalidQuery(`Dimension key ${shown} must be 1 to ${MAX_DIMENSION_KEY} characters long.`);
    if (typeof item !== 'string') throw Errors.invalidQuery(`Dimension ${shown} must have a string value.`);
    if (item.length > MAX_DIMENSION_VALUE) throw Errors.invalidQuery(`The value of dimension ${shown} is longer than ${MAX_DIMENSION_VALUE} characters.`);
  }
  return (pairs as [string, string][]).slice(0, KEPT_DIMENSIONS);
}

/**
 * GET /1/events/<eventName>/counts (master key): how many events of the name fell in each hour
 * or UTC day of [from, to), optionally split by the values of one dimension. Only buckets with
 * events are listed.
 */
export async function eventCounts(ctx: RequestContext, name: string, params: Readonly<Record<string, unknown>>): Promise<Result> {
  if (!ctx.auth.isMaster) throw Errors.operationForbidden('Event counts need the master key.');
  const query = parseCountQuery(parseEventName(name), params);
  const rows = await ctx.app.store.events.counts({ ...query, limit: MAX_COUNT_ROWS + 1 });
  if (rows.length > MAX_COUNT_ROWS) {
    throw Errors.invalidQuery(`More than ${MAX_COUNT_ROWS} counts in this range: narrow it${query.interval === 'hour' ? ', or ask for interval=day' : ''}.`);
  }
  const time = (hour: number) => new Date(hour * HOUR_MS).toISOString();
  const results = rows.map((row) => (row.value === undefined ? { time: time(row.hour), count: row.count } : { time: time(row.hour), value: row.value, count: row.count }));
  return ok({ results });
}

type CountQuery = Omit<EventCountQuery, 'limit'>;

function parseCountQuery(name: string, params: Readonly<Record<string, unknown>>): CountQuery {
  const interval = params.interval ?? 'hour';
  if (interval !== 'hour' && interval !== 'day') throw Errors.invalidQuery('interval must be "hour" or "day".');
  const from = parseTime(params.from, 'from');
  const to = parseTime(params.to, 'to');
  if (to <= from) throw Errors.invalidQuery('to must be later than from.');
  // Whole buckets: from is rounded down to the start of its bucket, to up to the next start.
  const size = interval === 'day' ? DAY_MS : HOUR_MS;
  const hoursPerBucket = size / HOUR_MS;
  const query: CountQuery = { name, interval, fromHour: Math.floor(from / size) * hoursPerBucket, toHour: Math.ceil(to / size) * hoursPerBucket };
  if (params.dimension === undefined) return query;
  const dimension = params.dimension;
  if (typeof dimension !== 'string' || dimension.length === 0 || dimension.length > MAX_DIMENSION_KEY) {
    throw Errors.invalidQuery(`dimension must be a dimension key of 1 to ${MAX_DIMENSION_KEY} characters.`);
  }
  return { ...query, dimension };
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** An ISO 8601 time as a Date's `iso` is written, or a date alone (midnight UTC). */
function parseTime(value: unknown, param: string): number {
  if (typeof value !== 'string') throw Errors.invalidQuery(`${param} is required: an ISO 8601 time such as 2024-01-31T12:00:00Z, or a date such as 2024-01-31.`);
  try {
    return Date.parse(normalizeIso(DATE_ONLY.test(value) ? `${value}T00:00:00Z` : value, param));
  } catch {
    throw Errors.invalidQuery(`${param} ${quote(value)} is not an ISO 8601 time such as 2024-01-31T12:00:00Z, or a date such as 2024-01-31.`);
  }
}
