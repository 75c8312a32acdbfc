import { Errors, isApiError } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import { ok, type RequestContext, type Result } from './context.ts';
import type { AppHandle } from '../apps/registry.ts';
import { WriteConflict } from '../storage/port.ts';

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
  if (isPlainObject(body) && body.transaction === true) return runTransaction(ctx, commands, dispatch);
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

/**
 * `{"requests": [...], "transaction": true}` (what the Parse SDKs' saveAll sends with
 * `transaction: true`): every command runs in one unit of work, on one connection, all or nothing.
 * The answer is the usual list when every command succeeded; otherwise the first failing
 * command's own error (its status and `{code, error}`) answers the whole batch, and nothing of
 * the batch is written.
 */
async function runTransaction(ctx: RequestContext, commands: readonly BatchCommand[], dispatch: Dispatch): Promise<Result> {
  for (let attempt = 1; ; attempt++) {
    try {
      const results = await ctx.app.unitOfWork(async (app) => {
        const inUnit = withinUnit(ctx, app);
        const done: unknown[] = [];
        for (const command of commands) done.push({ success: (await dispatch(inUnit, command)).body });
        return done;
      });
      return ok(results);
    } catch (error) {
      // Two batches that lock the same objects in another order: PostgreSQL undoes one of them,
      // which then runs again from the start, as Parse Server retries a failed transaction.
      if (!(error instanceof WriteConflict)) throw error;
      if (attempt >= TRANSACTION_ATTEMPTS) throw Errors.internalServerError('The transaction kept meeting others and was rolled back; nothing was written.');
    }
  }
}

const TRANSACTION_ATTEMPTS = 5;

/** The request as its commands see it inside the unit: the app's services over the unit's store. */
function withinUnit(ctx: RequestContext, app: AppHandle): RequestContext {
  return {
    app,
    auth: ctx.auth,
    limits: ctx.limits,
    userOptions: ctx.userOptions,
    log: ctx.log,
    get publicUrl() {
      return ctx.publicUrl;
    },
    get clientIp() {
      return ctx.clientIp;
    },
    get headers() {
      return ctx.headers;
    },
  };
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
