import type { IncomingHttpHeaders } from 'node:http';
import type { Credentials } from '../auth/credentials.ts';
import type { KeyKind } from '../rest/context.ts';
import type { SdkFields } from './sdk-body.ts';

/** Reads `X-Svc-<name>`, or its Parse alias `X-Parse-<name>`. */
export function svcHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[`x-svc-${name}`] ?? headers[`x-parse-${name}`];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Collects the credentials of a request. Basic auth carries the application id as user name and
 * `javascript-key=K`, `master-key=K` or the bare master key as password (spec 5, rule 1). The
 * JavaScript key is taken from the SDK body form, Basic auth, or the Parse JS SDK's own
 * `X-Parse-JavaScript-Key` header, never from `X-Svc-Javascript-Key` (spec 5, rule 2).
 */
export function readCredentials(headers: IncomingHttpHeaders, sdk: SdkFields): Credentials {
  const keys: Partial<Record<KeyKind, string>> = {};
  const set = (kind: KeyKind, value: string | undefined) => {
    if (value !== undefined && value !== '' && keys[kind] === undefined) keys[kind] = value;
  };
  set('master', svcHeader(headers, 'master-key'));
  set('rest', svcHeader(headers, 'rest-api-key'));
  set('client', svcHeader(headers, 'client-key'));
  set('windows', svcHeader(headers, 'windows-key'));
  const jsHeader = headers['x-parse-javascript-key'];
  set('javascript', Array.isArray(jsHeader) ? jsHeader[0] : jsHeader);
  set('master', sdk.masterKey);
  set('client', sdk.clientKey);
  set('javascript', sdk.javascriptKey);
  set('windows', sdk.windowsKey);

  let applicationId = svcHeader(headers, 'application-id') ?? sdk.applicationId;
  const basic = parseBasic(headers.authorization);
  if (basic) {
    applicationId ??= basic.user;
    if (basic.password.startsWith('javascript-key=')) set('javascript', basic.password.slice('javascript-key='.length));
    else if (basic.password.startsWith('master-key=')) set('master', basic.password.slice('master-key='.length));
    else set('master', basic.password);
  }
  const revocable = svcHeader(headers, 'revocable-session') ?? sdk.revocableSession;
  return {
    ...(applicationId ? { applicationId } : {}),
    keys,
    ...pick('sessionToken', svcHeader(headers, 'session-token') ?? sdk.sessionToken),
    ...pick('installationId', svcHeader(headers, 'installation-id') ?? sdk.installationId),
    revocableSession: revocable === '1' || revocable === 'true',
  };
}

function pick<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value ? ({ [key]: value } as Record<K, string>) : {};
}

function parseBasic(header: string | undefined): { user: string; password: string } | null {
  if (!header || !/^basic /i.test(header)) return null;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return null;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
