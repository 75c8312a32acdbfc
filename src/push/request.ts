import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import { EARLIEST_OFFSET_MS, LATEST_OFFSET_MS, parsePushTime, type PushTime } from './time.ts';

type Json = Record<string, unknown>;

/** A `POST /1/push` body (spec 2.12), checked. Times in milliseconds since 1970. */
export interface PushRequest {
  readonly channels: readonly string[] | null;
  readonly where: Json | null;
  /** The installations targeted: `where`, narrowed to the channels when both are given. */
  readonly audience: Json;
  readonly data: Json;
  readonly pushTime: PushTime | null;
  /** Absolute expiry (`expiration_time`, or `expiration_interval` after an absolute or absent `push_time`). */
  readonly expiresAt: number | null;
  /** Seconds; with a local `push_time`, each device's expiry is its own send time plus this. */
  readonly expirationInterval: number | null;
}

/** Spec 2.12: a channel starts with a letter, then letters, digits, `_` and `-`; `""` is the broadcast channel. */
const CHANNEL = /^([A-Za-z][A-Za-z0-9_-]*)?$/;

/** Spec 8: a push may be scheduled at most two weeks ahead. */
export const MAX_SCHEDULE_MS = 14 * 86_400_000;

/**
 * Checks the body in the order a caller fixes it: the payload, the audience, then the times.
 * Codes follow Parse Server where it has one (115 for expiry, as its PushController), the spec
 * where it names one (112 channels, 152 push time).
 */
export function parsePushRequest(body: unknown, now: number): PushRequest {
  if (!isPlainObject(body)) throw Errors.invalidJson('The request body must be a JSON object.');
  if (!isPlainObject(body.data)) throw Errors.pushMisconfigured('A push needs data: an object with the payload (alert, badge, sound, title, custom keys).');
  const channels = parseChannels(body.channels);
  const where = parseWhereParam(body.where);
  if (!channels && !where) throw Errors.pushMisconfigured('Sending a push requires either channels or a where clause.');
  const pushTime = body.push_time === undefined || body.push_time === null ? null : parseWhen(body.push_time, now);
  const expiration = parseExpiry(body, pushTime, now);
  return { channels, where, audience: audienceOf(channels, where), data: body.data, pushTime, ...expiration };
}

function parseChannels(value: unknown): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || value.length === 0) throw Errors.invalidChannelName('channels must be a non-empty array of channel names.');
  for (const channel of value) {
    if (typeof channel !== 'string' || !CHANNEL.test(channel) || channel.length > 256) {
      throw Errors.invalidChannelName(`Invalid channel name: ${JSON.stringify(channel)?.slice(0, 80)}. A channel name starts with a letter and holds letters, digits, underscores and dashes ("" is the broadcast channel).`);
    }
  }
  return [...new Set(value as string[])];
}

function parseWhereParam(value: unknown): Json | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      throw Errors.invalidQuery('where is not valid JSON.');
    }
  }
  if (!isPlainObject(value)) throw Errors.invalidQuery('where must be a query object over _Installation.');
  return value;
}

/**
 * The broadcast channel `""` reaches every installation, subscribed to a channel or not; other
 * channels reach the installations subscribed to any of them (Parse Server's `channels: {$in}`).
 */
function audienceOf(channels: readonly string[] | null, where: Json | null): Json {
  const byChannel = channels && !channels.includes('') ? { channels: { $in: channels } } : null;
  if (byChannel && where) return { $and: [where, byChannel] };
  return byChannel ?? where ?? {};
}

function parseWhen(value: unknown, now: number): PushTime {
  const parsed = parsePushTime(value);
  if (!parsed) throw Errors.invalidPushTime(`push_time must be an ISO 8601 date or UNIX epoch seconds: ${JSON.stringify(value)?.slice(0, 80)}.`);
  // A local time is due somewhere between UTC+14 and UTC−12: refused only when no zone can still
  // reach it, or the first one to reach it is more than two weeks away.
  const earliest = parsed.kind === 'absolute' ? parsed.at : parsed.wall - EARLIEST_OFFSET_MS;
  const latest = parsed.kind === 'absolute' ? parsed.at : parsed.wall + LATEST_OFFSET_MS;
  if (latest < now) throw Errors.invalidPushTime('push_time is in the past.');
  if (earliest > now + MAX_SCHEDULE_MS) throw Errors.invalidPushTime('push_time is more than two weeks ahead.');
  return parsed;
}

function parseExpiry(body: Json, pushTime: PushTime | null, now: number): { expiresAt: number | null; expirationInterval: number | null } {
  const hasTime = body.expiration_time !== undefined && body.expiration_time !== null;
  const hasInterval = body.expiration_interval !== undefined && body.expiration_interval !== null;
  if (hasTime && hasInterval) throw Errors.pushMisconfigured('Both expiration_time and expiration_interval cannot be set.');
  if (hasTime) {
    const parsed = parsePushTime(body.expiration_time);
    if (!parsed) throw Errors.pushMisconfigured(`expiration_time must be an ISO 8601 date or UNIX epoch seconds: ${JSON.stringify(body.expiration_time)?.slice(0, 80)}.`);
    // An expiry without a zone is read as UTC: unlike push_time, it is one instant for every device.
    return { expiresAt: parsed.kind === 'absolute' ? parsed.at : parsed.wall, expirationInterval: null };
  }
  if (hasInterval) {
    const interval = body.expiration_interval;
    if (typeof interval !== 'number' || !Number.isFinite(interval) || interval <= 0 || interval > 365 * 86_400) {
      throw Errors.pushMisconfigured('expiration_interval must be a number of seconds greater than 0 (at most a year).');
    }
    // Spec 2.12: counted from push_time when scheduled, otherwise from now.
    if (pushTime?.kind === 'local') return { expiresAt: null, expirationInterval: interval };
    return { expiresAt: (pushTime?.at ?? now) + interval * 1000, expirationInterval: interval };
  }
  return { expiresAt: null, expirationInterval: null };
}
