import { Errors } from '../errors/index.ts';
import { PUBLIC, type Acl } from '../encoding/acl.ts';
import { isoTimestamp, newObjectId } from '../storage/ids.ts';
import { documentJson } from '../encoding/document-json.ts';
import { classGrant, grantAllows, grantWhere, hideProtected, type ClassGrant } from '../auth/clp.ts';
import type { ClassSchema } from '../schema/types.ts';
import type { StoredObject } from '../storage/port.ts';
import { applyPlan, planWrite, type AppliedPlan, type WritePlan } from './write-plan.ts';
import { ok, principals, type RequestContext, type Result } from './context.ts';
import { objectUrl } from './render.ts';
import { callerOf, writeCreate, writeDelete, writeInPlace, writeUpdate } from './write/pipeline.ts';
import { inPlaceChange } from './write/in-place.ts';
import { NO_SHAPE, shapeResults, type Shape } from './shape.ts';
import { assertGenericClass } from './class-access.ts';
import { encodeObject, JsonText, sendableAsStored } from './encoded.ts';
import { findTriggersOf, plainBody, queryAfterBeforeFind, resultsAfterAfterFind, type FindTriggers } from './find-triggers.ts';
import { queryUntriggered } from './find.ts';

/** POST /1/classes/<className> (spec 4.1): 201, Location, {objectId, createdAt}. */
export async function createObject(ctx: RequestContext, className: string, body: unknown): Promise<Result> {
  assertGenericClass(ctx, className, 'write');
  return insertObject(ctx, className, planWrite(body), {
    mayCreateClass: ctx.auth.isMaster || ctx.app.record.settings.clientClassCreationEnabled,
    location: (objectId) => objectUrl(ctx, className, objectId),
  });
}

export interface InsertOptions {
  readonly mayCreateClass: boolean;
  readonly location: (objectId: string) => string;
  /** Turns a storage error (a unique index) into the endpoint's own. */
  readonly translate?: (error: unknown) => unknown;
}

/**
 * Creates an object of any class once its endpoint has checked the body: the class's `create`
 * permission, and `addField` for fields the class does not have yet. A class that does not exist
 * is created with the public default permissions, so there is nothing to check.
 */
export async function insertObject(ctx: RequestContext, className: string, plan: WritePlan, options: InsertOptions): Promise<Result> {
  const schema = ctx.app.schemas.loaded(className) ?? (await ctx.app.schemas.get(className));
  if (schema) {
    classGrant(ctx.auth, schema, 'create');
    if (addsFields(schema, plan)) classGrant(ctx.auth, schema, 'addField');
  }
  const permissions = plan.permissions ?? PUBLIC;
  const applied = applyPlan(plan, {}, permissions);
  checkSize(ctx, applied);
  await ctx.app.schemas.ensureFields(className, plan.types, { mayCreateClass: options.mayCreateClass });
  const millis = Date.now();
  const now = isoTimestamp(millis);
  const object = { objectId: newObjectId(millis), createdAt: now, updatedAt: now, data: applied.data, rperm: permissions.rperm, wperm: permissions.wperm };
  let edits: Readonly<Record<string, unknown>> | null = null;
  try {
    await writeCreate(ctx.app, callerOf(ctx), { className, write: { object, relations: applied.relations }, edited: (changed) => (edits = changed) });
  } catch (error) {
    throw options.translate ? options.translate(error) : error;
  }
  // What before-hooks changed is answered too, as Parse Server does (the SDKs merge it into the object).
  return ok({ ...applied.opResults, ...(edits ?? {}), objectId: object.objectId, createdAt: now }, 201, { Location: options.location(object.objectId) });
}

/** GET /1/classes/<className>/<objectId>: unreadable and missing objects both answer 101. */
export function getObject(ctx: RequestContext, className: string, objectId: string, shape: Shape = NO_SHAPE): Promise<Result> {
  assertGenericClass(ctx, className, 'read');
  return readObject(ctx, className, objectId, shape);
}

/** One object of any class, as the caller may see it: `get` permission, ACL, protected fields. */
export async function readObject(ctx: RequestContext, className: string, objectId: string, shape: Shape = NO_SHAPE): Promise<Result> {
  const triggers = findTriggersOf(ctx, className);
  return triggers ? readWithTriggers(ctx, className, objectId, shape, triggers) : readUntriggered(ctx, className, objectId, shape);
}

/**
 * A get with cloud code's beforeFind or afterFind, as Parse Server runs them: the beforeFind sees
 * a query of the object's id (`isGet`); when it changes that query, the object is the first result
 * of the changed query (a find, under the class's `find` permission); the afterFind may replace or
 * drop the object (then 101).
 */
async function readWithTriggers(ctx: RequestContext, className: string, objectId: string, shape: Shape, triggers: FindTriggers): Promise<Result> {
  let result: Result | null = null;
  if (triggers.before) {
    const byId = { where: { objectId } };
    const query = await queryAfterBeforeFind(ctx, className, triggers.before, {}, { where: byId.where, count: false, isGet: true });
    // Undefined parts drop out of the text: it equals the id's query when the trigger changed nothing.
    if (JSON.stringify(query) !== JSON.stringify(byId)) {
      const [first] = plainBody(await queryUntriggered(ctx, className, { ...query, limit: 1 })).results as Record<string, unknown>[];
      if (!first) throw notFound(className, objectId);
      result = ok(first);
    }
  }
  result ??= await readUntriggered(ctx, className, objectId, shape);
  if (!triggers.after) return result;
  const objects = await resultsAfterAfterFind(ctx, className, triggers.after, [plainBody(result)]);
  if (!objects) return result;
  if (!objects[0]) throw notFound(className, objectId);
  return ok(objects[0]);
}

