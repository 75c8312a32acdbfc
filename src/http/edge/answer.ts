import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable, pipeline } from 'node:stream';
import { JsonText } from '../../rest/encoded.ts';
import { corsHeaders } from '../cors.ts';
import type { Answer } from './types.ts';

/** What writeAnswer needs of the request. */
interface Answered {
  readonly id: string;
  readonly method: string;
  readonly headers: { readonly origin?: string | undefined };
}

/**
 * Writes an answer with one writeHead holding every header (node then checks and joins them in
 * one pass): the request id, the CORS headers, the answer's own, and the body's type and length.
 * A HEAD request gets the headers of its GET and no body. `close`: the connection closes after
 * the answer, lingering first (lingeringClose).
 */
export function writeAnswer(res: ServerResponse, request: Answered, answer: Answer, close: boolean): void {
  if (res.headersSent || res.destroyed) return;
  const headers: string[] = ['x-request-id', request.id, ...corsHeaders(request.headers.origin)];
  let type: string | undefined;
  let length: string | undefined;
  if (answer.headers) {
    for (const name of Object.keys(answer.headers)) {
      const value = answer.headers[name]!;
      const lower = name.toLowerCase();
      if (lower === 'content-type') type = value;
      else if (lower === 'content-length') length = value;
      else headers.push(name, value);
    }
  }
  if (close) {
    headers.push('connection', 'close');
    lingeringClose(res);
  }
  const { body } = answer;
  const head = request.method === 'HEAD';
  if (body instanceof Readable) {
    if (type !== undefined) headers.push('content-type', type);
    if (length !== undefined) headers.push('content-length', length);
    res.writeHead(answer.status, headers);
    if (head) {
      body.destroy();
      res.end();
    } else pipeline(body, res, (error) => error && res.destroy());
    return;
  }
  let data: string | Buffer | undefined;
  if (body instanceof JsonText) {
    data = body.text;
    type ??= 'application/json; charset=utf-8';
  } else if (typeof body === 'string') {
    data = body;
    type ??= 'text/plain; charset=utf-8';
  } else if (Buffer.isBuffer(body)) {
    data = body;
    type ??= 'application/octet-stream';
  } else if (body !== undefined && body !== null) {
    data = JSON.stringify(body);
    type ??= 'application/json; charset=utf-8';
  }
  if (type !== undefined) headers.push('content-type', type);
  if (length === undefined && answer.status !== 204 && answer.status !== 304) length = data === undefined ? '0' : String(typeof data === 'string' ? Buffer.byteLength(data) : data.length);
  if (length !== undefined) headers.push('content-length', length);
  res.writeHead(answer.status, headers);
  // node sends no body for HEAD whatever is written; it is not even made.
  res.end(head ? undefined : data);
}

/**
 * How long a closing connection still reads and drops what its client sends after the answer.
 * Time alone bounds it (nginx's lingering close does the same): dropping bytes costs no memory,
 * and a bound in bytes was overrun in tests by a client that had not yet read the answer while
 * several megabytes of its body were already in the sockets' buffers.
 */
const LINGER_CLOSE_MS = 5_000;

/**
 * The lingering close of an answer that ends its connection while the client may still be
 * sending (a body past the bound that is read on): node would destroy the socket right after the
 * answer, and input that arrives at a closed socket resets the connection; the reset can overtake
 * the answer at the client, which then sees EPIPE or ECONNRESET instead of a 413. So our side is
 * ended (the answer, then FIN), and what the client still sends is read and dropped until its
 * body ends or it closes, for at most LINGER_CLOSE_MS; only then is the socket destroyed.
 */
function lingeringClose(res: ServerResponse): void {
  const socket = res.socket as (Socket & { destroySoon?: () => void }) | null;
  const req = res.req;
  if (!socket || !req || req.complete) return;
  // Node calls destroySoon on the socket once a `connection: close` answer is written (its resOnFinish).
  socket.destroySoon = () => {
    socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_CLOSE_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    req.removeAllListeners('data');
    req.once('end', () => socket.destroy());
    req.resume();
  };
}
