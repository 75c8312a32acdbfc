import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import { and, type WhereNode } from '../query/ast.ts';
import { RESERVED_FIELDS, assertFieldName } from '../schema/names.ts';
import { decodeValue } from '../encoding/values.ts';
import { ok, type RequestContext, type Result } from './context.ts';
import { renderObject } from './render.ts';
import { queryClass, type FindParams } from './find.ts';
import { checkClassPermission } from '../auth/clp.ts';
import type { StoredObject } from '../storage/port.ts';
import type { FieldType } from '../schema/types.ts';
import { RESTRICTED_ONLY } from '../auth/sessions.ts';
import { sessionLengthOf } from '../apps/settings.ts';
import { callerOf, writeUpdate } from './write/pipeline.ts';

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

/** Spec 5 rules 5 and 7: only the session's own user sees it, and a restricted session only restricted ones. */
function visible(ctx: RequestContext, object: StoredObject | null): StoredObject | null {
  if (!object) return null;
  if (ctx.auth.isMaster) return object;
  const owner = object.data.user as { objectId?: unknown } | undefined;
  if (ctx.auth.userId === null || owner?.objectId !== ctx.auth.userId) return null;
  if (ctx.auth.session?.restricted && object.data.restricted !== true) return null;
  return object;
}

/** Spec 5 rule 5: a restricted session may not create, change or delete sessions (pairing aside). */
function refuseRestricted(ctx: RequestContext, what: string): void {
  if (!ctx.auth.isMaster && ctx.auth.session?.restricted) throw Errors.operationForbidden(`A restricted session cannot ${what} sessions.`);
}

async function render(ctx: RequestContext, object: StoredObject): Promise<Record<string, unknown>> {
  return renderObject(ctx, await ctx.app.schemas.get(SESSION), object);
}

function notFound(objectId: string) {
  return Errors.objectNotFound(`Session not found: ${JSON.stringify(objectId.slice(0, 40))}.`);
}

/** The client's fields of a session body, decoded, with the schema types they need. */
interface CustomFields {
  readonly values: Record<string, unknown>;
  readonly types: Map<string, FieldType>;
}

/** Server fields are refused with 105, as Parse does: the ACL, the user and the token cannot change. */
function customFields(body: unknown): CustomFields {
  const fields: CustomFields = { values: {}, types: new Map() };
  if (body === undefined) return fields;
  if (!isPlainObject(body)) throw Errors.invalidJson('The request body must be a JSON object.');
  for (const [field, value] of Object.entries(body)) {
    if (SERVER_FIELDS.has(field) || RESERVED_FIELDS.has(field)) throw Errors.invalidKeyName(`${field} is set by the server and cannot be written on a session.`);
    assertFieldName(field);
    const decoded = decodeValue(value, field);
    fields.values[field] = decoded.value;
    if (decoded.type !== null) fields.types.set(field, decoded.type);
  }
  return fields;
}

/** Custom fields join the Session schema like fields of any class, so their types are checked. */
async function ensureCustomFields(ctx: RequestContext, fields: CustomFields): Promise<void> {
  if (fields.types.size > 0) await ctx.app.schemas.ensureFields(SESSION, fields.types, { mayCreateClass: false });
}

/**
 * POST /1/sessions: a restricted session for the caller's user (spec 3.2, 4.5), answered with
 * exactly the fields spec 4.5 lists; custom fields are stored and read back with GET.
 */
export async function createSession(ctx: RequestContext, body: unknown): Promise<Result> {
  const session = requireSession(ctx);
  if (!session) throw Errors.operationForbidden('Creating a session needs the session token of a user.');
  await checkClassPermission(ctx, SESSION, 'create');
  refuseRestricted(ctx, 'create');
  const fields = customFields(body);
  await ensureCustomFields(ctx, fields);
  // Restricted sessions expire like the ones login hands out, as in Parse Server.
  const length = sessionLengthOf(ctx.app.record.settings);
  const created = await ctx.app.sessions.create({ userId: session.userId, installationId: null, restricted: true, action: 'create', extra: fields.values, ...(length ? { lengthSeconds: length } : {}) });
  const { createdWith, sessionToken } = created.data;
  const out = { createdAt: created.createdAt, createdWith, objectId: created.objectId, restricted: true, sessionToken };
  return ok(out, 201, { Location: `${ctx.publicUrl}/1/sessions/${encodeURIComponent(created.objectId)}` });
}

