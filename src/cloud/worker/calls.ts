import { AsyncLocalStorage } from 'node:async_hooks';
import { format } from 'node:util';
import type { FunctionRequestData, JobRequestData, LogLevel, TriggerName, TriggerRequestData, TriggerResult } from '../protocol.ts';
import { Parse, decodeValue, encodeValue, sdk } from './sdk.ts';
import { checkValidator, type ValidatorOptions } from './validator.ts';
import type { CloudDefinitions, Definition } from './cloud-api.ts';

/** Sends one log line to the server, which tags it and keeps it for GET /1/scriptlog. */
export type LogSink = (level: LogLevel, kind: string, name: string, message: string) => void;

/** Which call a line of `console.log` belongs to: async code keeps its call across awaits. */
export const current = new AsyncLocalStorage<{ kind: string; name: string }>();

/** `console.*` of the code: each line goes to the server's log, tagged with the call that wrote it. */
export function routeConsole(sink: LogSink): void {
  const levels: [keyof Console, LogLevel][] = [['log', 'info'], ['info', 'info'], ['warn', 'warn'], ['error', 'error'], ['debug', 'debug'], ['trace', 'debug']];
  for (const [method, level] of levels) {
    (console as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      const call = current.getStore() ?? { kind: 'load', name: '' };
      sink(level, call.kind, call.name, format(...args));
    };
  }
}

/** A failure as the API answers it: a Parse.Error keeps its code, anything else is `fallback`. */
export class CallFailure {
  constructor(readonly code: number, readonly message: string) {}
}

