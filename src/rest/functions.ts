import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import { quote } from '../errors/quote.ts';
import { ok, type RequestContext, type Result } from './context.ts';
import { plainHeaders } from './plain-headers.ts';
import type { AppStore } from '../storage/port.ts';

/** One call of a cloud function, as every source of functions receives it (params and result are wire JSON). */
export interface FunctionCall {
  readonly applicationId: string;
  readonly functionName: string;
  /** The body, as sent: Parse values in their wire form (`{__type: "Date", …}`). */
  readonly params: Record<string, unknown>;
  /** The caller's user id, and the token it came with; null without a session. */
  readonly user: string | null;
  readonly sessionToken: string | null;
  readonly master: boolean;
  readonly installationId: string | null;
  readonly ip: string;
  /**
   * The store of the request (a unit of work's inside a transactional batch): what a source reads
   * for the call (the user), it reads here; on SQLite a read elsewhere would wait for the unit.
   * Not enumerable: copies of the call (JSON, structuredClone to a worker) leave it out.
   */
  readonly store: AppStore;
  /** The request's headers, names in lower case (several values of one name joined by ", "). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Runs one call; resolves to the result in wire JSON, or throws an API error (a plain error answers 141). */
export type FunctionRunner = (call: FunctionCall) => Promise<unknown>;

/** Where functions come from: webhooks (src/webhooks) and cloud code (src/cloud). */
export interface FunctionSource {
  runnerOf(applicationId: string, functionName: string): FunctionRunner | null | Promise<FunctionRunner | null>;
}

/**
 * The sources of functions, asked in order: the first that knows a name runs it. Webhooks come
 * before cloud code, so a function hook wins over cloud code of the same name (Parse Server's rule).
 */
export class FunctionSources {
  private readonly sources: { readonly source: FunctionSource; readonly rank: number }[] = [];

  /** `rank`: lower is asked first (webhooks 0, cloud code 1). */
  add(source: FunctionSource, rank: number): void {
    this.sources.push({ source, rank });
    this.sources.sort((a, b) => a.rank - b.rank);
  }

  async runnerOf(applicationId: string, functionName: string): Promise<FunctionRunner | null> {
    for (const { source } of this.sources) {
      const runner = await source.runnerOf(applicationId, functionName);
      if (runner) return runner;
    }
    return null;
  }
}

/**
 * POST /1/functions/<name> (spec 4.10): `200 {result}` for any key; the caller's session, when
 * one was sent, is the call's user. An unknown name answers 141, as Parse Server does.
 */
export async function runFunction(ctx: RequestContext, sources: FunctionSources, functionName: string, body: unknown): Promise<Result> {
  const params = body ?? {};
  if (!isPlainObject(params)) throw Errors.invalidJson('The parameters of a function must be a JSON object.');
  const runner = await sources.runnerOf(ctx.app.record.applicationId, functionName);
  if (!runner) throw Errors.scriptFailed(`Invalid function: ${quote(functionName)}`);
  const call = {
    applicationId: ctx.app.record.applicationId,
    functionName,
    params,
    user: ctx.auth.userId,
    sessionToken: ctx.auth.session?.token ?? null,
    master: ctx.auth.isMaster,
    installationId: ctx.auth.installationId,
    ip: ctx.clientIp,
    headers: plainHeaders(ctx.headers),
  };
  const result = await runner(Object.defineProperty(call, 'store', { value: ctx.app.store, enumerable: false }) as FunctionCall);
  return ok({ result });
}
