import { Errors } from '../../errors/index.ts';
import { decodeAcl } from '../../encoding/acl.ts';
import { newObjectId } from '../../storage/ids.ts';
import { hashPassword } from '../../auth/passwords.ts';
import { ensureBuiltinClass } from '../../schema/builtin.ts';
import type { StoredObject } from '../../storage/port.ts';
import { applyPlan, planWrite } from '../write-plan.ts';
import type { RequestContext } from '../context.ts';
import { callerOf, writeCreate, type EditsListener } from '../write/pipeline.ts';
import { checkPasswordPolicy, normalizeEmail, translateUnique, USER, USER_OWN_FIELDS } from './common.ts';
import { verificationSteps } from './email-verification.ts';

/** A new user's fields: username always; password unless the user signs up through authData. */
export interface NewUserBody extends Record<string, unknown> {
  readonly username: string;
  readonly password?: string;
  readonly authData?: Readonly<Record<string, unknown>>;
}

/**
 * Writes a new user and, when the app verifies addresses, the confirmation mail of spec 3.1 in
 * the same transaction. Shared by password and authData sign-up. `edited` hears what the
 * before-hooks changed, for the answer.
 */
export async function insertUser(ctx: RequestContext, body: NewUserBody, edited?: EditsListener): Promise<StoredObject> {
  const { password, username, email, emailVerified, authData, ...fields } = body;
  const secret = password === undefined ? undefined : checkPasswordPolicy(ctx.app.record.settings, password);
  const mail = email === undefined || email === null ? undefined : normalizeEmail(email);
  if (emailVerified !== undefined && !ctx.auth.isMaster) throw Errors.operationForbidden('emailVerified is set by the server.');

  const plan = planWrite(fields, { ownFields: USER_OWN_FIELDS });
  const schemas = ctx.app.schemas;
  await ensureBuiltinClass(schemas, USER);
  if (await usernameTaken(ctx, username)) throw Errors.usernameTaken('This username is already taken.');
  await schemas.ensureFields(USER, new Map(plan.types), { mayCreateClass: true });

  const objectId = newObjectId();
  // Parse's default for a new user: everyone may read, only the user may write.
  const permissions = plan.permissions ?? decodeAcl({ '*': { read: true }, [objectId]: { read: true, write: true } });
  const applied = applyPlan(plan, {}, permissions);
  const data: Record<string, unknown> = { ...applied.data, username };
  if (secret !== undefined) data._hashed_password = await hashPassword(secret);
  if (authData !== undefined) data.authData = authData;
  if (mail !== undefined) data.email = mail;
  // Spec 3.1: never verified at creation while verification is on.
  if (ctx.app.record.settings.emailVerification === true && mail !== undefined) data.emailVerified = false;
  else if (emailVerified !== undefined) data.emailVerified = emailVerified === true;
  const now = new Date().toISOString();
  const user: StoredObject = { objectId, createdAt: now, updatedAt: now, data, rperm: permissions.rperm, wperm: permissions.wperm };
  // Spec 3.1's confirmation mail is written with the user: both are stored, or neither.
  const steps = verificationSteps(ctx, objectId, data);
  if (steps.length > 0) await ctx.app.tokens.sweepExpired(Date.now());
  try {
    await writeCreate(ctx.app, callerOf(ctx), { className: USER, write: { object: user, relations: applied.relations, steps }, ...(edited ? { edited } : {}) });
  } catch (error) {
    throw translateUnique(error);
  }
  return user;
}

async function usernameTaken(ctx: RequestContext, username: string): Promise<boolean> {
  const found = await ctx.app.store.find(USER, {
    where: { kind: 'compare', field: { kind: 'doc', path: ['username'] }, op: 'eq', value: username, as: 'text' },
    order: [],
    limit: 1,
    skip: 0,
  });
  return found.length > 0;
}
