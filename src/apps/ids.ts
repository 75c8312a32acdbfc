import { randomBytes, randomInt } from 'node:crypto';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Parse-style objectIds: 10 random alphanumerics (about 59 bits). */
export function newObjectId(length = 10): string {
  let id = '';
  for (let i = 0; i < length; i++) id += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return id;
}

/** Keys and secrets: 40 alphanumerics (about 238 bits). */
export function newKey(): string {
  return newObjectId(40);
}

export function newHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}
