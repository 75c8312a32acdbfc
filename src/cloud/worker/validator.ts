import type { Parse } from './sdk.ts';

/**
 * Parse Server's validator objects (`Parse.Cloud.define(name, fn, {requireUser, fields, …})`),
 * with its messages: a failed check throws a string, which the caller turns into code 142.
 */
export interface ValidatorOptions {
  readonly requireUser?: boolean;
  readonly requireMaster?: boolean;
  readonly validateMasterKey?: boolean;
  readonly skipWithMasterKey?: boolean;
  readonly requireUserKeys?: readonly string[] | Record<string, FieldRule>;
  readonly fields?: readonly string[] | Record<string, FieldRule | string>;
}

interface FieldRule {
  readonly type?: unknown;
  readonly default?: unknown;
  readonly required?: boolean;
  readonly constant?: boolean;
  readonly options?: unknown;
  readonly error?: string;
}

/** What a validator reads of a request. */
interface Checked {
  readonly master: boolean;
  readonly user?: Parse.Object | null | undefined;
  readonly params?: Record<string, unknown>;
  readonly object?: Parse.Object;
  readonly original?: Parse.Object | null | undefined;
}

export async function checkValidator(options: ValidatorOptions, request: Checked): Promise<void> {
  if (request.master && !options.validateMasterKey) return;
  let user = request.user ?? null;
  // A sign-up's beforeSave has no user yet: the new user stands in for it, as in Parse Server.
  if (!user && request.object && request.object.className === '_User' && !request.object.existed()) user = request.object;
  if (options.requireUser && !user) throw 'Validation failed. Please login to continue.';
  if (options.requireMaster && !request.master) throw 'Validation failed. Master key is required to complete this request.';
  const params: Record<string, unknown> = request.object ? (request.object.toJSON() as Record<string, unknown>) : (request.params ?? {});
  const required = (key: string) => {
    if (params[key] == null) throw `Validation failed. Please specify data for ${key}.`;
  };
  const fields = options.fields;
  if (Array.isArray(fields)) {
    for (const key of fields) required(key);
  } else if (fields) {
    const pending: Promise<void>[] = [];
    for (const [key, rule] of Object.entries(fields as Record<string, FieldRule | string>)) {
      if (typeof rule === 'string') {
        required(rule);
        continue;
      }
      let value = params[key];
      if (rule.default != null && value == null) {
        value = rule.default;
        params[key] = value;
        if (request.object) request.object.set(key, value);
        else if (request.params) request.params[key] = value;
      }
      if (rule.constant && request.object) {
        if (request.original) request.object.revert(key);
        else if (rule.default != null) request.object.set(key, rule.default);
      }
      if (rule.required) required(key);
      if (!rule.required && value === undefined) continue;
      if (rule.type) {
        const expected = typeName(rule.type);
        const actual = Array.isArray(value) ? 'array' : typeof value;
        if (actual !== expected) throw `Validation failed. Invalid type for ${key}. Expected: ${expected}`;
      }
      if (rule.options) pending.push(checkOptions(rule, key, value));
    }
    await Promise.all(pending);
  }
  const userKeys = options.requireUserKeys ?? [];
  if (Array.isArray(userKeys)) {
    for (const key of userKeys) {
      if (!user) throw 'Please login to make this request.';
      if (user.get(key) == null) throw `Validation failed. Please set data for ${key} on your account.`;
    }
  } else {
    const pending: Promise<void>[] = [];
    for (const [key, rule] of Object.entries(userKeys as Record<string, FieldRule>)) {
      if (rule.options) pending.push(checkOptions(rule, key, user?.get(key)));
    }
    await Promise.all(pending);
  }
}

/** `String` → "string", as Parse Server names a constructor given as a field's type. */
function typeName(type: unknown): string {
  const match = typeof type === 'function' ? /^\s*function (\w+)/.exec(type.toString()) : null;
  return (match ? match[1]! : '').toLowerCase();
}

async function checkOptions(rule: FieldRule, key: string, value: unknown): Promise<void> {
  const { options } = rule;
  if (typeof options === 'function') {
    let accepted: unknown;
    try {
      accepted = await (options as (value: unknown) => unknown)(value);
    } catch (error) {
      throw rule.error ?? ((error as Error)?.message || error || `Validation failed. Invalid value for ${key}.`);
    }
    if (!accepted && accepted != null) throw rule.error ?? `Validation failed. Invalid value for ${key}.`;
    return;
  }
  const allowed = Array.isArray(options) ? options : [options];
  if (!allowed.includes(value)) throw rule.error ?? `Validation failed. Invalid option for ${key}. Expected: ${allowed.join(', ')}`;
}
