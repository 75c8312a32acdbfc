import type { IncomingMessage } from 'node:http';
import { Errors } from '../../errors/index.ts';
import { parseBodyText } from '../body.ts';

/** How much of a body refused before its end is still read, so that the client reads the answer. */
const LINGER_BYTES = 16 * 1024 * 1024;

/**
 * `close`: the answer must close the connection, as the rest of the body was not read (it is then
 * read and dropped for a while after the answer: answer.ts, lingeringClose).
 */
export type BodyDone = (error: unknown, body: unknown, close: boolean) => void;

/** Whether a request carries a body to read: a declared length above 0, or a chunked one. */
export function hasBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

/** A declared Content-Length, or null when the body is chunked or has none declared. */
export function declaredLength(req: IncomingMessage): number | null {
  const header = req.headers['content-length'];
  // Node's parser refuses malformed lengths, and both headers at once, before a route runs.
  return header === undefined || req.headers['transfer-encoding'] !== undefined ? null : Number(header);
}

/**
 * Reads a body as JSON, whatever its content type (the Parse JS SDK sends JSON as text/plain to
 * avoid CORS preflights); with `form`, a URL-encoded body (a browser's form post) as its fields.
 * An empty body is no body; malformed JSON is 107 (body.ts, parseBodyText).
 *
 * A body over `limit` is 413/116. A client still sending must read that answer: a connection
 * closed under a client still writing is reset, and the answer can be lost with it. So:
 * - a declared length over the limit is answered at once, and when it is within LINGER_BYTES the
 *   connection is kept (node reads and drops the rest after the answer);
 * - a chunked body, whose end no header tells, is read on and dropped, and answered when it ends;
 * - past LINGER_BYTES (declared or read) the answer closes the connection instead.
 * A client that goes away mid-body gets no answer: its socket is gone.
 */
export function readBody(req: IncomingMessage, limit: number, form: boolean, done: BodyDone): void {
  const declared = declaredLength(req);
  if (declared !== null && declared > limit) {
    done(tooLarge(), undefined, declared > LINGER_BYTES);
    return;
  }
  const chunks: Buffer[] = [];
  let seen = 0;
  const onData = (chunk: Buffer) => {
    seen += chunk.length;
    if (seen <= limit) {
      chunks.push(chunk);
      return;
    }
    req.off('data', onData);
    req.off('end', onEnd);
    drain(req, (ended) => done(tooLarge(), undefined, !ended));
  };
  const onEnd = () => {
    const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = form && isForm(req) ? Object.fromEntries(new URLSearchParams(text)) : parseBodyText(text);
    } catch (error) {
      done(error, undefined, false);
      return;
    }
    done(null, body, false);
  };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', ignore);
}

function ignore(): void {}

function tooLarge() {
  return Errors.objectTooLarge('The request body is too large.');
}

function isForm(req: IncomingMessage): boolean {
  const type = req.headers['content-type'];
  return type !== undefined && type.toLowerCase().startsWith('application/x-www-form-urlencoded');
}

/**
 * A raw body (an upload) answered before its end: the rest is read and dropped, up to
 * LINGER_BYTES, and the connection kept; past that bound (declared, or read of a chunked body)
 * the answer closes it. `then(close)` once the answer may be written.
 */
export function discardRest(req: IncomingMessage, then: (close: boolean) => void): void {
  if (req.complete) {
    then(false);
    return;
  }
  req.unpipe();
  const declared = declaredLength(req);
  if (declared !== null) {
    if (declared > LINGER_BYTES) {
      then(true);
      return;
    }
    // Flowing with no listener: node drops what arrives, and the next request follows.
    req.removeAllListeners('data');
    req.resume();
    then(false);
    return;
  }
  drain(req, (ended) => then(!ended));
}

/** Reads and drops the rest of a body: true once it ended within the bound, false past it (or when the client went away). */
function drain(req: IncomingMessage, then: (ended: boolean) => void): void {
  if (req.complete || req.readableEnded) {
    then(true);
    return;
  }
  let seen = 0;
  const finish = (ended: boolean) => {
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('close', onClose);
    if (!ended) req.pause();
    then(ended);
  };
  const onData = (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > LINGER_BYTES) finish(false);
  };
  const onEnd = () => finish(true);
  const onClose = () => finish(req.complete);
  req.removeAllListeners('data');
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('close', onClose);
  req.resume();
}
