import { createHmac } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** What a webhook call may take and read. */
export interface CallOptions {
  /** From the first byte sent to the last byte of the reply. */
  readonly timeoutMs: number;
  /** A reply longer than this is a failure (a receiver cannot make the server buffer without end). */
  readonly maxReplyBytes?: number;
}

/**
 * How a call ended: the receiver's `{success}` or `{error}`, or a failure of the call itself
 * (unreachable, timed out, an HTTP error status, a reply that is not the webhook protocol).
 */
export type CallOutcome =
  | { readonly kind: 'success'; readonly value: unknown }
  /** `status`: the HTTP status it came with (an after-hook's error on a 5xx is retried). */
  | { readonly kind: 'error'; readonly message: string; readonly status: number }
  | { readonly kind: 'failed'; readonly message: string };

export const MAX_REPLY_BYTES = 1024 * 1024;

// Kept-alive connections: a busy function hook costs a TLS handshake once, not per call.
const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

/**
 * `X-Svc-Webhook-Signature` (decisions.md "Hooks"): the time of the call and an HMAC-SHA256 over
 * "<time>.<body>" with the app's webhook key, so a receiver can tell the body is the server's and
 * refuse an old one replayed.
 */
export function signature(key: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', key).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/**
 * POSTs `payload` as JSON to `url`, signed with `key`, and reads the webhook reply. Redirects are
 * not followed: a hook's URL is where the operator said the body may go, and nowhere else.
 */
export function callWebhook(url: string, payload: unknown, key: string, options: CallOptions): Promise<CallOutcome> {
  const body = JSON.stringify(payload);
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve({ kind: 'failed', message: 'the hook URL is not a valid URL' });
  }
  const secure = target.protocol === 'https:';
  if (!secure && target.protocol !== 'http:') return Promise.resolve({ kind: 'failed', message: 'the hook URL is not http or https' });
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Svc-Webhook-Key': key,
    'X-Parse-Webhook-Key': key,
    'X-Svc-Webhook-Signature': signature(key, body, Math.floor(Date.now() / 1000)),
  };
  const maxBytes = options.maxReplyBytes ?? MAX_REPLY_BYTES;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: CallOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const send = secure ? httpsRequest : httpRequest;
    const req = send(target, { method: 'POST', headers, agent: secure ? agents.https : agents.http }, (res) => readReply(res, maxBytes, finish));
    const timer = setTimeout(() => {
      finish({ kind: 'failed', message: `the hook did not answer within ${options.timeoutMs} ms` });
      req.destroy();
    }, options.timeoutMs);
    req.on('error', (error) => finish({ kind: 'failed', message: `the hook could not be reached: ${error.message}` }));
    req.end(body);
  });
}

function readReply(res: IncomingMessage, maxBytes: number, finish: (outcome: CallOutcome) => void): void {
  const status = res.statusCode ?? 0;
  if (status >= 300 && status < 400) {
    res.resume();
    finish({ kind: 'failed', message: `the hook answered HTTP ${status}; redirects are not followed` });
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  res.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) {
      finish({ kind: 'failed', message: `the hook's reply is longer than ${maxBytes} bytes` });
      res.destroy();
      return;
    }
    chunks.push(chunk);
  });
  res.on('error', (error) => finish({ kind: 'failed', message: `the hook's reply broke off: ${error.message}` }));
  res.on('end', () => finish(outcomeOf(status, Buffer.concat(chunks).toString('utf8'))));
}

/** `{success}` on a 2xx status; `{error}` on any status (Parse Server reads the body alone); anything else fails. */
export function outcomeOf(status: number, text: string): CallOutcome {
  let reply: unknown;
  try {
    reply = JSON.parse(text);
  } catch {
    reply = undefined;
  }
  const fields = typeof reply === 'object' && reply !== null && !Array.isArray(reply) ? (reply as Record<string, unknown>) : null;
  if (fields && fields.error !== undefined && fields.error !== null) return { kind: 'error', message: errorMessage(fields.error), status };
  if (status < 200 || status >= 300) return { kind: 'failed', message: `the hook answered HTTP ${status}` };
  if (fields && Object.hasOwn(fields, 'success')) return { kind: 'success', value: fields.success };
  return { kind: 'failed', message: `the hook's reply is not {"success": …} or {"error": …}: ${JSON.stringify(text.slice(0, 100))}` };
}

/** A receiver's error as a message: a string, the `message` of an object (Parse's `{code, message}`), or its JSON. */
function errorMessage(error: unknown): string {
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') return (error as { message: string }).message;
  return JSON.stringify(error).slice(0, 200);
}
