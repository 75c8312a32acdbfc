import { Errors } from '../errors/index.ts';
import { PUBLIC, type Acl } from '../encoding/acl.ts';
import { newObjectId } from '../apps/ids.ts';
import { applyPlan, planWrite, type AppliedPlan } from './write-plan.ts';
import { ok, principals, type RequestContext, type Result } from './context.ts';
import { objectUrl } from './render.ts';
import { shapeResults, type Shape } from './shape.ts';

const NO_SHAPE: Shape = { include: [], keys: undefined };
import { assertGenericClass } from './class-access.ts';

/** POST /1/classes/<className> (spec 4.1): 201, Location, {objectId, createdAt}. */
export async function createObject(ctx: RequestContext, className: string, body: unknown): Promise<Result> {
  assertGenericClass(ctx, className, 'write');
  const plan = planWrite(body);
  const permissions = plan.permissions ?? PUBLIC;
  const applied = applyPlan(plan, {}, permissions);
  checkSize(ctx, applied);
  await ctx.app.schemas.ensureFields(className, plan.types, {
    mayCreateClass: ctx.auth.isMaster || ctx.app.record.settings.clientClassCreationEnabled,
  });
  const now = new Date().toISOString();
  const object = { objectId: newObjectId(), createdAt: now, updatedAt: now, data: applied.data, rperm: permissions.rperm, wperm: permissions.wperm };
  await ctx.app.store.insert(className, { object, relations: applied.relations });
  return ok({ objectId: object.objectId, createdAt: now, ...applied.opResults }, 201, { Location: objectUrl(ctx, className, object.objectId) });
}

/** GET /1/classes/<className>/<objectId>: unreadable and missing objects both answer 101. */
export async function getObject(ctx: RequestContext, className: string, objectId: string, shape: Shape = NO_SHAPE): Promise<Result> {
  assertGenericClass(ctx, className, 'read');
  const schema = await ctx.app.schemas.get(className);
  if (!schema) throw notFound(className, objectId);
  const object = await ctx.app.store.get(className, objectId, principals(ctx));
  if (!object) throw notFound(className, objectId);
  return ok((await shapeResults(ctx, schema, [object], shape))[0]);
}

/** PUT /1/classes/<className>/<objectId>: {updatedAt} plus the results of operators. */
export async function updateObject(ctx: RequestContext, className: string, objectId: string, body: unknown): Promise<Result> {
  assertGenericClass(ctx, className, 'write');
  const plan = planWrite(body);
  const schema = await ctx.app.schemas.get(className);
  if (!schema) throw notFound(className, objectId);
  // A write that would add fields to the class must not add them for an object that is not
  // there (or not the caller's to change): look first, but only on that rare path.
  const addsFields = [...plan.types.keys()].some((field) => !Object.hasOwn(schema.fields, field));
  if (addsFields && !(await ctx.app.store.canWrite(className, objectId, principals(ctx)))) throw notFound(className, objectId);
  await ctx.app.schemas.ensureFields(className, plan.types, { mayCreateClass: false });
  let applied: AppliedPlan | null = null;
  const updatedAt = new Date().toISOString();
  const updated = await ctx.app.store.update(className, objectId, principals(ctx), (current) => {
    const permissions = plan.permissions ?? { acl: (current.data.ACL as Acl | undefined) ?? null, rperm: current.rperm, wperm: current.wperm };
    applied = applyPlan(plan, current.data, permissions);
    checkSize(ctx, applied);
    return { object: { ...current, updatedAt, data: applied.data, rperm: permissions.rperm, wperm: permissions.wperm }, relations: applied.relations };
  });
  if (!updated || !applied) throw notFound(className, objectId);
  return ok({ updatedAt, ...(applied as AppliedPlan).opResults });
}

/** DELETE /1/classes/<className>/<objectId>: `{}`. Files the object points to are kept. */
export async function deleteObject(ctx: RequestContext, className: string, objectId: string): Promise<Result> {
  assertGenericClass(ctx, className, 'write');
  const schema = await ctx.app.schemas.get(className);
  if (!schema || !(await ctx.app.store.delete(className, objectId, principals(ctx)))) throw notFound(className, objectId);
  return ok({});
}

function notFound(className: string, objectId: string) {
  return Errors.objectNotFound(`Object not found: ${className} ${JSON.stringify(objectId.slice(0, 40))}.`);
}

function checkSize(ctx: RequestContext, applied: AppliedPlan): void {
  const size = Buffer.byteLength(JSON.stringify(applied.data));
  if (size > ctx.limits.objectSize) throw Errors.objectTooLarge(`The object is ${size} bytes encoded; at most ${ctx.limits.objectSize} are allowed.`);
}
