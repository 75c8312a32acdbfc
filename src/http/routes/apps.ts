import { Errors } from '../../errors/index.ts';
import { isPlainObject } from '../../encoding/values.ts';
import type { Account } from '../../apps/accounts.ts';
import { KEY_NAMES, type AppRecord, type KeyName } from '../../apps/types.ts';
import { newKey } from '../../apps/ids.ts';
import { parseSettings } from '../../apps/settings.ts';
import { maskAppSecrets, restoreAppSecrets } from '../../apps/secrets.ts';
import type { HttpDeps } from '../deps.ts';
import { publicUrl } from '../context.ts';
import { svcHeader } from '../credentials.ts';
import type { EdgeRoute } from '../edge/types.ts';
import type { EdgeRequest } from '../edge/request.ts';

const KEY_FIELDS = ['applicationId', 'masterKey', 'restKey', 'clientKey', 'javascriptKey', 'windowsKey', 'webhookKey', 'dashboardURL'];

/**
 * Spec 4.12: apps, authenticated by an account (X-Svc-Email + X-Svc-Password, or
 * X-Svc-Account-Key), never by app keys. An account sees the apps it owns or collaborates on.
 */
export function appsRoutes(deps: HttpDeps): EdgeRoute[] {
  const render = (request: EdgeRequest, record: AppRecord) => ({
    appName: record.appName,
    applicationId: record.applicationId,
    // Write-only: the secrets (SMTP password, sign-in providers', delivery networks') never leave the server.
    ...maskAppSecrets(record.settings),
    dashboardURL: `${publicUrl(deps, request)}/dashboard/apps/${encodeURIComponent(record.applicationId)}`,
    ...record.keys,
  });

  const visibleApp = async (account: Account, applicationId: string) => {
    const record = (await deps.apps.list(account.id)).find((candidate) => candidate.applicationId === applicationId);
    if (!record) throw Errors.objectNotFound(`No app ${applicationId} for this account.`);
    return record;
  };

  const list = async (request: EdgeRequest) => {
    const account = await authenticate(deps, request);
    return { status: 200, body: { results: (await deps.apps.list(account.id)).map((record) => render(request, record)) } };
  };

  const read = async (request: EdgeRequest) => {
    const account = await authenticate(deps, request);
    return { status: 200, body: render(request, await visibleApp(account, request.params.applicationId!)) };
  };

  const create = async (request: EdgeRequest) => {
    const account = await authenticate(deps, request);
    const body = appBody(request.body);
    if (typeof body.appName !== 'string' || body.appName.trim() === '') throw Errors.missingRequiredField('appName is required.');
    checkNameLength(body.appName);
    const record = await deps.apps.create({ appName: body.appName, ownerId: account.id, settings: parseSettings(body, ['appName']) });
    const url = `${publicUrl(deps, request)}/1/apps/${encodeURIComponent(record.applicationId)}`;
    return { status: 201, body: render(request, record), headers: { Location: url } };
  };

  const update = async (request: EdgeRequest) => {
    const account = await authenticate(deps, request);
    const current = await visibleApp(account, request.params.applicationId!);
    // A body that sends back the masked secrets it read keeps the stored ones.
    const body = restoreAppSecrets(appBody(request.body), current.settings);
    if (body.appName !== undefined && (typeof body.appName !== 'string' || body.appName.trim() === '')) throw Errors.invalidJson('appName must be a non-empty string.');
    if (typeof body.appName === 'string') checkNameLength(body.appName);
    const record = await deps.apps.update(current.applicationId, {
      ...(typeof body.appName === 'string' ? { appName: body.appName } : {}),
      settings: parseSettings(body, ['appName', ...KEY_FIELDS]),
    });
    return { status: 200, body: render(request, record) };
  };

  // A leaked key is replaced, never chosen: the new one is random like those of a new app.
  const rotateKey = async (request: EdgeRequest) => {
    const account = await authenticate(deps, request);
    const current = await visibleApp(account, request.params.applicationId!);
    const key = appBody(request.body).key;
    if (!isKeyName(key)) throw Errors.invalidJson(`key must be one of ${KEY_NAMES.join(', ')}.`);
    return { status: 200, body: render(request, await deps.apps.update(current.applicationId, { keys: { [key]: newKey() } })) };
  };

  return [
    { method: 'GET', path: '/1/apps', handler: list },
    { method: 'GET', path: '/1/apps/:applicationId', handler: read },
    { method: 'POST', path: '/1/apps', handler: create },
    { method: 'PUT', path: '/1/apps/:applicationId', handler: update },
    { method: 'POST', path: '/1/apps/:applicationId', handler: update },
    { method: 'POST', path: '/1/apps/:applicationId/rotateKey', handler: rotateKey },
  ];
}

function isKeyName(value: unknown): value is KeyName {
  return typeof value === 'string' && (KEY_NAMES as readonly string[]).includes(value);
}

function appBody(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (!isPlainObject(body)) throw Errors.invalidJson('The request body must be a JSON object.');
  return body;
}

async function authenticate(deps: HttpDeps, request: EdgeRequest): Promise<Account> {
  const accountKey = svcHeader(request.headers, 'account-key');
  const email = svcHeader(request.headers, 'email');
  const password = svcHeader(request.headers, 'password');
  let account: Account | null = null;
  if (accountKey) account = await deps.accounts.byAccountKey(accountKey);
  else if (email && password) account = await deps.accounts.authenticate(email, password);
  else throw Errors.unauthorized('The apps endpoints need X-Svc-Email and X-Svc-Password, or X-Svc-Account-Key.');
  if (!account) throw Errors.unauthorized('Invalid account credentials.');
  return account;
}

/** A name is shown in every list of apps and on the dashboard; a body's megabyte is not a name. */
const MAX_APP_NAME = 200;

/** Characters as the password policy counts them: code points, so an emoji is one. */
function checkNameLength(appName: string): void {
  if (appName.length > MAX_APP_NAME && [...appName].length > MAX_APP_NAME) throw Errors.invalidJson(`appName must be at most ${MAX_APP_NAME} characters.`);
}
