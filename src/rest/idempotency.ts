import { Errors, isApiError } from '../errors/index.ts';
import type { RequestContext, Result } from './context.ts';

/** decisions.md: a repeated request id within five minutes gets the first answer. */
export const REQUEST_ID_TTL_MS = 5 * 60_000;
const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * Runs a write at most once per `X-Svc-Request-Id`: a repeat within five minutes receives the
 * answer of the first (success or client error), and a repeat while the first is still running
 * gets 159. A server fault frees the id so the client can retry.
 */
export async function runOnce(ctx: RequestContext, requestId: string, run: () => Promise<Result>): Promise<Result> {
  if (!REQUEST_ID.test(requestId)) throw Errors.invalidJson('X-Svc-Request-Id must be 1 to 128 visible ASCII characters.');
  const now = Date.now();
  const previous = await ctx.app.store.claimRequest(requestId, now, now - REQUEST_ID_TTL_MS);
  if (previous === 'running') throw Errors.duplicateRequest();
  if (previous) {
    // Stored as {body, headers}, so a replayed create keeps its Location.
    const stored = previous.body as { body: unknown; headers?: Record<string, string> };
    return stored.headers ? { status: previous.status, body: stored.body, headers: stored.headers } : { status: previous.status, body: stored.body };
  }
  let result: Result;
  try {
    result = await run();
  } catch (error) {
    if (isApiError(error) && error.status < 500) {
      await ctx.app.store.completeRequest(requestId, error.status, { body: error.toJSON() });
    } else {
      await ctx.app.store.releaseRequest(requestId);
    }
    throw error;
  }
  await ctx.app.store.completeRequest(requestId, result.status, { body: result.body, ...(result.headers ? { headers: result.headers } : {}) });
  return result;
}
