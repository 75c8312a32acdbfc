import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import type { AppSettings } from './types.ts';
import { pushCredentialsOf, pushCredentialsProblem } from '../push/networks/credentials.ts';
import { maskedSecretIn } from './secrets.ts';

type Check = (value: unknown) => boolean;
const bool: Check = (value) => typeof value === 'boolean';
const object: Check = (value) => isPlainObject(value);
const integerIn = (min: number, max: number): Check => (value) => typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
const text = (max: number): Check => (value) => typeof value === 'string' && value.length > 0 && value.length <= max;
const url: Check = (value) => {
  if (typeof value !== 'string') return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};
const regexSource: Check = (value) => {
  if (typeof value !== 'string' || value.length > 1000) return false;
  try {
    new RegExp(value);
    return true;
  } catch {
    return false;
  }
};

/** An object with only these keys, each optional unless listed in `required`; null removes the setting. */
function shape(fields: Record<string, Check>, required: readonly string[] = []): Check {
  return (value) => {
    if (value === null) return true;
    if (!isPlainObject(value)) return false;
    if (!required.every((key) => value[key] !== undefined)) return false;
    return Object.entries(value).every(([key, item]) => Object.hasOwn(fields, key) && (item === undefined || fields[key]!(item)));
  };
}

const provider = { enabled: bool };

/**
 * The shapes of the account settings (decisions.md "Accounts and apps"). Names follow Parse
 * Server's options where it has one, so that apps moving over recognise them.
 */
const PASSWORD_POLICY = shape({ minLength: integerIn(1, 1024), pattern: regexSource, validationError: text(500), resetTokenValidityDuration: integerIn(1, 365 * 86400) });
const ACCOUNT_LOCKOUT = shape({ threshold: integerIn(1, 1000), duration: (value) => typeof value === 'number' && value > 0 && value <= 100_000 }, ['threshold', 'duration']);
const EMAIL = shape(
  { host: text(255), port: integerIn(1, 65535), secure: bool, auth: shape({ user: text(500), pass: text(500) }, ['user', 'pass']), from: text(500) },
  ['host', 'from'],
);
const AUTH = shape({
  anonymous: shape(provider),
  facebook: shape({ ...provider, appIds: (value) => Array.isArray(value) && value.every(text(100)), appSecret: text(500), graphUrl: url }),
  twitter: shape({ ...provider, consumerKey: text(500), consumerSecret: text(500), apiUrl: url }, ['consumerKey', 'consumerSecret']),
});
// Parse Server's names. Unlike Parse Server, every caller may upload unless the app says
// otherwise, as spec 4.6 has it.
const FILE_UPLOAD = shape({ enableForPublic: bool, enableForAnonymousUser: bool, enableForAuthenticatedUser: bool });

// Far below the last moment a Date can hold (year 275760): a session's expiresAt is now plus
// this, and past that limit every sign-up and login of the app would fail.
export const MAX_SESSION_LENGTH = 100 * 365 * 86_400;

/** Seconds a new session lasts (setting sessionLength), or undefined: it never expires. */
export function sessionLengthOf(settings: AppSettings): number | undefined {
  // An app saved before sessionLength had its upper bound may hold more than a Date can reach.
  const length = settings.sessionLength;
  return typeof length === 'number' && length > 0 ? Math.min(length, MAX_SESSION_LENGTH) : undefined;
}

/** Every app setting that can be written (spec 2.11, decisions.md "Accounts and apps"). */
interface SettingRule {
  readonly check: Check;
  readonly expects: string;
  /** A refusal more precise than `expects` (which field, and why); null when the value is good. */
  readonly problem?: (value: unknown) => string | null;
  /** The form in which a good value is stored. */
  readonly normalise?: (value: unknown) => unknown;
}

const SETTINGS: Record<string, SettingRule> = {
  clientClassCreationEnabled: { check: bool, expects: 'a boolean' },
  clientPushEnabled: { check: bool, expects: 'a boolean' },
  requireRevocableSessions: { check: bool, expects: 'a boolean' },
  revokeSessionOnPasswordChange: { check: bool, expects: 'a boolean' },
  sessionLength: { check: integerIn(0, MAX_SESSION_LENGTH), expects: 'a number of seconds (at most 100 years)' },
  emailVerification: { check: bool, expects: 'a boolean' },
  preventLoginWithUnverifiedEmail: { check: bool, expects: 'a boolean' },
  emailVerifyTokenValidityDuration: { check: integerIn(1, 365 * 86400), expects: 'a number of seconds (at most a year)' },
  passwordPolicy: { check: PASSWORD_POLICY, expects: 'null or {minLength?: 1–1024, pattern?: a regular expression, validationError?: text, resetTokenValidityDuration?: seconds}' },
  accountLockout: { check: ACCOUNT_LOCKOUT, expects: 'null or {threshold: failed logins 1–1000, duration: minutes > 0}' },
  // The delivery networks' credentials (docs/push-networks.md), write-only: /1/apps shows them masked.
  push: {
    check: (value) => value === null || object(value),
    expects: 'null or an object {ios?, android?, windows?, web?}',
    problem: pushCredentialsProblem,
    normalise: (value) => (value === null ? null : pushCredentialsOf(value)),
  },
  email: { check: EMAIL, expects: 'null or {host, port?, secure?, auth?: {user, pass}, from}' },
  auth: {
    check: AUTH,
    expects: 'null or {anonymous?: {enabled?}, facebook?: {enabled?, appIds?, appSecret?, graphUrl?}, twitter?: {enabled?, consumerKey, consumerSecret, apiUrl?}}',
  },
  filesURL: { check: url, expects: 'an http(s) URL' },
  fileUpload: { check: FILE_UPLOAD, expects: 'null or {enableForPublic?, enableForAnonymousUser?, enableForAuthenticatedUser?: booleans}' },
  rateLimits: { check: object, expects: 'an object' },
  // Absent means on (rest/auto-index.ts).
  autoIndexes: { check: bool, expects: 'a boolean' },
};

