import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import { and, type WhereNode } from '../query/ast.ts';
import { RESERVED_FIELDS, assertFieldName } from '../schema/names.ts';
import { decodeValue } from '../encoding/values.ts';
import { ok, type RequestContext, type Result } from './context.ts';
import { renderObject } from './render.ts';
import { queryClass, type FindParams } from './find.ts';
import type { StoredObject } from '../storage/port.ts';

const SESSION = '_Session';
/** Fields the server sets on a session; the rest are the client's custom fields (spec 2.7). */
const SERVER_FIELDS = new Set(['sessionToken', 'user', 'restricted', 'createdWith', 'expiresAt', 'installationId', 'ACL']);

/**
 * Spec 4.5: the session endpoints need a revocable session token (the master key sees all
 * sessions); a legacy token has no sessions to manage.
 */
function requireSession(ctx: RequestContext) {
  if (ctx.auth.isMaster) return null;
  const session = ctx.auth.session;
  if (!session) throw Errors.invalidSessionToken('A valid session token is required.');
  if (!session.token.startsWith('r:')) throw Errors.operationForbidden('Sessions are available to revocable session tokens only.');
  return session;
}

/** Spec 5 rule 5: restricted sessions cannot read unrestricted sessions. */
function visible(ctx: RequestContext, object: StoredObject | null): StoredObject | null {
  if (!object) return null;
  if (ctx.auth.isMaster) return object;
  if (object.data.user && (object.data.user as { objectId?: unknown }).objectId !== ctx.auth.userId) return null;
  if (ctx.auth.session?.restricted && object.data.restricted !== true) return null;
  return object;
}

async function render(ctx: RequestContext, object: StoredObject): Promise<Record<string, unknown>> {
  return renderObject(ctx, await ctx.app.schemas.get(SESSION), object);
}

function notFound(objectId: string) {
  return Errors.objectNotFound(`Session not found: ${JSON.stringify(objectId.slice(0, 40))}.`);
}

function customFields(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (!isPlainObject(body)) throw Errors.invalidJson('The request body must be a JSON object.');
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) {
    if (SERVER_FIELDS.has(field) || RESERVED_FIELDS.has(field)) throw Errors.invalidKeyName(`${field} is set by the server and cannot be written on a session.`);
    assertFieldName(field);
    out[field] = decodeValue(value, field).value;
  }
  return out;
}

/** POST /1/sessions: a restricted session for the caller's user (spec 3.2, 4.5). */
export async function createSession(ctx: RequestContext, body: unknown): Promise<Result> {
  const session = requireSession(ctx);
  if (!session) throw Errors.operationForbidden('Creating a session needs the session token of a user.');
  if (session.restricted) throw Errors.operationForbidden('A restricted session cannot create sessions.');
  const extra = customFields(body);
  const created = await ctx.app.sessions.create({ userId: session.userId, installationId: null, restricted: true, action: 'create', authProvider: 'password', extra });
  const out = await render(ctx, created);
  return ok(out, 201, { Location: `${ctx.publicUrl}/1/sessions/${created.objectId}` });
}

export async function getSessionMe(ctx: RequestContext): Promise<Result> {
  const session = requireSession(ctx);
  if (!session) throw Errors.invalidSessionToken('GET /1/sessions/me needs a session token.');
  const object = await ctx.app.store.get(SESSION, session.sessionId, null);
  if (!object) throw Errors.invalidSessionToken();
  return ok(await render(ctx, object));
}

export async function getSession(ctx: RequestContext, objectId: string): Promise<Result> {
  requireSession(ctx);
  const object = (await ctx.app.schemas.get(SESSION)) ? visible(ctx, await ctx.app.store.get(SESSION, objectId, null)) : null;
  if (!object) throw notFound(objectId);
  return ok(await render(ctx, object));
}

/** GET /1/sessions: the caller's user's sessions only, `where` allowed. */
export async function findSessions(ctx: RequestContext, params: FindParams): Promise<Result> {
  const session = requireSession(ctx);
  if (!session) return queryClass(ctx, SESSION, params);
  const own: WhereNode[] = [{ kind: 'compare', field: { kind: 'doc', path: ['user', 'objectId'] }, op: 'eq', value: session.userId, as: 'text' }];
  if (session.restricted) own.push({ kind: 'compare', field: { kind: 'doc', path: ['restricted'] }, op: 'eq', value: true, as: 'boolean' });
  return queryClass(ctx, SESSION, params, and(own));
}

/** PUT /1/sessions/<objectId>: custom fields only; `{updatedAt}`. */
export async function updateSession(ctx: RequestContext, objectId: string, body: unknown): Promise<Result> {
  requireSession(ctx);
  const fields = customFields(body);
  return ok({ updatedAt: await patch(ctx, objectId, fields) });
}

/** PUT /1/sessions/me with X-Svc-Installation-Id: pairs a restricted session with the installation. */
export async function pairSession(ctx: RequestContext, body: unknown): Promise<Result> {
  const session = requireSession(ctx);
  if (!session) throw Errors.invalidSessionToken('PUT /1/sessions/me needs a session token.');
  if (!session.restricted) throw Errors.operationForbidden('Only a restricted session can be paired with an installation.');
  if (!ctx.auth.installationId) throw Errors.missingRequiredField('X-Svc-Installation-Id is required to pair a session.');
  const fields = { ...customFields(body), installationId: ctx.auth.installationId };
  return ok({ updatedAt: await patch(ctx, session.sessionId, fields, true) });
}

async function patch(ctx: RequestContext, objectId: string, fields: Record<string, unknown>, serverFields = false): Promise<string> {
  const updatedAt = new Date().toISOString();
  const types = new Map(Object.entries(fields).map(([field, value]) => [field, decodeValue(value, field).type]).filter((entry): entry is [string, NonNullable<ReturnType<typeof decodeValue>['type']>] => entry[1] !== null));
  if (!(await ctx.app.schemas.get(SESSION))) throw notFound(objectId);
  if (!serverFields) await ctx.app.schemas.ensureFields(SESSION, types, { mayCreateClass: false });
  const updated = await ctx.app.store.update(SESSION, objectId, ctx.auth.isMaster ? null : [ctx.auth.userId ?? ''], (current) => {
    if (!visible(ctx, current)) throw notFound(objectId);
    return { object: { ...current, updatedAt, data: { ...current.data, ...fields } }, relations: [] };
  });
  if (!updated) throw notFound(objectId);
  await ctx.app.sessions.changed();
  return updatedAt;
}

/** DELETE /1/sessions/<objectId>: another session of the same user; the caller stays logged in. */
export async function deleteSession(ctx: RequestContext, objectId: string): Promise<Result> {
  requireSession(ctx);
  if (!ctx.auth.isMaster && ctx.auth.session?.restricted) throw Errors.operationForbidden('A restricted session cannot delete sessions.');
  const target = (await ctx.app.schemas.get(SESSION)) ? visible(ctx, await ctx.app.store.get(SESSION, objectId, null)) : null;
  if (!target) throw notFound(objectId);
  await ctx.app.sessions.remove(objectId);
  return ok({});
}
