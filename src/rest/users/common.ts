import { Errors } from '../../errors/index.ts';
import { UniqueViolation, type StoredObject } from '../../storage/port.ts';
import { uniqueField } from '../../schema/builtin.ts';
import { renderObject } from '../render.ts';
import type { RequestContext } from '../context.ts';
import type { NewSession } from '../../auth/sessions.ts';

export const USER = '_User';
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function userUrl(ctx: RequestContext, objectId: string): string {
  return `${ctx.publicUrl}/1/users/${encodeURIComponent(objectId)}`;
}

/** Emails are kept trimmed and lower-cased, so uniqueness and look-ups ignore case. */
export function normalizeEmail(value: unknown): string {
  if (typeof value !== 'string' || !EMAIL.test(value.trim()) || value.length > 254) throw Errors.invalidEmailAddress(`Invalid email address: ${JSON.stringify(String(value).slice(0, 80))}.`);
  return value.trim().toLowerCase();
}

export function checkUsername(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw Errors.usernameMissing('A username is required.');
  if (value.length > 256) throw Errors.usernameMissing('A username has at most 256 characters.');
  return value;
}

export function checkPassword(value: unknown): string {
  if (typeof value !== 'string' || value === '') throw Errors.passwordMissing('A password is required.');
  if (value.length > 1024) throw Errors.passwordMissing('A password has at most 1024 characters.');
  return value;
}

/** A unique index on username or email said no: 202 / 203 (spec 2.4, decisions.md). */
export function translateUnique(error: unknown): unknown {
  if (!(error instanceof UniqueViolation)) return error;
  const field = uniqueField(error.index);
  if (field === 'username') return Errors.usernameTaken('This username is already taken.');
  if (field === 'email') return Errors.emailTaken('This email address is already taken.');
  return Errors.duplicateValue();
}

/** A user as its owner (or the master key) sees it: with authData; others never see authData. */
export async function renderUser(ctx: RequestContext, user: StoredObject, self: boolean): Promise<Record<string, unknown>> {
  const schema = await ctx.app.schemas.get(USER);
  const out = renderObject(ctx, schema, user);
  if (!self) delete out.authData;
  return out;
}

export function isSelfOrMaster(ctx: RequestContext, userId: string): boolean {
  return ctx.auth.isMaster || ctx.auth.userId === userId;
}

/** Spec 5 rule 5: restricted sessions may not write users, sessions or roles. */
export function refuseRestricted(ctx: RequestContext): void {
  if (!ctx.auth.isMaster && ctx.auth.session?.restricted) throw Errors.operationForbidden('A restricted session may not change users, sessions or roles.');
}

/** Sign-up and login hand out a revocable token unless the app is legacy and the client did not ask. */
export function sessionFor(ctx: RequestContext, userId: string, action: 'signup' | 'login', authProvider: string): NewSession {
  const settings = ctx.app.record.settings;
  const length = typeof settings.sessionLength === 'number' && settings.sessionLength > 0 ? settings.sessionLength : undefined;
  return {
    userId,
    installationId: ctx.auth.installationId,
    restricted: false,
    action,
    authProvider,
    legacy: !settings.requireRevocableSessions && !ctx.auth.revocableSession,
    ...(length ? { lengthSeconds: length } : {}),
  };
}