async function readUntriggered(ctx: RequestContext, className: string, objectId: string, shape: Shape): Promise<Result> {
  const schema = ctx.app.schemas.loaded(className) ?? (await ctx.app.schemas.get(className));
  if (!schema) throw notFound(className, objectId);
  const grant = classGrant(ctx.auth, schema, 'get');
  const object = await ctx.app.store.get(className, objectId, principals(ctx));
  if (!object || !grantAllows(grant, object, ctx.auth.userId)) throw notFound(className, objectId);
  if (sendableAsStored(ctx, schema, shape)) return ok(new JsonText(encodeObject(ctx, schema, object)));
  const rendered = await shapeResults(ctx, schema, [object], shape);
  hideProtected(ctx.auth, schema, [object], rendered);
  return ok(rendered[0]);
}

/** PUT /1/classes/<className>/<objectId>: {updatedAt} plus the results of operators. */
export async function updateObject(ctx: RequestContext, className: string, objectId: string, body: unknown): Promise<Result> {
  assertGenericClass(ctx, className, 'write');
  return modifyObject(ctx, className, objectId, planWrite(body));
}

/**
 * Updates an object of any class: `update` permission (and `addField` for new fields), then the
 * write ACL and the grant's user fields on the row as it is locked. `guard` sees the current
 * object before anything changes (a role's name cannot change).
 */
export async function modifyObject(ctx: RequestContext, className: string, objectId: string, plan: WritePlan, guard?: (current: StoredObject) => void): Promise<Result> {
  const schema = await ctx.app.schemas.get(className);
  if (!schema) throw notFound(className, objectId);
  const grant = classGrant(ctx.auth, schema, 'update');
  // A write that would add fields to the class must not add them for an object that is not
  // there (or not the caller's to change): look first, but only on that rare path.
  if (addsFields(schema, plan)) {
    classGrant(ctx.auth, schema, 'addField');
    if (!(await writable(ctx, className, objectId, grant))) throw notFound(className, objectId);
  }
  await ctx.app.schemas.ensureFields(className, plan.types, { mayCreateClass: false });
  let applied: AppliedPlan | null = null;
  let edits: Readonly<Record<string, unknown>> | null = null;
  const updatedAt = new Date().toISOString();
  // One statement where the row need not be read: no guard, no class-level user fields to check
  // on it. A change it does not make (missing, not writable, a type or size to check) is made,
  // or refused, by the path below, which answers as it always has.
  const inPlace = guard || grant.userFields ? null : inPlaceChange(plan, updatedAt, ctx.limits.objectSize);
  if (inPlace) {
    const results = await writeInPlace(ctx.app, { className, objectId, write: principals(ctx), change: inPlace });
    if (results) return ok({ updatedAt, ...results });
  }
  const updated = await writeUpdate(ctx.app, callerOf(ctx), {
    className,
    objectId,
    edited: (changed) => (edits = changed),
    write: principals(ctx),
    change: (current) => {
      if (!grantAllows(grant, current, ctx.auth.userId)) throw notFound(className, objectId);
      guard?.(current);
      const permissions = plan.permissions ?? { acl: (current.data.ACL as Acl | undefined) ?? null, rperm: current.rperm, wperm: current.wperm };
      applied = applyPlan(plan, current.data, permissions);
      checkSize(ctx, applied);
      return { object: { ...current, updatedAt, data: applied.data, rperm: permissions.rperm, wperm: permissions.wperm }, relations: applied.relations };
    },
  });
  if (!updated || !applied) throw notFound(className, objectId);
  return ok({ ...(applied as AppliedPlan).opResults, ...(edits ?? {}), updatedAt });
}

/** DELETE /1/classes/<className>/<objectId>: `{}`. Files the object points to are kept. */
export async function deleteObject(ctx: RequestContext, className: string, objectId: string): Promise<Result> {
  assertGenericClass(ctx, className, 'write');
  return removeObject(ctx, className, objectId);
}

/** Deletes an object of any class: `delete` permission, write ACL and user fields, in one statement. */
export async function removeObject(ctx: RequestContext, className: string, objectId: string): Promise<Result> {
  const schema = await ctx.app.schemas.get(className);
  if (!schema) throw notFound(className, objectId);
  const grant = classGrant(ctx.auth, schema, 'delete');
  const limit = grant.userFields ? grantWhere(grant, schema, ctx.auth.userId) : undefined;
  if (!(await writeDelete(ctx.app, callerOf(ctx), { className, objectId, write: principals(ctx), where: limit }))) throw notFound(className, objectId);
  return ok({});
}

async function writable(ctx: RequestContext, className: string, objectId: string, grant: ClassGrant): Promise<boolean> {
  if (!(await ctx.app.store.canWrite(className, objectId, principals(ctx)))) return false;
  if (!grant.userFields) return true;
  const current = await ctx.app.store.get(className, objectId, null);
  return current !== null && grantAllows(grant, current, ctx.auth.userId);
}

function addsFields(schema: ClassSchema, plan: WritePlan): boolean {
  return [...plan.types.keys()].some((field) => !Object.hasOwn(schema.fields, field));
}

/** The same answer for an object that is missing and one the caller may not see or change. */
export function notFound(className: string, objectId: string) {
  return Errors.objectNotFound(`Object not found: ${className} ${JSON.stringify(objectId.slice(0, 40))}.`);
}

/** The encoded text is kept for the insert that follows (encoding/document-json.ts). */
function checkSize(ctx: RequestContext, applied: AppliedPlan): void {
  const size = Buffer.byteLength(documentJson(applied.data));
  if (size > ctx.limits.objectSize) throw Errors.objectTooLarge(`The object is ${size} bytes encoded; at most ${ctx.limits.objectSize} are allowed.`);
}
