import { randomBytes } from 'node:crypto';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** The same 62 characters in byte order, so that a prefix written with them sorts as its number does. */
const DIGITS_IN_BYTE_ORDER = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Milliseconds since 1970 in 7 of those digits: enough until the year 2081. */
const TIME_DIGITS = 7;
/** 62^8 ≈ 2.2 × 10^14 values per millisecond (about 47 bits). */
const RANDOM_DIGITS = 8;

// Random bytes are drawn a page at a time: a call to the system's generator per character was
// a visible share of every create.
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let next = 0;

function randomByte(): number {
  if (next >= pool.length) {
    pool = randomBytes(POOL_SIZE);
    next = 0;
  }
  return pool[next++]!;
}

/**
 * Random alphanumerics. Bytes of 248 and above are skipped so that each of the 62 characters is
 * equally likely (248 = 4 × 62).
 */
export function randomAlphanumerics(length: number): string {
  let text = '';
  while (text.length < length) {
    const byte = randomByte();
    if (byte < 248) text += ALPHANUMERIC[byte % 62];
  }
  return text;
}

let lastMillis = -1;
let lastPrefix = '';

function timePrefix(millis: number): string {
  if (millis !== lastMillis) {
    let rest = millis;
    let prefix = '';
    for (let i = 0; i < TIME_DIGITS; i++) {
      prefix = DIGITS_IN_BYTE_ORDER[rest % 62]! + prefix;
      rest = Math.floor(rest / 62);
    }
    lastMillis = millis;
    lastPrefix = prefix;
  }
  return lastPrefix;
}

let lastIsoMillis = Number.NaN;
let lastIso = '';

/**
 * `new Date(millis).toISOString()`, remembered for the last millisecond: the creates of one
 * moment share their creation time, and formatting a date was a visible share of each create.
 */
export function isoTimestamp(millis: number): string {
  if (millis !== lastIsoMillis) {
    lastIso = new Date(millis).toISOString();
    lastIsoMillis = millis;
  }
  return lastIso;
}

/**
 * ObjectIds: the creation time in milliseconds (7 characters that sort in time order), then 8
 * random alphanumerics. New rows therefore land at the end of every objectId index instead of on
 * a random page of it: a commit of many creates writes a few pages instead of one per object
 * (docs/architecture.md, "Time-ordered objectIds"), and objects without an `order` come back
 * in about the order they were made. Two ids of one millisecond collide with odds of 1 in 10^14.
 */
export function newObjectId(now: number = Date.now()): string {
  return timePrefix(now) + randomAlphanumerics(RANDOM_DIGITS);
}

/** Keys and secrets: 40 alphanumerics (about 238 bits). */
export function newKey(): string {
  return randomAlphanumerics(40);
}

export function newHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}
