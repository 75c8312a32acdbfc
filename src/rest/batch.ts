import { Errors, isApiError } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import { ok, type RequestContext, type Result } from './context.ts';

export const MAX_BATCH = 50;

export interface BatchCommand {
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
}

/** Runs one command of a batch with the batch's context; supplied by the HTTP edge's route table. */
export type Dispatch = (ctx: RequestContext, command: BatchCommand) => Promise<Result>;

/**
 * POST /1/batch (spec 4.1): at most 50 commands, run in order, each answered in place with
 * `{success}` or `{error: {code, error}}`. A malformed or oversized batch fails as a whole
 * before any command runs.
 */
export async function runBatch(ctx: RequestContext, body: unknown, dispatch: Dispatch): Promise<Result> {
  const commands = parseCommands(body);
  const results: unknown[] = [];
  for (const command of commands) {
    try {
      const result = await dispatch(ctx, command);
      results.push({ success: result.body });
    } catch (error) {
      if (!isApiError(error)) throw error;
      results.push({ error: error.toJSON() });
    }
  }
  return ok(results);
}

function parseCommands(body: unknown): BatchCommand[] {
  if (!isPlainObject(body) || !Array.isArray(body.requests)) throw Errors.invalidJson('A batch needs a "requests" array.');
  const requests = body.requests;
  if (requests.length > MAX_BATCH) throw Errors.invalidJson(`A batch may hold at most ${MAX_BATCH} requests; this one has ${requests.length}.`);
  return requests.map((request, index) => {
    if (!isPlainObject(request) || typeof request.method !== 'string' || typeof request.path !== 'string') {
      throw Errors.invalidJson(`Batch request ${index} needs a "method" and a "path".`);
    }
    return { method: request.method.toUpperCase(), path: request.path, body: request.body };
  });
}
