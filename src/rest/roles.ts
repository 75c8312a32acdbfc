import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import { removesAcl } from '../encoding/acl.ts';
import { ROLE } from '../auth/roles.ts';
import { classGrant } from '../auth/clp.ts';
import { ensureBuiltinClass } from '../schema/builtin.ts';
import { UniqueViolation } from '../storage/port.ts';
import { planWrite } from './write-plan.ts';
import { insertObject, modifyObject, readObject, removeObject } from './objects.ts';
import { queryClass, type FindParams } from './find.ts';
import type { Shape } from './shape.ts';
import { refuseRestricted } from './users/common.ts';
import type { RequestContext, Result } from './context.ts';
import { quote } from '../errors/quote.ts';

/** Spec 2.5: alphanumerics, spaces, `-` and `_` (the same characters an ACL's `role:<name>` takes). */
const NAME = /^[A-Za-z0-9_ -]+$/;

export function roleUrl(ctx: RequestContext, objectId: string): string {
  return `${ctx.publicUrl}/1/roles/${encodeURIComponent(objectId)}`;
}

/**
 * POST /1/roles (spec 4.4): a name and an ACL are required; `users` and `roles` may be given as
 * AddRelation. 201, Location, `{objectId, createdAt}`. A missing or malformed name answers 139,
 * a missing ACL 123, a name in use 137.
 */
export async function createRole(ctx: RequestContext, body: unknown): Promise<Result> {
  const input = bodyObject(body);
  refuseRestricted(ctx);
  const name = checkName(input.name);
  if (!isPlainObject(input.ACL) || removesAcl(input.ACL)) throw Errors.invalidAcl('A role needs an ACL (spec 2.5); {} leaves it to the master key.');
  const plan = planWrite(input);
  // Permission first, so that a caller who may not create roles cannot probe names either.
  classGrant(ctx.auth, await ensureBuiltinClass(ctx.app.schemas, ROLE), 'create');
  // The unique index decides between concurrent creates; this look-up also covers a _Role class
  // made through the schema API, which has no such index.
  if (await nameTaken(ctx, name)) throw duplicateName(name);
  const result = await insertObject(ctx, ROLE, plan, {
    mayCreateClass: true,
    location: (objectId) => roleUrl(ctx, objectId),
    translate: (error) => (error instanceof UniqueViolation ? duplicateName(name) : error),
  });
  await ctx.app.roles.changed();
  return result;
}

/** GET /1/roles/<objectId>: name, ACL and the built-in fields; the relations are not shown (spec 2.5). */
export function getRole(ctx: RequestContext, objectId: string, shape?: Shape): Promise<Result> {
  return readObject(ctx, ROLE, objectId, shape);
}

/** GET /1/roles: spec 4.2 over the roles the caller may read; members are found with `$relatedTo`. */
export function findRoles(ctx: RequestContext, params: FindParams): Promise<Result> {
  return queryClass(ctx, ROLE, params);
}

/**
 * PUT /1/roles/<objectId>: AddRelation / RemoveRelation on `users` and `roles`, other fields, a
 * new ACL. Needs write access to the role (its ACL) or the master key. The name cannot change:
 * a different name answers 136 (the same name, as an SDK saving the whole role sends it, is fine).
 */
export async function updateRole(ctx: RequestContext, objectId: string, body: unknown): Promise<Result> {
  const input = bodyObject(body);
  refuseRestricted(ctx);
  if (Object.hasOwn(input, 'ACL') && (!isPlainObject(input.ACL) || removesAcl(input.ACL))) throw Errors.invalidAcl('A role always has an ACL; {} leaves it to the master key.');
  const plan = planWrite(input);
  const result = await modifyObject(ctx, ROLE, objectId, plan, (current) => {
    if (Object.hasOwn(input, 'name') && input.name !== current.data.name) throw Errors.changedImmutableField("A role's name cannot change once the role is created.");
  });
  await ctx.app.roles.changed();
  return result;
}

/** DELETE /1/roles/<objectId>: the master key, or a user with write access to the role. `{}`. */
export async function deleteRole(ctx: RequestContext, objectId: string): Promise<Result> {
  refuseRestricted(ctx);
  const result = await removeObject(ctx, ROLE, objectId);
  await ctx.app.roles.changed();
  return result;
}

function bodyObject(body: unknown): Record<string, unknown> {
  if (!isPlainObject(body)) throw Errors.invalidJson('The request body must be a JSON object.');
  return body;
}

function checkName(value: unknown): string {
  if (value === undefined || value === null || value === '') throw Errors.invalidRoleName('A role needs a name.');
  if (typeof value !== 'string' || !NAME.test(value)) {
    throw Errors.invalidRoleName(`Invalid role name ${quote(value)}: use letters, digits, spaces, "-" and "_".`);
  }
  return value;
}

function duplicateName(name: string) {
  return Errors.duplicateValue(`A role named ${JSON.stringify(name.slice(0, 80))} exists already.`);
}

async function nameTaken(ctx: RequestContext, name: string): Promise<boolean> {
  const found = await ctx.app.store.find(ROLE, {
    where: { kind: 'compare', field: { kind: 'doc', path: ['name'] }, op: 'eq', value: name, as: 'text' },
    order: [],
    limit: 1,
    skip: 0,
  });
  return found.length > 0;
}
