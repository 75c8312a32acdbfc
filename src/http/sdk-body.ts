import { isPlainObject } from '../encoding/values.ts';

/** The Parse SDKs' body form: keys and options sent as body fields instead of headers. */
export interface SdkFields {
  readonly applicationId?: string;
  readonly javascriptKey?: string;
  readonly clientKey?: string;
  readonly masterKey?: string;
  readonly windowsKey?: string;
  readonly sessionToken?: string;
  readonly installationId?: string;
  readonly revocableSession?: string;
  readonly method?: string;
}

// A Map, not an object literal: `key in {...}` is also true for "constructor" or "toString",
// which are ordinary field names that must stay in the body.
const FIELDS = new Map<string, keyof SdkFields>([
  ['_ApplicationId', 'applicationId'],
  ['_JavaScriptKey', 'javascriptKey'],
  ['_ClientKey', 'clientKey'],
  ['_MasterKey', 'masterKey'],
  ['_WindowsKey', 'windowsKey'],
  ['_SessionToken', 'sessionToken'],
  ['_InstallationId', 'installationId'],
  ['_RevocableSession', 'revocableSession'],
  ['_method', 'method'],
]);
const IGNORED = new Set(['_ClientVersion', '_ContentType']);
// The JS SDK's `context` option (data for Cloud Code triggers, which Basalt does not run). Dropped
// only from a body in the SDK form, which always carries `_ApplicationId`: elsewhere it is an
// ordinary (invalid) field name and answers 105 like any other.
const DROPPED_IN_SDK_FORM = new Set(['_context']);

/** Splits the SDK fields off a body; the rest is the request's own body. */
export function splitSdkFields(body: unknown): { sdk: SdkFields; body: unknown } {
  if (!isPlainObject(body) || !Object.keys(body).some((key) => FIELDS.has(key) || IGNORED.has(key))) return { sdk: {}, body };
  const sdk: Record<string, string> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const name = FIELDS.get(key);
    if (name) {
      if (typeof value === 'string' || typeof value === 'number') sdk[name] = String(value);
    } else if (!IGNORED.has(key) && !DROPPED_IN_SDK_FORM.has(key)) rest[key] = value;
  }
  return { sdk, body: rest };
}
