import { Errors } from '../../errors/index.ts';
import { ok, type RequestContext, type Result } from '../context.ts';
import { renderUser, sessionFor, USER } from './common.ts';

/**
 * POST /1/loginAs `{userId}` (Parse Server's endpoint, not in the spec): the master key opens a
 * new session for a user without its password, for systems that vouch for the user another way.
 * The answer is a login's: the user's fields and the new `sessionToken`. The session says
 * `createdWith: {action: "login", authProvider: "masterkey"}`, as Parse's does. Like Parse, no
 * lockout, no email verification and no login rate limit apply: the master key is not a
 * password guess. Missing userId: 162 (Parse's INVALID_VALUE); unknown user: 404/101.
 */
export async function logInAs(ctx: RequestContext, input: { userId?: unknown }): Promise<Result> {
  if (!ctx.auth.isMaster) throw Errors.operationForbidden('POST /1/loginAs needs the master key.');
  const { userId } = input;
  if (userId === undefined || userId === null || userId === '') throw Errors.invalidValue('userId must not be empty, null, or undefined.');
  if (typeof userId !== 'string') throw Errors.invalidValue('userId must be a string.');
  const user = (await ctx.app.schemas.get(USER)) ? await ctx.app.store.get(USER, userId, null) : null;
  if (!user) throw Errors.objectNotFound(`User not found: ${JSON.stringify(userId.slice(0, 40))}.`);
  const session = await ctx.app.sessions.create(sessionFor(ctx, user.objectId, 'login', 'masterkey'));
  return ok({ ...(await renderUser(ctx, user, true)), sessionToken: session.data.sessionToken });
}
