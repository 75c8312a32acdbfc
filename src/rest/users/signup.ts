import { Errors } from '../../errors/index.ts';
import { isPlainObject } from '../../encoding/values.ts';
import { decodeAcl } from '../../encoding/acl.ts';
import { newObjectId } from '../../apps/ids.ts';
import { hashPassword } from '../../auth/passwords.ts';
import { ensureBuiltinClass } from '../../schema/builtin.ts';
import { applyPlan, planWrite } from '../write-plan.ts';
import { ok, type RequestContext, type Result } from '../context.ts';
import { checkPassword, checkUsername, normalizeEmail, refuseRestricted, sessionFor, translateUnique, USER, userUrl } from './common.ts';

/**
 * POST /1/users with a username and password (spec 4.3): 201, Location, `{objectId, createdAt,
 * sessionToken}`. Username and email are unique through unique indexes, so of concurrent
 * sign-ups with one name exactly one wins and the others get 202.
 */
export async function signUp(ctx: RequestContext, body: unknown): Promise<Result> {
  if (!isPlainObject(body)) throw Errors.invalidJson('The request body must be a JSON object.');
  refuseRestricted(ctx);
  const { password, username, email, emailVerified, authData, ...fields } = body;
  if (authData !== undefined) throw Errors.unsupportedService('Sign-up with authData is not available yet.');
  const name = checkUsername(username);
  const secret = checkPassword(password);
  const mail = email === undefined || email === null ? undefined : normalizeEmail(email);
  if (emailVerified !== undefined && !ctx.auth.isMaster) throw Errors.operationForbidden('emailVerified is set by the server.');

  const plan = planWrite(fields);
  const schemas = ctx.app.schemas;
  await ensureBuiltinClass(schemas, USER);
  if (await usernameTaken(ctx, name)) throw Errors.usernameTaken('This username is already taken.');
  const types = new Map(plan.types);
  await schemas.ensureFields(USER, types, { mayCreateClass: true });

  const objectId = newObjectId();
  // Parse's default for a new user: everyone may read, only the user may write.
  const permissions = plan.permissions ?? decodeAcl({ '*': { read: true }, [objectId]: { read: true, write: true } });
  const applied = applyPlan(plan, {}, permissions);
  const data: Record<string, unknown> = { ...applied.data, username: name, _hashed_password: await hashPassword(secret) };
  if (mail !== undefined) data.email = mail;
  if (ctx.app.record.settings.emailVerification === true && mail !== undefined) data.emailVerified = false;
  else if (emailVerified !== undefined) data.emailVerified = emailVerified === true;
  const now = new Date().toISOString();
  try {
    await ctx.app.store.insert(USER, { object: { objectId, createdAt: now, updatedAt: now, data, rperm: permissions.rperm, wperm: permissions.wperm }, relations: applied.relations });
  } catch (error) {
    throw translateUnique(error);
  }
  const session = await ctx.app.sessions.create(sessionFor(ctx, objectId, 'signup', 'password'));
  return ok({ objectId, createdAt: now, sessionToken: session.data.sessionToken }, 201, { Location: userUrl(ctx, objectId) });
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
