import assert from 'node:assert/strict';
import { newApp, unique, type AppClient, type RequestOptions, type Response } from './client.ts';
import type { Target } from './targets.ts';

/** A signed-up user, with the credentials it was created with. */
export interface TestUser {
  readonly objectId: string;
  readonly username: string;
  readonly password: string;
  readonly sessionToken: string;
}

export const REVOCABLE_TOKEN = /^r:[0-9a-f]{32}$/;
export const LEGACY_TOKEN = /^[0-9a-f]{32}$/;
export const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
export const LOGIN_FAILED = { code: 101, error: 'Invalid username/password.' };

/**
 * A new app for user tests. These tests sign up and log in far more often than the per-address
 * limit on login and sign-up requests allows (decisions.md "Limits"), all from one address, so
 * their apps turn that limit off; other settings are passed through.
 */
export function newUserApp(target: Target, settings: Record<string, unknown> = {}): Promise<AppClient> {
  return newApp(target, { rateLimits: { authRequestsPerMinute: 0 }, ...settings });
}

/** A failure is exactly `{code, error}` with this status (decisions.md "Errors"). */
export function assertError(response: Response, status: number, code: number, context = ''): void {
  assert.equal(response.status, status, `${context} expected ${status}/${code}, got ${response.status} ${response.text}`);
  assert.deepEqual(Object.keys(response.body ?? {}).sort(), ['code', 'error'], `${context} ${response.text}`);
  assert.equal(response.body.code, code, `${context} ${response.text}`);
  assert.equal(typeof response.body.error, 'string');
}

/** Request options that authenticate as the user of `token` (plus any other headers). */
export function as(token: string, headers: Record<string, string> = {}, key: RequestOptions['key'] = 'rest'): RequestOptions {
  return { key, headers: { 'X-Svc-Session-Token': token, ...headers } };
}

/** Signs up a fresh user through POST /1/users and checks that it worked. */
export async function signUp(app: AppClient, fields: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<TestUser> {
  const username = unique('user');
  const password = unique('pw');
  const response = await app.post('/1/users', { username, password, ...fields }, { headers });
  assert.equal(response.status, 201, response.text);
  return { objectId: response.body.objectId, username: String(fields.username ?? username), password: String(fields.password ?? password), sessionToken: response.body.sessionToken };
}

/** GET /1/login; returns the whole response. */
export function logIn(app: AppClient, username: string, password: string, headers: Record<string, string> = {}): Promise<Response> {
  return app.get('/1/login', { query: { username, password }, headers });
}

/** Logs in and returns the new session token. */
export async function newToken(app: AppClient, user: TestUser, headers: Record<string, string> = {}): Promise<string> {
  const response = await logIn(app, user.username, user.password, headers);
  assert.equal(response.status, 200, response.text);
  return String(response.body.sessionToken);
}

/** POST /1/sessions with an unrestricted token: a restricted session's objectId and token. */
export async function restrictedSession(app: AppClient, token: string, fields: Record<string, unknown> = {}): Promise<{ objectId: string; sessionToken: string }> {
  const response = await app.post('/1/sessions', fields, as(token));
  assert.equal(response.status, 201, response.text);
  return { objectId: response.body.objectId, sessionToken: response.body.sessionToken };
}

/** The session object that owns a token, read through GET /1/sessions/me. */
export async function sessionOf(app: AppClient, token: string): Promise<Record<string, any>> {
  const response = await app.get('/1/sessions/me', as(token));
  assert.equal(response.status, 200, response.text);
  return response.body;
}

/** The sessions of a user as the master key sees them. */
export async function sessionsOfUser(app: AppClient, userId: string): Promise<Record<string, any>[]> {
  const response = await app.get('/1/sessions', { key: 'master', query: { where: { user: { __type: 'Pointer', className: '_User', objectId: userId } }, limit: 1000 } });
  assert.equal(response.status, 200, response.text);
  return response.body.results;
}

/** The status of GET /1/users/me with a token: 200 while the session lives, 400 (209) after. */
export async function meStatus(app: AppClient, token: string): Promise<number> {
  return (await app.get('/1/users/me', as(token))).status;
}
