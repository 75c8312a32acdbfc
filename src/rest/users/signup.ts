import { Errors } from '../../errors/index.ts';
import { isPlainObject } from '../../encoding/values.ts';
import { ok, type RequestContext, type Result } from '../context.ts';
import { checkPassword, checkUsername, refuseRestricted, requiresVerifiedEmail, sessionFor, takeAuthAttempt, userUrl } from './common.ts';
import { hasLinks, signUpWithAuthData } from './authdata.ts';
import { insertUser } from './create.ts';

/**
 * POST /1/users (spec 4.3). With a username and password: 201, Location, `{objectId, createdAt,
 * sessionToken}`. Username and email are unique through unique indexes, so of concurrent
 * sign-ups with one name exactly one wins and the others get 202. A body with authData is
 * handled in authdata.ts. The fields a beforeSave set or removed are answered too.
 *
 * With preventLoginWithUnverifiedEmail the answer has no session token (Parse does the same):
 * the user could not log in either until the address is verified.
 */
export async function signUp(ctx: RequestContext, body: unknown): Promise<Result> {
  if (!isPlainObject(body)) throw Errors.invalidJson('The request body must be a JSON object.');
  refuseRestricted(ctx);
  await takeAuthAttempt(ctx);
  if (hasLinks(body.authData)) return signUpWithAuthData(ctx, body);
  // An authData without any service to link (`{}`, or only null entries) is no authData sign-up.
  const { password, username, authData: _none, ...rest } = body;
  let edits: Readonly<Record<string, unknown>> = {};
  const user = await insertUser(ctx, { ...rest, username: checkUsername(username), password: checkPassword(password) }, (changed) => (edits = changed));
  // What before-hooks changed, as Parse Server answers it; the answer's own fields win over a hook's.
  const answer: Record<string, unknown> = { ...edits, objectId: user.objectId, createdAt: user.createdAt };
  delete answer.sessionToken;
  if (!requiresVerifiedEmail(ctx.app.record.settings) || user.data.emailVerified === true) {
    const session = await ctx.app.sessions.create(sessionFor(ctx, user.objectId, 'signup', 'password'));
    answer.sessionToken = session.data.sessionToken;
  }
  return ok(answer, 201, { Location: userUrl(ctx, user.objectId) });
}
