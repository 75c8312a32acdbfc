import { createHash, timingSafeEqual } from 'node:crypto';

/** Compares secrets in constant time: both sides are hashed first so lengths never leak. */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