/** Picks the settings out of an app body, refusing unknown keys and wrong types. */
export function parseSettings(body: Record<string, unknown>, ignore: readonly string[]): Partial<AppSettings> {
  const settings: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (ignore.includes(key)) continue;
    // Own keys only: SETTINGS is an object literal, so "toString" or "constructor" would find
    // Object.prototype's members, which have no check to call.
    const rule = Object.hasOwn(SETTINGS, key) ? SETTINGS[key] : undefined;
    if (!rule) throw Errors.invalidJson(`Unknown app setting ${JSON.stringify(key.slice(0, 80))}.`);
    if (!rule.check(value)) throw Errors.invalidJson(`App setting ${key} must be ${rule.expects}.`);
    const problem = rule.problem?.(value);
    if (problem) throw Errors.invalidJson(problem);
    // Stored as "********", a secret would be wrong and look right in every read of /1/apps.
    const masked = maskedSecretIn(key, value);
    if (masked) throw Errors.invalidJson(`App setting ${masked} is the mask /1/apps shows, and no secret is stored there: give the secret itself.`);
    settings[key] = rule.normalise ? rule.normalise(value) : value;
  }
  return settings as Partial<AppSettings>;
}

// Typed views of the settings above, for the code that applies them. Stored settings passed the
// checks when they were written; the readers still fall back to "not set" on anything odd.

export interface PasswordPolicy {
  readonly minLength: number | null;
  readonly pattern: RegExp | null;
  readonly validationError: string | null;
}

export interface AccountLockout {
  readonly threshold: number;
  readonly durationMs: number;
}

export interface SmtpSettings {
  readonly host: string;
  readonly port: number | null;
  readonly secure: boolean;
  readonly auth: { readonly user: string; readonly pass: string } | null;
  readonly from: string;
}

/** Who may upload files without the master key (`fileUpload`; every flag defaults to true). */
export interface FileUploadPolicy {
  /** Callers without a session token. */
  readonly public: boolean;
  /** Users signed up through the anonymous authData service. */
  readonly anonymousUser: boolean;
  /** Every other user. */
  readonly authenticatedUser: boolean;
}

const DAY_SECONDS = 86_400;

export function passwordPolicyOf(settings: AppSettings): PasswordPolicy | null {
  const value = settings.passwordPolicy;
  if (!isPlainObject(value)) return null;
  return {
    minLength: typeof value.minLength === 'number' ? value.minLength : null,
    pattern: regexSource(value.pattern) ? new RegExp(value.pattern as string) : null,
    validationError: typeof value.validationError === 'string' ? value.validationError : null,
  };
}

export function accountLockoutOf(settings: AppSettings): AccountLockout | null {
  const value = settings.accountLockout;
  if (!isPlainObject(value) || typeof value.threshold !== 'number' || typeof value.duration !== 'number') return null;
  return { threshold: value.threshold, durationMs: Math.round(value.duration * 60_000) };
}

export function smtpOf(settings: AppSettings): SmtpSettings | null {
  const value = settings.email;
  if (!isPlainObject(value) || typeof value.host !== 'string' || typeof value.from !== 'string') return null;
  const auth = isPlainObject(value.auth) && typeof value.auth.user === 'string' && typeof value.auth.pass === 'string' ? { user: value.auth.user, pass: value.auth.pass } : null;
  return { host: value.host, port: typeof value.port === 'number' ? value.port : null, secure: value.secure === true, auth, from: value.from };
}

export function fileUploadOf(settings: AppSettings): FileUploadPolicy {
  const value = isPlainObject(settings.fileUpload) ? settings.fileUpload : {};
  return { public: value.enableForPublic !== false, anonymousUser: value.enableForAnonymousUser !== false, authenticatedUser: value.enableForAuthenticatedUser !== false };
}

/** Seconds an emailed link stays usable (decisions.md: 24 h unless the app says otherwise). */
export function tokenLifetimeOf(settings: AppSettings, kind: 'verify' | 'reset'): number {
  const value = kind === 'verify' ? settings.emailVerifyTokenValidityDuration : isPlainObject(settings.passwordPolicy) ? settings.passwordPolicy.resetTokenValidityDuration : undefined;
  return typeof value === 'number' && value > 0 ? value : DAY_SECONDS;
}

/** The app's options for one authData service (`auth.<service>`), or an empty object. */
export function authProviderSettings(settings: AppSettings, service: string): Readonly<Record<string, unknown>> {
  const auth = settings.auth;
  const value = isPlainObject(auth) ? auth[service] : undefined;
  return isPlainObject(value) ? value : {};
}

/** `rateLimits.authRequestsPerMinute` when the app sets it, else the server's default. */
export function authRequestsPerMinuteOf(settings: AppSettings, serverDefault: number): number {
  const limits = settings.rateLimits;
  const value = isPlainObject(limits) ? limits.authRequestsPerMinute : undefined;
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : serverDefault;
}