export function failureOf(error: unknown, fallback: number): CallFailure {
  if (error instanceof Parse.Error) return new CallFailure(error.code, error.message);
  if (typeof error === 'string') return new CallFailure(fallback, error);
  if (error instanceof Error) return new CallFailure(fallback, error.message);
  if (error && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string') return new CallFailure(fallback, (error as { message: string }).message);
  return new CallFailure(fallback, error === undefined ? 'Script failed.' : String(error));
}

export function requestLog(sink: LogSink, kind: string, name: string) {
  const line = (level: LogLevel) => (...args: unknown[]) => sink(level, kind, name, format(...args));
  return { info: line('info'), warn: line('warn'), error: line('error'), debug: line('debug'), verbose: line('debug'), silly: line('debug') };
}

export async function validate(definition: Definition, request: Parameters<typeof checkValidator>[1]): Promise<boolean> {
  const { validator } = definition;
  if (!validator) return true;
  if (typeof validator === 'object' && (validator as ValidatorOptions).skipWithMasterKey && request.master) return false;
  try {
    if (typeof validator === 'function') await validator(request);
    else await checkValidator(validator, request);
  } catch (error) {
    throw failureOf(error, Parse.Error.VALIDATION_ERROR);
  }
  return true;
}

export async function runFunction(defined: CloudDefinitions, sink: LogSink, name: string, data: FunctionRequestData): Promise<unknown> {
  const definition = defined.functions.get(name);
  if (!definition) throw new CallFailure(Parse.Error.SCRIPT_FAILED, `Invalid function: "${name}"`);
  const user = data.user ? await callerOf(data.user) : undefined;
  const request = {
    params: decodeValue(data.params) as Record<string, unknown>,
    user,
    master: data.master,
    installationId: data.installationId ?? undefined,
    ip: data.ip,
    headers: data.headers,
    functionName: name,
    context: data.context,
    log: requestLog(sink, 'function', name),
  };
  return current.run({ kind: 'function', name }, async () => {
    try {
      if (!(await validate(definition, request))) return null;
      return encodeValue(await definition.handler(request));
    } catch (error) {
      throw error instanceof CallFailure ? error : failureOf(error, Parse.Error.SCRIPT_FAILED);
    }
  });
}

/**
 * A job as Parse Server runs it: `request.params`, `request.jobName`, `request.message(text)`
 * (sent to the server, which writes it to the job's status; it returns at once) and `request.log`.
 */
export async function runJob(defined: CloudDefinitions, sink: LogSink, name: string, data: JobRequestData, sendMessage: (message: string) => void): Promise<unknown> {
  const definition = defined.jobs.get(name);
  if (!definition) throw new CallFailure(Parse.Error.SCRIPT_FAILED, 'Invalid job.');
  const request = {
    params: decodeValue(data.params) as Record<string, unknown>,
    jobName: name,
    master: true,
    headers: {},
    ip: '',
    message: (text: unknown) => {
      sendMessage(typeof text === 'string' ? text : JSON.stringify(text));
      return Promise.resolve();
    },
    log: requestLog(sink, 'job', name),
  };
  return current.run({ kind: 'job', name }, async () => {
    try {
      return encodeValue(await definition.handler(request));
    } catch (error) {
      throw error instanceof CallFailure ? error : failureOf(error, Parse.Error.SCRIPT_FAILED);
    }
  });
}

export async function runTrigger(defined: CloudDefinitions, sink: LogSink, triggerName: TriggerName, data: TriggerRequestData): Promise<TriggerResult> {
  const definition = defined.trigger(triggerName, data.className);
  if (!definition) return { changes: null, context: data.context };
  const original = data.original ? objectOf(data.className, data.original) : undefined;
  const object = triggerName === 'beforeSave' ? plannedObject(data) : objectOf(data.className, data.object);
  const before = snapshot(object);
  const request = {
    triggerName,
    object,
    original,
    // The caller's user with its token, not read again here: `request.user.fetch()` reads the rest
    // (reading it for every trigger would cost a round trip, and inside a transactional batch on
    // SQLite it would wait for the batch).
    user: data.user ? Parse.Object.fromJSON({ className: '_User', objectId: data.user, ...(data.sessionToken ? { sessionToken: data.sessionToken } : {}) }) : undefined,
    master: data.master,
    installationId: data.installationId ?? undefined,
    ip: data.ip ?? '',
    headers: data.headers ?? {},
    context: data.context,
    log: requestLog(sink, triggerName, data.className),
  };
  return current.run({ kind: triggerName, name: data.className }, async () => {
    try {
      if (await validate(definition, request)) await definition.handler(request);
    } catch (error) {
      throw error instanceof CallFailure ? error : failureOf(error, Parse.Error.SCRIPT_FAILED);
    }
    return { changes: triggerName === 'beforeSave' ? changesOf(before, object) : null, context: request.context ?? {} };
  });
}

/**
 * The caller as Parse Server gives it: the whole user, with its session token. Read over loopback
 * with that token (GET /1/users/me); only a call with a session pays for it.
 */
async function callerOf(user: NonNullable<FunctionRequestData['user']>): Promise<Parse.Object> {
  if (!user.sessionToken) return Parse.Object.fromJSON({ className: '_User', objectId: user.objectId });
  const rest = Parse.CoreManager.getRESTController() as unknown as { request(method: string, path: string, data: unknown, options: unknown): Promise<Record<string, unknown>> };
  const me = await rest.request('GET', 'users/me', {}, { sessionToken: user.sessionToken });
  return Parse.Object.fromJSON({ ...me, className: '_User', sessionToken: user.sessionToken });
}

function objectOf(className: string, json: Record<string, unknown>): Parse.Object {
  return Parse.Object.fromJSON({ ...json, className });
}

/**
 * The object a beforeSave sees: on a create, a new object (no id: `isNew()` is true) with every
 * field set; on an update, the original with the client's changes set on it, so `dirty(key)` and
 * `dirtyKeys()` name what the client changes, as in Parse Server.
 */
function plannedObject(data: TriggerRequestData): Parse.Object {
  const object = data.original ? objectOf(data.className, data.original) : Parse.Object.fromJSON({ className: data.className });
  const was = data.original ?? {};
  for (const [key, value] of Object.entries(data.object)) {
    if (key === 'objectId' || key === 'createdAt' || key === 'updatedAt') continue;
    if (data.original && JSON.stringify(was[key]) === JSON.stringify(value)) continue;
    object.set(key, decodeValue(value));
  }
  if (data.original) for (const key of Object.keys(was)) if (!(key in data.object)) object.unset(key);
  return object;
}

/** The fields of an object as wire JSON, one string per field, to see what a trigger changed. */
function snapshot(object: Parse.Object): Map<string, string> {
  const fields = new Map<string, string>();
  for (const [key, value] of Object.entries(object.attributes)) fields.set(key, JSON.stringify(sdk._encode(value)));
  return fields;
}

/** What the handler set or unset, as a REST body (values, `{__op: "Delete"}`); null for nothing. */
function changesOf(before: Map<string, string>, object: Parse.Object): Record<string, unknown> | null {
  const changes: Record<string, unknown> = {};
  let any = false;
  const now = object.attributes as Record<string, unknown>;
  for (const [key, value] of Object.entries(now)) {
    if (key === 'objectId' || key === 'createdAt' || key === 'updatedAt' || key === 'ACL') continue;
    const encoded = sdk._encode(value);
    if (before.get(key) === JSON.stringify(encoded)) continue;
    changes[key] = encoded;
    any = true;
  }
  for (const key of before.keys()) {
    if (!(key in now)) {
      changes[key] = { __op: 'Delete' };
      any = true;
    }
  }
  return any ? changes : null;
}
