import { Errors } from '../../errors/index.ts';
/** The services' API roots the server is configured with (--facebook-graph-url, --twitter-api-url). */
export interface ProviderUrls {
  readonly facebookGraphUrl: string;
  readonly twitterApiUrl: string;
}

/** What a service's check may read: the app's `auth.<service>` setting and the server's options. */
export interface ProviderContext {
  readonly settings: Readonly<Record<string, unknown>>;
  readonly options: ProviderUrls;
}

/**
 * One authData service (spec 2.4.1). The client has finished the service's sign-in itself and
 * sends what it got; `verify` asks the service whether that really belongs to the id it claims.
 */
export interface AuthProvider {
  readonly service: string;
  enabled(context: ProviderContext): boolean;
  /** The service's user id, after checking the shape of the data: 250 without an id, 251 when malformed. */
  idOf(data: Readonly<Record<string, unknown>>): string;
  /** Resolves when the service confirms the data; otherwise throws 251. */
  verify(data: Readonly<Record<string, unknown>>, context: ProviderContext): Promise<void>;
}

/** The id field every service has: a non-empty string (250 when absent, 251 when of another type). */
export function requireId(service: string, data: Readonly<Record<string, unknown>>): string {
  const id = data.id;
  if (id === undefined || id === null || id === '') throw Errors.linkedIdMissing(`authData.${service} needs an id.`);
  if (typeof id !== 'string' || id.length > 256) throw Errors.invalidLinkedSession(`authData.${service}.id must be a string of at most 256 characters.`);
  return id;
}

export function requireString(service: string, data: Readonly<Record<string, unknown>>, field: string): string {
  const value = data[field];
  if (typeof value !== 'string' || value === '' || value.length > 4096) throw Errors.invalidLinkedSession(`authData.${service}.${field} must be a non-empty string.`);
  return value;
}

/** The base URL of a service's API: the app's own setting, else the server's option; no trailing slash. */
export function baseUrl(setting: unknown, fallback: string): string {
  return (typeof setting === 'string' && setting !== '' ? setting : fallback).replace(/\/+$/, '');
}

const TIMEOUT_MS = 10_000;

/**
 * GETs JSON from a service. Any failure (unreachable, timeout, an error status, a body that is
 * not a JSON object) means the data could not be confirmed: 251.
 */
export async function fetchJson(service: string, url: string, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { Accept: 'application/json', ...headers }, signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'error' });
  } catch {
    throw Errors.invalidLinkedSession(`The ${service} authData could not be checked: ${service} did not answer.`);
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok || typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw Errors.invalidLinkedSession(`The ${service} authData is not valid: ${service} refused it.`);
  }
  return body as Record<string, unknown>;
}
