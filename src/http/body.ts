import type { FastifyInstance } from 'fastify';
import { Errors, type ApiError } from '../errors/index.ts';

/**
 * Every body is read as JSON whatever its content type: the Parse JS SDK sends JSON as
 * text/plain to avoid CORS preflights. Malformed JSON is 107; an empty body is no body.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    try {
      done(null, parseJsonBody(text));
    } catch (error) {
      done(error as ApiError, undefined);
    }
  });
}

// Only text that could hold one of the refused forms below is walked a second time: a
// "__proto__" key (possibly \u-escaped), an escaped NUL or surrogate, or a number literal large
// enough to overflow to Infinity (an exponent of three digits, or 309 digits in a row).
const SUSPECT = /__proto__|\\u|[eE]\+?\d{3}|\d{309}/;
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * JSON.parse, then refusals with 107 for three things JSON.parse lets through but Basalt cannot
 * keep faithfully:
 * - a `__proto__` key: JSON.parse makes it an own property, but any later `out[key] = value`
 *   copy sets a prototype instead and the data silently disappears (fastify's own parser
 *   refuses it for the same reason);
 * - a number that overflows to Infinity, which JSON.stringify would store as null;
 * - U+0000 or an unpaired surrogate in a string or key: PostgreSQL's text and jsonb cannot hold
 *   them, and an app must behave the same on either backend.
 */
export function parseJsonBody(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw Errors.invalidJson('The request body is not valid JSON.');
  }
  if (SUSPECT.test(text)) assertStorableJson(value);
  return value;
}

/** Walks with an explicit stack: a body may nest hundreds of thousands of levels within 1 MB. */
function assertStorableJson(root: unknown): void {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      if (UNSTORABLE.test(value)) throw Errors.invalidJson('Strings in the request body must not hold the NUL character (\\u0000) or an unpaired surrogate.');
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw Errors.invalidJson('A number in the request body is too large to be represented.');
    } else if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
    } else if (typeof value === 'object' && value !== null) {
      for (const key of Object.keys(value)) {
        if (key === '__proto__') throw Errors.invalidJson('The request body holds a "__proto__" key, which is not accepted.');
        if (UNSTORABLE.test(key)) throw Errors.invalidJson('Keys in the request body must not hold the NUL character (\\u0000) or an unpaired surrogate.');
        pending.push((value as Record<string, unknown>)[key]);
      }
    }
  }
}
