import { Errors } from '../../errors/index.ts';
import { isPlainObject } from '../../encoding/values.ts';
import type { AppHandle } from '../../apps/registry.ts';
import type { StoredObject, WriteStep } from '../../storage/port.ts';
import { verificationMail } from '../../mail/templates.ts';
import { ok, type RequestContext, type Result } from '../context.ts';
import { normalizeEmail, takeAuthAttempt, USER } from './common.ts';
import { findByEmail, linkMailSteps, redeem, sendLink, type MailScope } from './email-links.ts';
import { INTERNAL, writeUpdate } from '../write/pipeline.ts';

/**
 * Spec 3.1: with emailVerification on, a user created with an address, or whose address is set
 * or changed, gets `emailVerified: false` (done where the user is written) and this mail; the
 * emailed link (GET /apps/<applicationId>/verify_email) turns it true.
 */
export async function sendVerificationEmail(scope: MailScope, user: StoredObject): Promise<void> {
  const email = verificationAddress(scope, user.data);
  if (email === null) return;
  await sendLink(scope, 'verify', user.objectId, email, (link) => verificationMail(scope.app.record.appName, email, link));
}

/** The address a user with these fields is to confirm, or null when no mail is due. */
function verificationAddress(scope: MailScope, data: Readonly<Record<string, unknown>>): string | null {
  const email = data.email;
  if (scope.app.record.settings.emailVerification !== true || typeof email !== 'string' || data.emailVerified === true) return null;
  return email;
}

/**
 * The same mail as steps of the write that creates the user or changes its address (computed
 * from the fields that write stores), so that the user, the token and the queued mail are
 * stored together or not at all.
 */
export function verificationSteps(scope: MailScope, objectId: string, data: Readonly<Record<string, unknown>>): WriteStep[] {
  const email = verificationAddress(scope, data);
  if (email === null) return [];
  return linkMailSteps(scope, 'verify', objectId, email, (link) => verificationMail(scope.app.record.appName, email, link));
}

/**
 * The emailed link was followed. The token is used up; it only counts while the user still has
 * the address it was sent to. Returns the verified address, or null for a bad, used or expired link.
 */
export async function verifyEmail(app: AppHandle, token: unknown): Promise<string | null> {
  const found = await redeem(app, 'verify', token);
  if (!found) return null;
  const { record } = found;
  const updated = await writeUpdate(app, INTERNAL, {
    className: USER,
    objectId: record.userId,
    write: null,
    change: (current) => {
      // The address may have changed between the read above and this locked one.
      if (current.data.email !== record.email) return { object: current, relations: [] };
      return { object: { ...current, updatedAt: new Date().toISOString(), data: { ...current.data, emailVerified: true } }, relations: [] };
    },
  });
  return updated && updated.data.email === record.email ? record.email : null;
}

/**
 * POST /1/verificationEmailRequest `{email}` (the Parse SDKs' "resend" call): `{}` once a new
 * link is on its way; 204 without an address, 125 for a malformed one, 205 when no user has it.
 * An address that is already verified gets no mail, and the same `{}`.
 */
export async function requestVerificationEmail(ctx: RequestContext, body: unknown): Promise<Result> {
  if (!isPlainObject(body)) throw Errors.invalidJson('The request body must be a JSON object.');
  await takeAuthAttempt(ctx);
  if (body.email === undefined || body.email === null || body.email === '') throw Errors.emailMissing('An email address is required.');
  const user = await findByEmail(ctx.app, normalizeEmail(body.email));
  if (!user) throw Errors.emailNotFound('No user has this email address.');
  await sendVerificationEmail(ctx, user);
  return ok({});
}

/** The form on the verify_email page: like the call above, but it never tells whether the address is known. */
export async function resendVerificationEmail(scope: MailScope, email: unknown): Promise<void> {
  let address: string;
  try {
    address = normalizeEmail(email);
  } catch {
    return;
  }
  const user = await findByEmail(scope.app, address);
  if (user) await sendVerificationEmail(scope, user);
}
