import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import { isValidClassName } from '../schema/names.ts';
import type { AppHandle } from '../apps/registry.ts';
import { ok, type RequestContext, type Result } from './context.ts';

/** Decisions.md "Hooks": the write points a trigger hook may name. */
export const TRIGGER_NAMES = ['beforeSave', 'afterSave', 'beforeDelete', 'afterDelete'] as const;
export type TriggerName = (typeof TRIGGER_NAMES)[number];

export type HookKind = 'function' | 'trigger';

/** Which hook: a function by name, or a trigger by class and point. */
export type HookKey = { readonly kind: 'function'; readonly functionName: string } | { readonly kind: 'trigger'; readonly className: string; readonly triggerName: TriggerName };

/** A hook as the API shows it: `{functionName, url}` or `{className, triggerName, url}`. */
export type HookDefinition = (
  | { readonly functionName: string; readonly className?: never; readonly triggerName?: never }
  | { readonly className: string; readonly triggerName: TriggerName; readonly functionName?: never }
) & { readonly url: string };

/** Where the definitions are kept (src/webhooks), seen by every process. */
export interface HookDefinitions {
  list(app: AppHandle, kind: HookKind): Promise<HookDefinition[]>;
  get(app: AppHandle, key: HookKey): Promise<HookDefinition | null>;
  /** Null when a hook with this key exists already. */
  create(app: AppHandle, key: HookKey, url: string): Promise<HookDefinition | null>;
  /** Null when there is no such hook. */
  update(app: AppHandle, key: HookKey, url: string): Promise<HookDefinition | null>;
  /** False when there was no such hook. */
  delete(app: AppHandle, key: HookKey): Promise<boolean>;
  /** The definitions changed in the database by other means (a purge of `_Hooks`): every process reads them again. */
  reread(app: AppHandle): Promise<void>;
}

// Parse Server's messages, so clients written against it read the same text.
const INVALID = 'invalid hook declaration';
const MAX_URL = 2048;
const MAX_NAME = 128;

function masterOnly(ctx: RequestContext): void {
  if (!ctx.auth.isMaster) throw Errors.operationForbidden('Hooks need the master key.');
}

/** GET /1/hooks/functions and /1/hooks/triggers: `{results: […]}`. */
export async function listHooks(ctx: RequestContext, hooks: HookDefinitions, kind: HookKind): Promise<Result> {
  masterOnly(ctx);
  return ok({ results: await hooks.list(ctx.app, kind) });
}

export async function getHook(ctx: RequestContext, hooks: HookDefinitions, key: HookKey): Promise<Result> {
  masterOnly(ctx);
  checkKey(key);
  const found = await hooks.get(ctx.app, key);
  if (!found) throw missing(key);
  return ok(found);
}

/** POST /1/hooks/functions `{functionName, url}` and /1/hooks/triggers `{className, triggerName, url}`: 201 with the hook. */
export async function createHook(ctx: RequestContext, hooks: HookDefinitions, kind: HookKind, body: unknown): Promise<Result> {
  masterOnly(ctx);
  if (!isPlainObject(body)) throw Errors.webhookError(INVALID);
  const key: HookKey = kind === 'function' ? { kind, functionName: body.functionName as string } : { kind, className: body.className as string, triggerName: body.triggerName as TriggerName };
  checkKey(key);
  const url = checkUrl(body.url);
  const created = await hooks.create(ctx.app, key, url);
  if (!created) {
    throw Errors.webhookError(key.kind === 'function' ? `function name: ${key.functionName} already exists` : `class ${key.className} already has trigger ${key.triggerName}`);
  }
  return { status: 201, body: created };
}

/** PUT on a hook: `{url}` changes it; `{"__op": "Delete"}` deletes it (Parse Server's form). */
export async function updateHook(ctx: RequestContext, hooks: HookDefinitions, key: HookKey, body: unknown): Promise<Result> {
  masterOnly(ctx);
  if (isPlainObject(body) && body.__op === 'Delete') return deleteHook(ctx, hooks, key);
  checkKey(key);
  if (!isPlainObject(body)) throw Errors.webhookError(INVALID);
  const url = checkUrl(body.url);
  const updated = await hooks.update(ctx.app, key, url);
  if (!updated) throw missing(key);
  return ok(updated);
}

/** DELETE on a hook: `{}`; a hook that does not exist answers 143, as on GET and PUT. */
export async function deleteHook(ctx: RequestContext, hooks: HookDefinitions, key: HookKey): Promise<Result> {
  masterOnly(ctx);
  checkKey(key);
  if (!(await hooks.delete(ctx.app, key))) throw missing(key);
  return ok({});
}

function missing(key: HookKey): Error {
  return Errors.webhookError(key.kind === 'function' ? `no function named: ${key.functionName} is defined` : `class ${key.className} has no trigger hook ${key.triggerName}`);
}

function checkKey(key: HookKey): void {
  if (key.kind === 'function') {
    if (typeof key.functionName !== 'string' || key.functionName.length === 0) throw Errors.webhookError(INVALID);
    if (key.functionName.length > MAX_NAME || /[\u0000-\u001f]/.test(key.functionName)) throw Errors.webhookError(`invalid function name: ${JSON.stringify(key.functionName.slice(0, 80))}`);
    return;
  }
  if (typeof key.className !== 'string' || key.className.length === 0 || typeof key.triggerName !== 'string') throw Errors.webhookError(INVALID);
  if (!(TRIGGER_NAMES as readonly string[]).includes(key.triggerName)) {
    throw Errors.webhookError(`invalid trigger name: ${JSON.stringify(String(key.triggerName).slice(0, 80))}; one of ${TRIGGER_NAMES.join(', ')}`);
  }
  // Spec 2.7: the Session class has no triggers; nor do the hooks themselves.
  if (key.className === '_Session' || key.className === '_Hooks') throw Errors.webhookError(`the ${key.className} class has no triggers`);
  if (!isValidClassName(key.className)) throw Errors.webhookError(`invalid class name: ${JSON.stringify(key.className.slice(0, 80))}`);
}

/** An absolute http or https URL: the only places a webhook body may be sent. */
function checkUrl(value: unknown): string {
  if (value === undefined || value === null || value === '') throw Errors.webhookError(INVALID);
  if (typeof value !== 'string' || value.length > MAX_URL) throw Errors.webhookError('invalid hook url: it must be an http or https URL');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw Errors.webhookError(`invalid hook url: ${JSON.stringify(value.slice(0, 80))} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw Errors.webhookError(`invalid hook url: ${JSON.stringify(value.slice(0, 80))} is not http or https`);
  return value;
}
