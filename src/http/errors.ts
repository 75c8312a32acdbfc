import type { Socket } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, Errors, CATALOG } from '../errors/index.ts';
import type { Log } from '../rest/context.ts';
import { splitSdkFields } from './sdk-body.ts';

/** Maps any failure to `{code, error}`; nothing else (no stack, no driver text) reaches a client. */
export function toApiError(error: unknown): ApiError | null {
  return error instanceof ApiError ? error : null;
}

/**
 * The answer for a request that failed: `{code, error}` of a known failure; for anything else a
 * 500 that names the request id, which the logged line carries too.
 */
export function failureAnswer(error: unknown, log: Log, requestId: string): { status: number; body: { code: number; error: string } } {
  const known = toApiError(error);
  if (known) {
    if (known.status >= 500) log.error({ err: error }, 'request failed');
    return { status: known.status, body: known.toJSON() };
  }
  log.error({ err: error }, 'unexpected error');
  return { status: 500, body: { code: CATALOG.internalServerError.code, error: `Internal server error (request ${requestId}).` } };
}

/**
 * The method the client meant: the Parse SDKs send every request as a POST whose body names the
 * real one in `_method`, and a 404 that named the POST would point at the wrong request.
 */
export function meantMethod(wireMethod: string, body: unknown): string {
  if (wireMethod !== 'POST') return wireMethod;
  const override = splitSdkFields(body).sdk.method?.toUpperCase();
  return override || wireMethod;
}

/** The answer for a path with no route: 404/108, before any key is checked. */
export function noEndpoint(method: string, url: string): ApiError {
  return new ApiError(CATALOG.commandUnavailable, `No endpoint at ${method.slice(0, 20)} ${url.split('?')[0]!.slice(0, 200)}.`, 404);
}

/**
 * node:http's `clientError` listener: node's HTTP parser refuses a request it cannot read
 * (headers and URL over its 16 KB, a malformed request line or header, a request that took too
 * long) before any route runs, and node's own answer has no body.
 * This one is `{code, error}` like every other. Nothing more can be read on the connection, so it
 * closes after the answer, but lingers first (lingerThenClose): a client still sending a body
 * would otherwise meet a reset and might lose the answer.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed || answeredSockets.has(socket)) return;
  answeredSockets.add(socket);
  let answer: ApiError;
  if (error.code === 'HPE_HEADER_OVERFLOW') answer = new ApiError(CATALOG.objectTooLarge, 'The request line and headers are too large (16 KB at most).', 431);
  else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') answer = new ApiError(CATALOG.timeout, 'The request was not received in time.', 408);
  // node's parser refuses raw bytes outside printable ASCII in the path (a UTF-8 é as sent, not as %C3%A9).
  else if (error.code === 'HPE_INVALID_URL') answer = Errors.invalidJson('The request path holds a byte that must be %-escaped (a character outside printable ASCII, or a control character).');
  else answer = Errors.invalidJson('The request is not well-formed HTTP.');
  // As node's own handler: an answer already under way on this connection cannot be followed by another.
  const underWay = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || underWay?.headersSent) {
    socket.destroy(error);
    return;
  }
  const body = JSON.stringify(answer.toJSON());
  const reason = answer.status === 431 ? 'Request Header Fields Too Large' : answer.status === 408 ? 'Request Timeout' : 'Bad Request';
  socket.end(`HTTP/1.1 ${answer.status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  lingerThenClose(socket);
}

const answeredSockets = new WeakSet<Socket>();

/**
 * node:http's `checkExpectation` listener: node answers a request whose `Expect` header is not
 * `100-continue` with an empty 417 of its own unless this listener exists. The request is not
 * run (the client waits for an answer before sending its body, or sends one we do not read), so
 * the connection closes after the answer.
 */
export function expectationFailed(_req: IncomingMessage, res: ServerResponse): void {
  const body = JSON.stringify(new ApiError(CATALOG.invalidJson, 'The Expect header can only be 100-continue.', 417).toJSON());
  res.writeHead(417, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
  res.end(body);
}

/** What a connection that is closing still reads and drops, and for how long at most. */
const LINGER_CLOSE_BYTES = 16 * 1024 * 1024;
const LINGER_CLOSE_MS = 2_000;

/**
 * After the answer and the end of our side of the connection: what the client still sends is
 * read and dropped until it closes its side, for at most LINGER_CLOSE_BYTES or LINGER_CLOSE_MS.
 * A socket closed with unread input resets the connection, and the reset can overtake the
 * answer at the client.
 */
function lingerThenClose(socket: Socket): void {
  let seen = 0;
  const timer = setTimeout(() => socket.destroy(), LINGER_CLOSE_MS);
  timer.unref();
  socket.removeAllListeners('data');
  socket.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > LINGER_CLOSE_BYTES) socket.destroy();
  });
  socket.once('end', () => socket.destroy());
  socket.once('close', () => clearTimeout(timer));
  socket.resume();
}
