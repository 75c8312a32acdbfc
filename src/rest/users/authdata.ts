import { CATALOG, Errors, isApiError } from '../../errors/index.ts';
import { isPlainObject } from '../../encoding/values.ts';
import { randomAlphanumerics } from '../../storage/ids.ts';
import { authProviderSettings } from '../../apps/settings.ts';
import { providerFor, type AuthProvider, type ProviderContext } from '../../auth/providers/index.ts';
import { ensureBuiltinClass } from '../../schema/builtin.ts';
import type { AppStore, StoredObject } from '../../storage/port.ts';
import { ok, type RequestContext, type Result } from '../context.ts';
import { authDataIndexName, checkPassword, checkUsername, renderUser, sessionFor, USER, userUrl } from './common.ts';
import { insertUser } from './create.ts';
import { INTERNAL, writeUpdate } from '../write/pipeline.ts';

/** One service to link: its checked data and the service's user id (spec 2.4.1). */
interface Link {
  readonly service: string;
  readonly provider: AuthProvider;
  readonly data: Readonly<Record<string, unknown>>;
  readonly id: string;
}

/** What a PUT's authData asks for: services to link (after the services confirmed them) and to unlink. */
export interface AuthDataChange {
  readonly links: readonly Link[];
  readonly unlinks: readonly string[];
}

// A service name becomes part of a JSON path and an index name.
const SERVICE_NAME = /^[A-Za-z][A-Za-z0-9_]{0,49}$/;

/** Whether a sign-up body's authData names at least one service to link; 251 when it is no object. */
export function hasLinks(authData: unknown): boolean {
  if (authData === undefined || authData === null) return false;
  if (!isPlainObject(authData)) throw Errors.invalidLinkedSession('authData must be an object of services.');
  return Object.values(authData).some((data) => data !== null && data !== undefined);
}

/**
 * POST /1/users with authData (spec 4.3). The services confirm the data first (251 when they do
 * not). If a user is linked to it already, that user logs in: 200, Location, the user's fields,
 * authData and a session token. Otherwise a user is created: 201 `{username, createdAt,
 * objectId, sessionToken}`, with a generated unique username unless the body names one.
 */
export async function signUpWithAuthData(ctx: RequestContext, body: Record<string, unknown>): Promise<Result> {
  const { links } = await checkedChange(ctx, body.authData, false);
  const owner = await ownerOf(ctx, links);
  if (owner) return logInLinked(ctx, owner, links);
  const { authData: _given, username, password, ...fields } = body;
  const authData = Object.fromEntries(links.map((link) => [link.service, link.data]));
  let user: StoredObject;
  let edits: Readonly<Record<string, unknown>> = {};
  try {
    user = await insertUser(ctx, {
      ...fields,
      username: username === undefined ? randomAlphanumerics(25) : checkUsername(username),
      ...(password === undefined ? {} : { password: checkPassword(password) }),
      authData,
    }, (changed) => (edits = changed));
  } catch (error) {
    // Two first sign-ins with the same authData at once: the unique index let one create the
    // user; the other logs in to it.
    if (isApiError(error) && error.code === CATALOG.accountAlreadyLinked.code) {
      const winner = await ownerOf(ctx, links);
      if (winner) return logInLinked(ctx, winner, links);
    }
    throw error;
  }
  const session = await ctx.app.sessions.create(sessionFor(ctx, user.objectId, 'signup', links[0]!.service));
  // What before-hooks changed comes first: the answer's own fields win over a hook's.
  return ok({ ...edits, username: user.data.username, createdAt: user.createdAt, objectId: user.objectId, sessionToken: session.data.sessionToken }, 201, {
    Location: userUrl(ctx, user.objectId),
  });
}

/**
 * Checks the authData of a PUT on /1/users/<objectId> before the update runs: unknown services
 * 252, a missing id 250, data the service refuses 251, and 208 when another user is linked to
 * it. The update applies the result with `nextAuthData` under its row lock.
 */
export async function prepareAuthDataChange(ctx: RequestContext, userId: string, authData: unknown): Promise<AuthDataChange> {
  const change = await checkedChange(ctx, authData, true);
  for (const link of change.links) {
    const others = (await usersLinkedTo(ctx, link)).filter((user) => user.objectId !== userId);
    if (others.length > 0) throw Errors.accountAlreadyLinked(`This ${link.service} account is already linked to another user.`);
  }
  return change;
}

/**
 * The user's authData after an update: the change applied, and the anonymous link dropped once
 * the user sets a password (an anonymous user has become a regular one, as in Parse).
 * `undefined` leaves the field alone; `null` removes it.
 */
export function nextAuthData(current: unknown, change: AuthDataChange | null, passwordSet: boolean): Record<string, unknown> | null | undefined {
  const before = isPlainObject(current) ? current : {};
  const dropAnonymous = passwordSet && before.anonymous !== undefined && !change?.links.some((link) => link.service === 'anonymous');
  if (!change && !dropAnonymous) return undefined;
  const next: Record<string, unknown> = { ...before };
  for (const link of change?.links ?? []) next[link.service] = link.data;
  for (const service of change?.unlinks ?? []) delete next[service];
  if (dropAnonymous) delete next.anonymous;
  return Object.keys(next).length > 0 ? next : null;
}

