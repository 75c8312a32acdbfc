import { randomBytes } from 'node:crypto';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

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
 * Parse-style objectIds: 10 random alphanumerics (about 59 bits). Bytes of 248 and above are
 * skipped so that each of the 62 characters is equally likely (248 = 4 × 62).
 */
export function newObjectId(length = 10): string {
  let id = '';
  while (id.length < length) {
    const byte = randomByte();
    if (byte < 248) id += ALPHANUMERIC[byte % 62];
  }
  return id;
}

/** Keys and secrets: 40 alphanumerics (about 238 bits). */
export function newKey(): string {
  return newObjectId(40);
}

export function newHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}
