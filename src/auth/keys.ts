import { createHash, timingSafeEqual } from 'node:crypto';

const digests = new Map<string, Buffer>();

/** The SHA-256 of a stored secret, computed once: stored keys are few and fixed. */
function digestOf(expected: string): Buffer {
  let digest = digests.get(expected);
  if (!digest) {
    digest = createHash('sha256').update(expected).digest();
    if (digests.size > 10_000) digests.clear();
    digests.set(expected, digest);
  }
  return digest;
}

/** Compares secrets in constant time: both sides are hashed first so lengths never leak. */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(createHash('sha256').update(given).digest(), digestOf(expected));
}
