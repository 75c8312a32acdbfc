import { randomBytes } from 'node:crypto';
import { ADMIN, type Target } from './targets.ts';

export interface Response<T = any> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
  readonly text: string;
}

export type KeyKind = 'master' | 'rest' | 'client' | 'javascript' | 'windows' | 'none';

export interface RequestOptions {
  readonly body?: unknown;
  /** A raw body, sent as is (for malformed JSON and size tests). */
  readonly raw?: string | Buffer;
  readonly key?: KeyKind;
  readonly headers?: Record<string, string>;
  readonly query?: Record<string, string | number | object>;
}

export interface AppInfo {
  readonly applicationId: string;
  readonly masterKey: string;
  readonly restKey: string;
  readonly clientKey: string;
  readonly javascriptKey: string;
  readonly windowsKey: string;
  readonly webhookKey: string;
  readonly [setting: string]: unknown;
}

const KEY_HEADER: Record<Exclude<KeyKind, 'none' | 'javascript'>, [string, keyof AppInfo]> = {
  master: ['X-Svc-Master-Key', 'masterKey'],
  rest: ['X-Svc-REST-API-Key', 'restKey'],
  client: ['X-Svc-Client-Key', 'clientKey'],
  windows: ['X-Svc-Windows-Key', 'windowsKey'],
};

export async function http(url: string, method: string, options: { body?: unknown; raw?: string | Buffer; headers?: Record<string, string> } = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Buffer | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const response = await fetch(url, { method, headers, body: body as BodyInit | undefined });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed, headers: response.headers, text };
}

/** A client bound to one app on one server; `unique()` names keep tests independent. */
export class AppClient {
  constructor(readonly target: Target, readonly app: AppInfo) {}

  request(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { ...options.headers };
    if (!Object.keys(headers).some((name) => /application-id/i.test(name))) headers['X-Svc-Application-Id'] = this.app.applicationId;
    const key = options.key ?? 'rest';
    if (key === 'javascript') headers['X-Parse-JavaScript-Key'] = this.app.javascriptKey;
    else if (key !== 'none') {
      const [name, field] = KEY_HEADER[key];
      headers[name] = String(this.app[field]);
    }
    let url = `${this.target.url}${path}`;
    if (options.query) {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(options.query)) params.set(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
      url += `?${params}`;
    }
    return http(url, method, { body: options.body, raw: options.raw, headers });
  }

  get(path: string, options?: RequestOptions) {
    return this.request('GET', path, options);
  }
  post(path: string, body?: unknown, options?: RequestOptions) {
    return this.request('POST', path, { ...options, body });
  }
  put(path: string, body?: unknown, options?: RequestOptions) {
    return this.request('PUT', path, { ...options, body });
  }
  delete(path: string, options?: RequestOptions) {
    return this.request('DELETE', path, options);
  }
}

/** A class or field name no other test uses. */
export function unique(prefix = 'T'): string {
  return `${prefix}${randomBytes(5).toString('hex')}`;
}

/** Creates a fresh app on the target through /1/apps (each test file gets its own). */
export async function newApp(target: Target, settings: Record<string, unknown> = {}): Promise<AppClient> {
  const response = await http(`${target.url}/1/apps`, 'POST', {
    body: { appName: unique('app'), ...settings },
    headers: { 'X-Svc-Email': ADMIN.email, 'X-Svc-Password': ADMIN.password },
  });
  if (response.status !== 201) throw new Error(`could not create a test app: ${response.status} ${response.text}`);
  return new AppClient(target, response.body as AppInfo);
}

export function sdkBody(app: AppInfo, fields: Record<string, unknown>): Record<string, unknown> {
  return { _ApplicationId: app.applicationId, _JavaScriptKey: app.javascriptKey, ...fields };
}
