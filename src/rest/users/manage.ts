import { Errors } from '../../errors/index.ts';
import { isPlainObject } from '../../encoding/values.ts';
import type { Acl } from '../../encoding/acl.ts';
import { hashPassword } from '../../auth/passwords.ts';
import { applyPlan, planWrite, type AppliedPlan } from '../write-plan.ts';
import { ok, principals, type RequestContext, type Result } from '../context.ts';
import { queryClass, type FindParams } from '../find.ts';
import { NO_SHAPE, shapeResults, type Shape } from '../shape.ts';
import { checkClassPermission, hideProtected } from '../../auth/clp.ts';
import { checkPassword, checkPasswordPolicy, checkUsername, isSelfOrMaster, normalizeEmail, refuseRestricted, renderUser, translateUnique, USER, USER_OWN_FIELDS } from './common.ts';
import { nextAuthData, prepareAuthDataChange } from './authdata.ts';
import { verificationSteps } from './email-verification.ts';
import { callerOf, writeDelete, writeUpdate } from '../write/pipeline.ts';

function notFound(objectId: string) {
  return Errors.objectNotFound(`User not found: ${JSON.stringify(objectId.slice(0, 40))}.`);
}

/**
 * GET /1/users/<objectId>: readable users; authData only to the user itself. `include` and
 * `keys` shape the answer as on any class.
 */
export async function getUser(ctx: RequestContext, objectId: string, shape: Shape = NO_SHAPE): Promise<Result> {
  await checkClassPermission(ctx, USER, 'get');
  const schema = await ctx.app.schemas.get(USER);
  if (!schema) throw notFound(objectId);
  const user = await ctx.app.store.get(USER, objectId, principals(ctx));
  if (!user) throw notFound(objectId);
  const self = isSelfOrMaster(ctx, objectId);
  const out = shape === NO_SHAPE ? await renderUser(ctx, user, self) : (await shapeResults(ctx, schema, [user], shape))[0]!;
  if (!self) delete out.authData;
  hideProtected(ctx.auth, schema, [user], [out]);
  return ok(out);
}

/** GET /1/users: spec 4.2 over users the caller may read; authData only on the caller's own. */
export async function findUsers(ctx: RequestContext, params: FindParams): Promise<Result> {
  const result = await queryClass(ctx, USER, params);
  const body = result.body as { results: Record<string, unknown>[] };
  for (const user of body.results) if (!isSelfOrMaster(ctx, String(user.objectId))) delete user.authData;
  return result;
}

/**
 * PUT /1/users/<objectId>: only the user itself (or the master key); another caller gets 206, as
 * the Parse SDKs expect (decisions.md). A new password is hashed, and with
 * revokeSessionOnPasswordChange every other session of the user ends.
 */
export async function updateUser(ctx: RequestContext, objectId: string, body: unknown): Promise<Result> {
  if (!isPlainObject(body)) throw Errors.invalidJson('The request body must be a JSON object.');
  if (!isSelfOrMaster(ctx, objectId)) throw Errors.sessionMissing('Only the user itself may change a user.');
  await checkClassPermission(ctx, USER, 'update');
  refuseRestricted(ctx);
  const { password, username, email, emailVerified, authData, ...fields } = body;
  if (emailVerified !== undefined && !ctx.auth.isMaster) throw Errors.operationForbidden('emailVerified is set by the server.');
  const name = username === undefined ? undefined : checkUsername(username);
  const mail = email === undefined ? undefined : email === null ? null : normalizeEmail(email);
  const hashed = password === undefined ? undefined : await hashPassword(checkPasswordPolicy(ctx.app.record.settings, checkPassword(password)));
  // Spec 4.3: `authData: {service: {...}}` links, `{service: null}` unlinks (authdata.ts).
  const link = authData === undefined ? null : await prepareAuthDataChange(ctx, objectId, authData);
  const plan = planWrite(fields, { ownFields: USER_OWN_FIELDS });
  if (!(await ctx.app.schemas.get(USER))) throw notFound(objectId);
  await ctx.app.schemas.ensureFields(USER, plan.types, { mayCreateClass: false });

  const updatedAt = new Date().toISOString();
  let applied: AppliedPlan | null = null;
  let edits: Readonly<Record<string, unknown>> = {};
  let updated;
  // An address given may be a new one: the token sweep runs outside the update's transaction.
  if (typeof mail === 'string' && ctx.app.record.settings.emailVerification === true) await ctx.app.tokens.sweepExpired(Date.now());
  try {
    updated = await writeUpdate(ctx.app, callerOf(ctx), {
      className: USER,
      objectId,
      write: principals(ctx),
      edited: (changed) => (edits = changed),
      change: (current) => {
        // Run on the object as read for the observers, then on the locked row: the last run counts.
        let emailChanged = false;
        const permissions = plan.permissions ?? { acl: (current.data.ACL as Acl | undefined) ?? null, rperm: current.rperm, wperm: current.wperm };
        applied = applyPlan(plan, current.data, permissions);
        const data: Record<string, unknown> = { ...applied.data };
        if (name !== undefined) data.username = name;
        if (hashed !== undefined) data._hashed_password = hashed;
        const linked = nextAuthData(current.data.authData, link, hashed !== undefined);
        if (linked === null) delete data.authData;
        else if (linked !== undefined) data.authData = linked;
        if (mail === null) {
          delete data.email;
          // Spec 3.1: without an address, emailVerified is absent.
          delete data.emailVerified;
        } else if (mail !== undefined && mail !== current.data.email) {
          data.email = mail;
          emailChanged = true;
          // Spec 3.1: a new email is unverified while verification is on.
          if (ctx.app.record.settings.emailVerification === true) data.emailVerified = false;
        }
        if (emailVerified !== undefined) data.emailVerified = emailVerified === true;
        // Spec 3.1: a changed address gets the confirmation mail, queued in this same transaction.
        const steps = emailChanged ? verificationSteps(ctx, objectId, data) : [];
        return { object: { ...current, updatedAt, data, rperm: permissions.rperm, wperm: permissions.wperm }, relations: applied.relations, steps };
      },
    });
  } catch (error) {
    throw translateUnique(error);
  }
  if (!updated || !applied) throw notFound(objectId);
  if (hashed !== undefined && ctx.app.record.settings.revokeSessionOnPasswordChange) {
    await ctx.app.sessions.removeAllOf(objectId, ctx.auth.userId === objectId ? (ctx.auth.session?.sessionId ?? null) : null);
  }
  // What before-hooks changed is answered as on any class; updatedAt is the write's own.
  return ok({ ...(applied as AppliedPlan).opResults, ...edits, updatedAt });
}

/** DELETE /1/users/<objectId>: the user itself or the master key; its sessions end with it. */
export async function deleteUser(ctx: RequestContext, objectId: string): Promise<Result> {
  if (!isSelfOrMaster(ctx, objectId)) throw Errors.sessionMissing('Only the user itself may delete a user.');
  await checkClassPermission(ctx, USER, 'delete');
  refuseRestricted(ctx);
  if (!(await ctx.app.schemas.get(USER)) || !(await writeDelete(ctx.app, callerOf(ctx), { className: USER, objectId, write: principals(ctx) }))) throw notFound(objectId);
  await ctx.app.sessions.removeAllOf(objectId);
  return ok({});
}
