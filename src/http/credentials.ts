import type { IncomingHttpHeaders } from 'node:http';
import type { Credentials } from '../auth/credentials.ts';
import type { KeyKind } from '../rest/context.ts';
import type { SdkFields } from './sdk-body.ts';

// Header names are built once: this runs for a dozen names on every request.
const headerNames = new Map<string, readonly [string, string]>();

/** Reads `X-Svc-<name>`, or its Parse alias `X-Parse-<name>`. */
export function svcHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  let names = headerNames.get(name);
  if (!names) headerNames.set(name, (names = [`x-svc-${name}`, `x-parse-${name}`]));
  const value = headers[names[0]] ?? headers[names[1]];
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
  setKey(keys, 'master', svcHeader(headers, 'master-key'));
  setKey(keys, 'rest', svcHeader(headers, 'rest-api-key'));
  setKey(keys, 'client', svcHeader(headers, 'client-key'));
  setKey(keys, 'windows', svcHeader(headers, 'windows-key'));
  const jsHeader = headers['x-parse-javascript-key'];
  setKey(keys, 'javascript', Array.isArray(jsHeader) ? jsHeader[0] : jsHeader);
  setKey(keys, 'master', sdk.masterKey);
  setKey(keys, 'client', sdk.clientKey);
  setKey(keys, 'javascript', sdk.javascriptKey);
  setKey(keys, 'windows', sdk.windowsKey);

  let applicationId = svcHeader(headers, 'application-id') ?? sdk.applicationId;
  const basic = parseBasic(headers.authorization);
  if (basic) {
    applicationId ??= basic.user;
    if (basic.password.startsWith('javascript-key=')) setKey(keys, 'javascript', basic.password.slice('javascript-key='.length));
    else if (basic.password.startsWith('master-key=')) setKey(keys, 'master', basic.password.slice('master-key='.length));
    else setKey(keys, 'master', basic.password);
  }
  const revocable = svcHeader(headers, 'revocable-session') ?? sdk.revocableSession;
  const credentials: { -readonly [K in keyof Credentials]: Credentials[K] } = { keys, revocableSession: revocable === '1' || revocable === 'true' };
  if (applicationId) credentials.applicationId = applicationId;
  const sessionToken = svcHeader(headers, 'session-token') ?? sdk.sessionToken;
  if (sessionToken) credentials.sessionToken = sessionToken;
  const installationId = svcHeader(headers, 'installation-id') ?? sdk.installationId;
  if (installationId) credentials.installationId = installationId;
  return credentials;
}

/** The first non-empty value of a key kind wins. */
function setKey(keys: Partial<Record<KeyKind, string>>, kind: KeyKind, value: string | undefined): void {
  if (value !== undefined && value !== '' && keys[kind] === undefined) keys[kind] = value;
}

function parseBasic(header: string | undefined): { user: string; password: string } | null {
  if (!header || !/^basic /i.test(header)) return null;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return null;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
