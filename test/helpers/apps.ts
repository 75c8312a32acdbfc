/** Calls and checks of the `/1/apps` endpoints (spec 4.12), for the apps test files. */
import assert from 'node:assert/strict';
import { http, unique, type Response } from './client.ts';
import { ADMIN } from './targets.ts';

export type Headers = Record<string, string>;

export const ADMIN_HEADERS: Headers = { 'X-Svc-Email': ADMIN.email, 'X-Svc-Password': ADMIN.password };
export const KEY = /^[A-Za-z0-9]{40}$/;
export const KEY_FIELDS = ['masterKey', 'restKey', 'clientKey', 'javascriptKey', 'windowsKey', 'webhookKey'];
export const DEFAULTS = { clientClassCreationEnabled: true, clientPushEnabled: false, requireRevocableSessions: true, revokeSessionOnPasswordChange: true };
export const ONE_MB_AND_MORE = 1_100_000;
export const YEAR = 365 * 86_400;

export interface Call {
  readonly body?: unknown;
  readonly raw?: string;
  /** The credentials sent; the admin account's unless given. */
  readonly headers?: Headers;
}

export function apps(base: string, method: string, path: string, call: Call = {}): Promise<Response> {
  const headers: Headers = { ...(call.headers ?? ADMIN_HEADERS) };
  if (call.raw !== undefined) headers['Content-Type'] = 'application/json';
  return http(`${base}/1/apps${path}`, method, { body: call.body, raw: call.raw, headers });
}

export async function createApp(base: string, settings: Record<string, unknown> = {}, headers: Headers = ADMIN_HEADERS): Promise<Record<string, any>> {
  const response = await apps(base, 'POST', '', { body: { appName: unique('app'), ...settings }, headers });
  assert.equal(response.status, 201, response.text);
  return response.body;
}

export async function readApp(base: string, applicationId: string, headers: Headers = ADMIN_HEADERS): Promise<Record<string, any>> {
  const response = await apps(base, 'GET', `/${applicationId}`, { headers });
  assert.equal(response.status, 200, response.text);
  return response.body;
}

export async function listed(base: string, headers: Headers = ADMIN_HEADERS): Promise<Record<string, any>[]> {
  const response = await apps(base, 'GET', '', { headers });
  assert.equal(response.status, 200, response.text);
  assert.deepEqual(Object.keys(response.body), ['results']);
  return response.body.results;
}

/** A `filesURL` no other test sets: it finds an app whose creation had no name to search by. */
export function marker(): string {
  return `https://${unique('m').toLowerCase()}.example/files`;
}

export async function assertNotCreated(base: string, found: (app: Record<string, any>) => boolean, label: string, headers: Headers = ADMIN_HEADERS): Promise<void> {
  assert.equal((await listed(base, headers)).filter(found).length, 0, `${label}: an app was created`);
}

/** The documented app: name, id, settings, dashboard URL and six 40-character keys, nothing else. */
export function assertApp(base: string, app: Record<string, any>, appName: string, settings: Record<string, unknown>): void {
  const expectedFields = ['appName', 'applicationId', 'dashboardURL', ...KEY_FIELDS, ...Object.keys({ ...DEFAULTS, ...settings })];
  assert.deepEqual(Object.keys(app).sort(), [...new Set(expectedFields)].sort());
  assert.equal(app.appName, appName);
  assert.match(app.applicationId, KEY);
  assert.equal(app.dashboardURL, `${base}/dashboard/apps/${app.applicationId}`);
  for (const field of KEY_FIELDS) assert.match(app[field], KEY, field);
  assert.equal(new Set(KEY_FIELDS.map((field) => app[field])).size, KEY_FIELDS.length, 'every key is its own');
  for (const [name, value] of Object.entries({ ...DEFAULTS, ...settings })) assert.deepEqual(app[name], value, name);
}
