import { PassThrough, type Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { ApiError, CATALOG, Errors } from '../errors/index.ts';
import { MAX_JSON_NESTING, nestsDeeperThan } from '../encoding/json-nesting.ts';

/**
 * How bodies are read (edge/body.ts): every body as JSON whatever its content type, since the
 * Parse JS SDK sends JSON as text/plain to avoid CORS preflights. Malformed JSON is 107; an empty
 * body is no body. File uploads are the exception: their route streams the raw body (uploadStream).
 */

/** A request body as the routes see it: undefined when empty, else JSON (parseJsonBody). */
export function parseBodyText(body: string): unknown {
  const text = body.trim();
  return text === '' ? undefined : parseJsonBody(text);
}

// Only text that could hold one of the refused forms below is walked a second time: a
// "__proto__" key (possibly \u-escaped), an escaped NUL or surrogate, or a number literal large
// enough to overflow to Infinity (an exponent of three digits, or 309 digits in a row).
const SUSPECT = /__proto__|\\u|[eE]\+?\d{3}|\d{309}/;
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * JSON.parse, after refusing (107) text that nests deeper than MAX_JSON_NESTING levels, then
 * refusals with 107 for three things JSON.parse lets through but Basalt cannot keep faithfully:
 * - a `__proto__` key: JSON.parse makes it an own property, but any later `out[key] = value`
 *   copy sets a prototype instead and the data silently disappears;
 * - a number that overflows to Infinity, which JSON.stringify would store as null;
 * - U+0000 or an unpaired surrogate in a string or key: PostgreSQL's text and jsonb cannot hold
 *   them, and an app must behave the same on either backend.
 */
export function parseJsonBody(text: string): unknown {
  if (nestsDeeperThan(text)) throw Errors.invalidJson(`The request body nests objects and arrays more than ${MAX_JSON_NESTING} levels deep.`);
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

/**
 * The body of a raw request as a stream of its own. The request is piped into it, not handed
 * over: a reader that stops early (at the file size limit) destroys this stream, and destroying
 * the request itself would close the connection before the 413 could be sent. A client that
 * goes away mid-body ends it with an error, so no reader waits forever.
 */
export function uploadStream(raw: IncomingMessage): Readable {
  const body = new PassThrough();
  raw.on('close', () => {
    // A 5xx, not a client error: X-Svc-Request-Id keeps only client errors as the final
    // answer, and a client whose connection broke must be able to retry with the same id.
    if (!raw.complete) body.destroy(new ApiError(CATALOG.fileSaveError, 'The upload was interrupted before its end.', 500));
  });
  raw.pipe(body);
  return body;
}
