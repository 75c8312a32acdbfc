import { randomBytes } from 'node:crypto';
import { Errors } from '../errors/index.ts';

const MAX_NAME = 128;
const STORED_NAME = /^[0-9a-f]{32}_[A-Za-z0-9_.-]{1,128}$/;

/**
 * decisions.md "Files": the upload's name with every character outside `[A-Za-z0-9_.-]` replaced
 * by `_` (one per code point, so "Résumé.pdf" keeps its shape as "R_sum_.pdf"), 1 to 128
 * characters, else 122. A slash or a dot segment cannot survive: `/` becomes `_`, and the random
 * prefix that follows makes even ".." an ordinary name.
 */
export function sanitizeFileName(given: string): string {
  let out = '';
  for (const char of given) out += /^[A-Za-z0-9_.-]$/.test(char) ? char : '_';
  if (out.length === 0) throw Errors.invalidFileName('A file name is required.');
  if (out.length > MAX_NAME) throw Errors.invalidFileName(`A file name has at most ${MAX_NAME} characters.`);
  return out;
}

/** A new stored name: 128 random bits in hex, so equal upload names never collide (spec 4.6). */
export function newStoredName(given: string): string {
  return `${randomBytes(16).toString('hex')}_${sanitizeFileName(given)}`;
}

/**
 * Whether a name from a URL can be one this server stored. Adapters refuse every other name
 * before it reaches a path or a key, so `..` or `a/b` never names anything.
 */
export function isStoredName(name: string): boolean {
  return STORED_NAME.test(name);
}
