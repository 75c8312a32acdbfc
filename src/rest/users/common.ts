import { Errors } from '../../errors/index.ts';
import { UniqueViolation, type StoredObject } from '../../storage/port.ts';
import { uniqueField } from '../../schema/builtin.ts';
import { renderObject } from '../render.ts';
import type { RequestContext } from '../context.ts';
import type { NewSession } from '../../auth/sessions.ts';
import { authRequestsPerMinuteOf, passwordPolicyOf, sessionLengthOf, type PasswordPolicy } from '../../apps/settings.ts';
import type { AppSettings } from '../../apps/types.ts';
import { matchesWithin } from './password-pattern.ts';
import { quote } from '../../errors/quote.ts';

export const USER = '_User';
/** Fields sign-up and user updates write by their own rules, never through the write plan. */
export const USER_OWN_FIELDS: ReadonlySet<string> = new Set(['username', 'password', 'email', 'emailVerified', 'authData']);
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function userUrl(ctx: RequestContext, objectId: string): string {
  return `${ctx.publicUrl}/1/users/${encodeURIComponent(objectId)}`;
}

/** Emails are kept trimmed and lower-cased, so uniqueness and look-ups ignore case. */
export function normalizeEmail(value: unknown): string {
  if (typeof value !== 'string' || !EMAIL.test(value.trim()) || value.length > 254) throw Errors.invalidEmailAddress(`Invalid email address: ${quote(value)}.`);
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

/** A unique index on username, email or an authData id said no: 202 / 203 / 208 (spec 2.4, decisions.md). */
export function translateUnique(error: unknown): unknown {
  if (!(error instanceof UniqueViolation)) return error;
  if (isAuthDataIndex(error.index)) return Errors.accountAlreadyLinked('This authData is already linked to another user.');
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

/**
 * Sign-up and login hand out a revocable token unless the app is legacy and the client did not
 * ask. `authProvider` is absent for an upgraded legacy session, as in Parse.
 */
export function sessionFor(ctx: RequestContext, userId: string, action: NewSession['action'], authProvider?: string): NewSession {
  const settings = ctx.app.record.settings;
  const length = sessionLengthOf(settings);
  return {
    userId,
    installationId: ctx.auth.installationId,
    restricted: false,
    action,
    ...(authProvider === undefined ? {} : { authProvider }),
    legacy: !settings.requireRevocableSessions && !ctx.auth.revocableSession,
    ...(length ? { lengthSeconds: length } : {}),
  };
}

/** The unique index on `authData.<service>.id` that authdata.ts creates; its name ends in `authData:<service>`. */
export function authDataIndexName(service: string): string {
  return `authData:${service}`;
}

export function isAuthDataIndex(physicalIndex: string): boolean {
  return /authData:[A-Za-z0-9_]+$/.test(physicalIndex);
}

/**
 * The app's passwordPolicy (decisions.md): a new password that is too short or does not match
 * the pattern is refused with 142, at sign-up, password change and password reset.
 */
export function checkPasswordPolicy(settings: AppSettings, password: string): string {
  const policy = passwordPolicyOf(settings);
  if (policy && !meetsPolicy(policy, password)) throw Errors.validationError(policy.validationError ?? policyMessage(policy));
  return password;
}

/** A password whose test against the pattern ran out of time does not meet the policy. */
function meetsPolicy(policy: PasswordPolicy, password: string): boolean {
  if (policy.minLength !== null && [...password].length < policy.minLength) return false;
  return policy.pattern === null || matchesWithin(policy.pattern, password) === true;
}

function policyMessage(policy: PasswordPolicy): string {
  const rules = [policy.minLength !== null ? `at least ${policy.minLength} characters` : null, policy.pattern ? 'the form this app requires' : null].filter(Boolean);
  return `The password does not meet the password policy: it must have ${rules.join(' and ')}.`;
}

/** Who is asking, for the per-address limit of login, sign-up and password reset. */
export interface AuthAttempt {
  readonly app: RequestContext['app'];
  readonly clientIp: string;
  readonly userOptions: RequestContext['userOptions'];
  readonly auth?: { readonly isMaster: boolean };
}

/**
 * decisions.md "Limits": login, sign-up and password-reset requests, 30 a minute per client
 * address by default (the server's --auth-requests-per-minute, or the app's
 * rateLimits.authRequestsPerMinute). Counted in the app's database, so every server process
 * shares one budget. The master key is not limited: it is held by the app's own servers, which
 * may sign users up in bulk.
 */
export async function takeAuthAttempt(attempt: AuthAttempt): Promise<void> {
  if (attempt.auth?.isMaster) return;
  const limit = authRequestsPerMinuteOf(attempt.app.record.settings, attempt.userOptions.authRequestsPerMinute);
  if (limit === 0) return;
  const used = await attempt.app.store.countInWindow(`auth:${addressKey(attempt.clientIp)}`, Math.floor(Date.now() / 60_000));
  if (used > limit) throw Errors.requestLimitExceeded(`Too many login, sign-up and password-reset requests from this address: at most ${limit} a minute are allowed.`);
}

/**
 * The unit the limit counts: an IPv4 address, or the /64 network of an IPv6 one, since one
 * IPv6 host usually holds a whole /64 and could otherwise start afresh from each address in it.
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!ip.includes(':')) return ip;
  const [head = '', tail] = ip.split('%')[0]!.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/** Whether the app keeps users with an unverified address from logging in (Parse's rule: both settings on). */
export function requiresVerifiedEmail(settings: AppSettings): boolean {
  return settings.emailVerification === true && settings.preventLoginWithUnverifiedEmail === true;
}
