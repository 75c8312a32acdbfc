import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** How much of a body refused before its end is still read, so that the client reads the answer. */
const LINGER_BYTES = 16 * 1024 * 1024;

/*
 * A request answered before its body was read to the end (over a size limit, refused for its
 * keys) leaves the client still sending. Closing the connection then resets it under the client,
 * which may lose the answer with it: seen as EPIPE or ECONNRESET instead of a 413. So the rest of
 * the body is read and dropped, up to LINGER_BYTES, and the connection is kept:
 * - a body of a declared size within the bound is answered at once, and node reads the rest
 *   after the answer (a client waiting for the answer before it sends, or a client that sends
 *   regardless, both get it);
 * - a chunked body, whose end no header tells, is read on first, and answered when it ends; past
 *   the bound, or for a larger declared size, the answer closes the connection instead.
 */

/** fastify's refusal of a JSON body over the limit (its parser stopped reading it). */
export async function readRestOfBody(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (declaredWithinBound(request)) reply.removeHeader('connection');
  else if (isChunked(request) && (await drain(request.raw))) reply.removeHeader('connection');
}

/** An upload answered before its body ended; the handler had piped the body somewhere. */
export async function discardRestOfBody(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const raw = request.raw;
  if (raw.complete) return;
  raw.unpipe();
  if (declaredWithinBound(request)) {
    // Flowing with no listener: node drops what arrives, and the next request follows.
    raw.removeAllListeners('data');
    raw.resume();
    return;
  }
  if (!(isChunked(request) && (await drain(raw)))) reply.header('Connection', 'close');
}

function isChunked(request: FastifyRequest): boolean {
  return request.headers['transfer-encoding'] !== undefined;
}

function declaredWithinBound(request: FastifyRequest): boolean {
  if (isChunked(request)) return false;
  const length = Number(request.headers['content-length']);
  return Number.isInteger(length) && length <= LINGER_BYTES;
}

/** Reads and drops the rest of a body: true once it ended within the bound, false past it (or when the client went away). */
function drain(raw: IncomingMessage): Promise<boolean> {
  if (raw.complete || raw.readableEnded) return Promise.resolve(true);
  return new Promise((resolve) => {
    let seen = 0;
    const finish = (ended: boolean) => {
      raw.off('data', onData);
      raw.off('end', onEnd);
      raw.off('close', onClose);
      if (!ended) raw.pause();
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > LINGER_BYTES) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(raw.complete);
    raw.removeAllListeners('data');
    raw.on('data', onData);
    raw.on('end', onEnd);
    raw.on('close', onClose);
    raw.resume();
  });
}
