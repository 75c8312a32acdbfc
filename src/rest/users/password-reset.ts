import { Errors, isApiError } from '../../errors/index.ts';
import { isPlainObject } from '../../encoding/values.ts';
import type { AppHandle } from '../../apps/registry.ts';
import { hashPassword } from '../../auth/passwords.ts';
import { passwordResetMail } from '../../mail/templates.ts';
import { ok, type RequestContext, type Result } from '../context.ts';
import { checkPassword, checkPasswordPolicy, normalizeEmail, takeAuthAttempt, USER } from './common.ts';
import { findByEmail, inspect, redeem, sendLink } from './email-links.ts';
import { LOCKOUT_FIELDS } from './login.ts';
import { INTERNAL, writeUpdate } from '../write/pipeline.ts';

/**
 * POST /1/requestPasswordReset `{email}` (spec 4.3): `{}`, and a mail with a link to the reset
 * page. 204 without an address, 125 for a malformed one, 205 when no user has it (spec).
 */
export async function requestPasswordReset(ctx: RequestContext, body: unknown): Promise<Result> {
  if (!isPlainObject(body)) throw Errors.invalidJson('The request body must be a JSON object.');
  await takeAuthAttempt(ctx);
  if (body.email === undefined || body.email === null || body.email === '') throw Errors.emailMissing('An email address is required.');
  const email = normalizeEmail(body.email);
  const user = await findByEmail(ctx.app, email);
  if (!user) throw Errors.emailNotFound('No user has this email address.');
  await sendLink(ctx, 'reset', user.objectId, email, (link) => passwordResetMail(ctx.app.record.appName, email, link));
  return ok({});
}

/** Whether a reset link can still be used (the page shows its form only then). */
export async function resetLinkIsValid(app: AppHandle, token: unknown): Promise<boolean> {
  return (await inspect(app, 'reset', token)) !== null;
}

export type ResetOutcome = { readonly ok: true } | { readonly ok: false; readonly reason: 'link' | 'password'; readonly message: string };

/**
 * The reset page's form was sent. The new password is checked against the policy before the
 * token is used, so a refused password does not cost the user the link. Then, in this order:
 * the token is used up (two submissions cannot both pass), the password is set, every other
 * reset link of the user dies, a lockout ends, and the user's sessions end (with
 * revokeSessionOnPasswordChange, as for any password change). The mail proved that the user
 * reads the address, so with emailVerification on it counts as verified.
 */
export async function resetPassword(app: AppHandle, token: unknown, password: unknown): Promise<ResetOutcome> {
  const invalidLink: ResetOutcome = { ok: false, reason: 'link', message: 'This link is not valid: it may have been used already or have expired.' };
  if (!(await inspect(app, 'reset', token))) return invalidLink;
  let hashed: string;
  try {
    hashed = await hashPassword(checkPasswordPolicy(app.record.settings, checkPassword(password)));
  } catch (error) {
    if (isApiError(error)) return { ok: false, reason: 'password', message: error.message };
    throw error;
  }
  const found = await redeem(app, 'reset', token);
  if (!found) return invalidLink;
  const { record } = found;
  const verify = app.record.settings.emailVerification === true;
  const updated = await writeUpdate(app, INTERNAL, {
    className: USER,
    objectId: record.userId,
    write: null,
    change: (current) => {
      const data: Record<string, unknown> = { ...current.data, _hashed_password: hashed };
      for (const field of LOCKOUT_FIELDS) delete data[field];
      if (verify && current.data.email === record.email) data.emailVerified = true;
      return { object: { ...current, updatedAt: new Date().toISOString(), data }, relations: [] };
    },
  });
  if (!updated) return invalidLink;
  await app.tokens.dropAll(record.userId, 'reset');
  if (app.record.settings.revokeSessionOnPasswordChange) await app.sessions.removeAllOf(record.userId);
  return { ok: true };
}
