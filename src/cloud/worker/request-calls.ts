import type { RequestTriggerData, TriggerName } from '../protocol.ts';
import { Parse } from './sdk.ts';
import { CallFailure, current, failureOf, requestLog, validate, type LogSink } from './calls.ts';
import type { CloudDefinitions } from './cloud-api.ts';

/** The parts of a query a beforeFind may change, as REST parameters. */
const QUERY_PARTS = ['where', 'order', 'limit', 'skip', 'keys', 'include', 'excludeKeys'] as const;

/**
 * Runs a trigger of a request that is no write (login, logout, find). Parse Server's request:
 * `object` (the user, the session), or `query`, `count`, `isGet` (beforeFind), or `objects`
 * (afterFind), or `file`, `fileSize` (file triggers). Answers the beforeFind's query, the
 * afterFind's results, or null.
 */
export async function runRequestTrigger(defined: CloudDefinitions, sink: LogSink, triggerName: TriggerName, data: RequestTriggerData): Promise<unknown> {
  const definition = defined.trigger(triggerName, data.className);
  if (!definition) return null;
  const request: Record<string, unknown> = {
    triggerName,
    user: data.user ? Parse.Object.fromJSON({ className: '_User', objectId: data.user }) : undefined,
    master: data.master,
    installationId: data.installationId ?? undefined,
    ip: data.ip,
    headers: data.headers,
    context: {},
    log: requestLog(sink, triggerName, data.className),
  };
  if (data.object) request.object = Parse.Object.fromJSON({ ...data.object, className: data.className });
  if (data.query) {
    request.query = queryOf(data.className, data.query);
    request.count = data.count === true;
    request.isGet = data.isGet === true;
  }
  if (data.file) {
    const file = Parse.File.fromJSON({ __type: 'File', name: data.file.name, url: data.file.url });
    request.file = file;
    // Parse Server's two names of the size; null for an upload whose size is not declared.
    request.fileSize = data.fileSize ?? null;
    request.contentLength = data.fileSize ?? null;
  }
  if (data.objects) request.objects = data.objects.map((json) => Parse.Object.fromJSON({ ...json, className: data.className }));
  return current.run({ kind: triggerName, name: data.className }, async () => {
    let returned: unknown;
    try {
      if (await validate(definition, request as unknown as Parameters<typeof validate>[1])) returned = await definition.handler(request);
    } catch (error) {
      throw error instanceof CallFailure ? error : failureOf(error, Parse.Error.SCRIPT_FAILED);
    }
    if (triggerName === 'beforeFind') return partsOf(returned instanceof Parse.Query ? returned : (request.query as Parse.Query));
    if (triggerName === 'afterFind') return resultsOf(Array.isArray(returned) ? returned : (request.objects as unknown[]));
    return null;
  });
}

/** The request's query as a Parse.Query, with what the client sent: `where`, order, page, keys, include. */
function queryOf(className: string, parts: Record<string, unknown>): Parse.Query {
  const json: Record<string, unknown> = { where: parts.where ?? {} };
  // Lists as the SDK's JSON has them: comma-separated names.
  for (const part of ['order', 'keys', 'include', 'excludeKeys'] as const) {
    const value = parts[part];
    if (value !== undefined && value !== '') json[part] = Array.isArray(value) ? value.join(',') : String(value);
  }
  const query = Parse.Query.fromJSON(className, json as unknown as Parameters<typeof Parse.Query.fromJSON>[1]);
  // The server checked them and sends numbers; a limit of 0 (a count alone) is kept too.
  if (typeof parts.limit === 'number') query.limit(parts.limit);
  if (typeof parts.skip === 'number') query.skip(parts.skip);
  return query;
}

/** A query as REST parameters, whatever of them it has. */
function partsOf(query: Parse.Query): Record<string, unknown> {
  const json = query.toJSON() as unknown as Record<string, unknown>;
  const parts: Record<string, unknown> = {};
  for (const part of QUERY_PARTS) if (json[part] !== undefined) parts[part] = json[part];
  return parts;
}

/** The results as wire JSON: a Parse.Object by its fields, anything else as it is. */
function resultsOf(objects: readonly unknown[]): unknown[] {
  return objects.map((object) => (object instanceof Parse.Object ? object.toJSON() : object));
}