export async function getSessionMe(ctx: RequestContext): Promise<Result> {
  const session = requireSession(ctx);
  if (!session) throw Errors.invalidSessionToken('GET /1/sessions/me needs a session token.');
  await checkClassPermission(ctx, SESSION, 'get');
  const object = await ctx.app.store.get(SESSION, session.sessionId, null);
  if (!object) throw Errors.invalidSessionToken();
  return ok(await render(ctx, object));
}

export async function getSession(ctx: RequestContext, objectId: string): Promise<Result> {
  requireSession(ctx);
  await checkClassPermission(ctx, SESSION, 'get');
  const object = (await ctx.app.schemas.get(SESSION)) ? visible(ctx, await ctx.app.store.get(SESSION, objectId, null)) : null;
  if (!object) throw notFound(objectId);
  return ok(await render(ctx, object));
}

/** GET /1/sessions: the caller's user's sessions only, `where` allowed. */
export async function findSessions(ctx: RequestContext, params: FindParams): Promise<Result> {
  const session = requireSession(ctx);
  if (!session) return queryClass(ctx, SESSION, params);
  const own: WhereNode[] = [{ kind: 'compare', field: { kind: 'doc', path: ['user', 'objectId'] }, op: 'eq', value: session.userId, as: 'text' }];
  if (session.restricted) own.push(RESTRICTED_ONLY);
  return queryClass(ctx, SESSION, params, and(own));
}

/** PUT /1/sessions/<objectId>: custom fields only; `{updatedAt}`. */
export async function updateSession(ctx: RequestContext, objectId: string, body: unknown): Promise<Result> {
  requireSession(ctx);
  await checkClassPermission(ctx, SESSION, 'update');
  refuseRestricted(ctx, 'change');
  const fields = customFields(body);
  return ok({ updatedAt: await patch(ctx, objectId, fields) });
}

/**
 * PUT /1/sessions/me with X-Svc-Installation-Id: pairs a restricted session with the
 * installation. One session exists per user and installation (spec 2.7), so the pairing
 * replaces any other session the user had on that installation.
 */
export async function pairSession(ctx: RequestContext, body: unknown): Promise<Result> {
  const session = requireSession(ctx);
  if (!session) throw Errors.invalidSessionToken('PUT /1/sessions/me needs a session token.');
  await checkClassPermission(ctx, SESSION, 'update');
  if (!session.restricted) throw Errors.operationForbidden('Only a restricted session can be paired with an installation.');
  const installationId = ctx.auth.installationId;
  if (!installationId) throw Errors.missingRequiredField('X-Svc-Installation-Id is required to pair a session.');
  const updatedAt = await patch(ctx, session.sessionId, customFields(body), installationId);
  await ctx.app.sessions.removeOnInstallation(session.userId, installationId, session.sessionId);
  return ok({ updatedAt });
}

/** Writes custom fields (and, for pairing, the installation) onto a session the caller may see. */
async function patch(ctx: RequestContext, objectId: string, fields: CustomFields, installationId?: string): Promise<string> {
  // Looked up first, so that a session the caller cannot see gains no schema fields either.
  const schema = await ctx.app.schemas.get(SESSION);
  if (!schema || !visible(ctx, await ctx.app.store.get(SESSION, objectId, null))) throw notFound(objectId);
  await ensureCustomFields(ctx, fields);
  const updatedAt = new Date().toISOString();
  const changes = installationId === undefined ? fields.values : { ...fields.values, installationId };
  const updated = await writeUpdate(ctx.app, callerOf(ctx), {
    className: SESSION,
    objectId,
    write: ctx.auth.isMaster ? null : [ctx.auth.userId ?? ''],
    change: (current) => {
      if (!visible(ctx, current)) throw notFound(objectId);
      return { object: { ...current, updatedAt, data: { ...current.data, ...changes } }, relations: [] };
    },
  });
  if (!updated) throw notFound(objectId);
  // A token's cached session carries its installation; custom fields are not part of it.
  if (installationId !== undefined) await ctx.app.sessions.changed();
  return updatedAt;
}

/** DELETE /1/sessions/<objectId>: another session of the same user; the caller stays logged in. */
export async function deleteSession(ctx: RequestContext, objectId: string): Promise<Result> {
  requireSession(ctx);
  await checkClassPermission(ctx, SESSION, 'delete');
  refuseRestricted(ctx, 'delete');
  const target = (await ctx.app.schemas.get(SESSION)) ? visible(ctx, await ctx.app.store.get(SESSION, objectId, null)) : null;
  if (!target) throw notFound(objectId);
  await ctx.app.sessions.remove(objectId);
  return ok({});
}