async function logInLinked(ctx: RequestContext, user: StoredObject, links: readonly Link[]): Promise<Result> {
  // A new access token (or other fresh data) replaces what the user had stored for the service.
  let current = user;
  const stale = links.filter((link) => JSON.stringify(authDataOf(user)[link.service]) !== JSON.stringify(link.data));
  if (stale.length > 0) {
    // Basalt's own write: the caller has no session yet.
    const updated = await writeUpdate(ctx.app, INTERNAL, {
      className: USER,
      objectId: user.objectId,
      write: null,
      change: (latest) => {
        const authData = { ...authDataOf(latest), ...Object.fromEntries(stale.map((link) => [link.service, link.data])) };
        return { object: { ...latest, updatedAt: new Date().toISOString(), data: { ...latest.data, authData } }, relations: [] };
      },
    });
    if (updated) current = updated;
  }
  const session = await ctx.app.sessions.create(sessionFor(ctx, user.objectId, 'login', links[0]!.service));
  return ok({ ...(await renderUser(ctx, current, true)), sessionToken: session.data.sessionToken }, 200, { Location: userUrl(ctx, user.objectId) });
}

function authDataOf(user: StoredObject): Record<string, unknown> {
  return isPlainObject(user.data.authData) ? user.data.authData : {};
}

/** Parses authData, lets every service confirm its part, and makes sure the id indexes exist. */
async function checkedChange(ctx: RequestContext, authData: unknown, mayUnlink: boolean): Promise<AuthDataChange> {
  if (!isPlainObject(authData)) throw Errors.invalidLinkedSession('authData must be an object of services.');
  const links: Link[] = [];
  const unlinks: string[] = [];
  for (const [service, data] of Object.entries(authData)) {
    if (!SERVICE_NAME.test(service)) throw Errors.unsupportedService(`Unsupported authData service ${JSON.stringify(service.slice(0, 60))}.`);
    if (data === null || data === undefined) {
      if (mayUnlink) unlinks.push(service);
      continue;
    }
    const provider = providerFor(service);
    if (!provider) throw Errors.unsupportedService(`Unsupported authData service ${JSON.stringify(service)}.`);
    if (!provider.enabled(contextFor(ctx, service))) throw Errors.unsupportedService(`The authData service ${service} is not enabled for this app.`);
    if (!isPlainObject(data)) throw Errors.invalidLinkedSession(`authData.${service} must be an object.`);
    links.push({ service, provider, data, id: provider.idOf(data) });
  }
  for (const link of links) await link.provider.verify(link.data, contextFor(ctx, link.service));
  await ensureIdIndexes(ctx, links.map((link) => link.service));
  return { links, unlinks };
}

function contextFor(ctx: RequestContext, service: string): ProviderContext {
  return { settings: authProviderSettings(ctx.app.record.settings, service), options: ctx.userOptions };
}

/** The one user the links belong to; 208 when they belong to different users. */
async function ownerOf(ctx: RequestContext, links: readonly Link[]): Promise<StoredObject | null> {
  const owners = new Map<string, StoredObject>();
  for (const link of links) for (const user of await usersLinkedTo(ctx, link)) owners.set(user.objectId, user);
  if (owners.size > 1) throw Errors.accountAlreadyLinked('This authData is linked to more than one user.');
  return owners.values().next().value ?? null;
}

async function usersLinkedTo(ctx: RequestContext, link: Link): Promise<StoredObject[]> {
  return ctx.app.store.find(USER, {
    where: { kind: 'compare', field: { kind: 'doc', path: ['authData', link.service, 'id'] }, op: 'eq', value: link.id, as: 'text' },
    order: [],
    limit: 2,
    skip: 0,
  });
}

const indexedServices = new WeakMap<AppStore, Set<string>>();

/**
 * A unique index on `authData.<service>.id`, made the first time the service is used in an app:
 * it answers the look-ups above without a scan, and of two users linking one account at once
 * only one can win (the other gets 208). The schema change takes the class's lock, so processes
 * doing this at once do not collide; the index is not one of the schema API's own.
 */
async function ensureIdIndexes(ctx: RequestContext, services: readonly string[]): Promise<void> {
  let done = indexedServices.get(ctx.app.store);
  if (!done) indexedServices.set(ctx.app.store, (done = new Set()));
  const missing = [...new Set(services)].filter((service) => !done.has(service));
  if (missing.length === 0) return;
  await ensureBuiltinClass(ctx.app.schemas, USER);
  try {
    await ctx.app.schemas.change(
      USER,
      // A copy, so that the store sees a change and runs the index statements (they are idempotent).
      (current) => current && { ...current },
      () =>
        missing.map((service) => ({
          kind: 'createIndex' as const,
          name: authDataIndexName(service),
          keys: [{ field: { kind: 'doc' as const, path: ['authData', service, 'id'] }, as: 'text' as const, descending: false }],
          unique: true,
        })),
    );
  } catch (error) {
    // Users imported with one service id twice: the look-ups above still work (by scanning) and
    // still refuse new links to a taken id, only no longer under races; told once per process.
    ctx.log.warn({ services: missing, err: error instanceof Error ? error.message : String(error) }, 'could not create the unique authData index; some service ids are shared by several users');
  }
  for (const service of missing) done.add(service);
}
