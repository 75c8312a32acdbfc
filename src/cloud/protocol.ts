/**
 * The messages between the server and one app's cloud code worker (worker/main.ts). Values travel
 * in Parse's wire JSON (`{__type: "Date", …}`): the worker decodes them into SDK objects and
 * encodes its answers back, so nothing but plain data crosses the thread boundary.
 */
import type { RequestTriggerCall } from '../rest/request-triggers.ts';

/** What the worker is started with (its `workerData`). */
export interface WorkerSetup {
  readonly applicationId: string;
  readonly javascriptKey: string;
  readonly masterKey: string;
  /** This server's API root over loopback (`http://127.0.0.1:<port>/1`); null until it listens. */
  readonly serverUrl: string | null;
  /** The entry file, by its real path. */
  readonly entry: string;
}

/** The trigger kinds of Parse Server's cloud code. */
export const TRIGGER_NAMES = [
  'beforeSave', 'afterSave', 'beforeDelete', 'afterDelete',
  'beforeFind', 'afterFind', 'beforeLogin', 'afterLogin', 'afterLogout',
  'beforeSaveFile', 'afterSaveFile', 'beforeDeleteFile', 'afterDeleteFile',
] as const;
export type TriggerName = (typeof TRIGGER_NAMES)[number];

/** What the code registered, announced once it has loaded. */
export interface Registered {
  readonly functions: readonly string[];
  readonly jobs: readonly string[];
  readonly triggers: readonly { readonly triggerName: TriggerName; readonly className: string }[];
}

export interface FunctionRequestData {
  readonly params: Record<string, unknown>;
  readonly user: { readonly objectId: string; readonly sessionToken: string | null } | null;
  readonly master: boolean;
  readonly installationId: string | null;
  readonly ip: string;
  readonly headers: Readonly<Record<string, string>>;
  /** `X-Svc-Cloud-Context` (or `X-Parse-Cloud-Context`): a JSON object the caller sends for the function. */
  readonly context: Record<string, unknown>;
}

export interface TriggerRequestData {
  readonly className: string;
  /** The object (wire JSON, without className); on a create's beforeSave, without objectId and dates. */
  readonly object: Record<string, unknown>;
  readonly original: Record<string, unknown> | null;
  readonly user: string | null;
  readonly master: boolean;
  readonly installationId: string | null;
  readonly context: Record<string, unknown>;
  /** The caller's session token (request.user gets it), address and headers; absent for Basalt's own writes. */
  readonly sessionToken?: string | null;
  readonly ip?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * A trigger of a request that is no write: a login's, a logout's, a query's. Its answer: for
 * beforeFind the query to run (`{where, order, limit, skip, keys, include, excludeKeys}`), for
 * afterFind the results (wire JSON), else null.
 */
export type RequestTriggerData = RequestTriggerCall;

export interface JobRequestData {
  readonly params: Record<string, unknown>;
}

/** One call of a function, a trigger or a job (a job has no time limit: it may run for hours). */
export type WorkerCall =
  | { readonly t: 'function'; readonly name: string; readonly request: FunctionRequestData }
  | { readonly t: 'trigger'; readonly name: TriggerName; readonly request: TriggerRequestData }
  | { readonly t: 'request'; readonly name: TriggerName; readonly request: RequestTriggerData }
  | { readonly t: 'job'; readonly name: string; readonly request: JobRequestData };

export type ToWorker = (WorkerCall & { readonly id: number }) | { readonly t: 'serverUrl'; readonly url: string };

/** A trigger's answer: the changes a beforeSave made (a REST body: values and `__op`s) and the context after it. */
export interface TriggerResult {
  readonly changes: Record<string, unknown> | null;
  readonly context: Record<string, unknown>;
}

export type FromWorker =
  | { readonly t: 'ready'; readonly registered: Registered }
  | { readonly t: 'loadFailed'; readonly message: string }
  | { readonly t: 'done'; readonly id: number; readonly value: unknown }
  | { readonly t: 'failed'; readonly id: number; readonly code: number; readonly message: string }
  /** A running job's `request.message(text)`: its status message, written by the server. */
  | { readonly t: 'jobMessage'; readonly id: number; readonly message: string }
  | { readonly t: 'log'; readonly level: LogLevel; readonly kind: string; readonly name: string; readonly message: string };

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
