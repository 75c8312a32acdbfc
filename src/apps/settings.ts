import { Errors } from '../errors/index.ts';
import { isPlainObject } from '../encoding/values.ts';
import type { AppSettings } from './types.ts';

type Check = (value: unknown) => boolean;
const bool: Check = (value) => typeof value === 'boolean';
const object: Check = (value) => isPlainObject(value);
const nonNegativeInteger: Check = (value) => typeof value === 'number' && Number.isInteger(value) && value >= 0;
const url: Check = (value) => {
  if (typeof value !== 'string') return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

/** Every app setting that can be written (spec 2.11, decisions.md "Accounts and apps"). */
const SETTINGS: Record<string, { check: Check; expects: string }> = {
  clientClassCreationEnabled: { check: bool, expects: 'a boolean' },
  clientPushEnabled: { check: bool, expects: 'a boolean' },
  requireRevocableSessions: { check: bool, expects: 'a boolean' },
  revokeSessionOnPasswordChange: { check: bool, expects: 'a boolean' },
  sessionLength: { check: nonNegativeInteger, expects: 'a number of seconds' },
  emailVerification: { check: bool, expects: 'a boolean' },
  preventLoginWithUnverifiedEmail: { check: bool, expects: 'a boolean' },
  passwordPolicy: { check: object, expects: 'an object' },
  accountLockout: { check: object, expects: 'an object' },
  push: { check: object, expects: 'an object' },
  email: { check: object, expects: 'an object' },
  filesURL: { check: url, expects: 'an http(s) URL' },
  rateLimits: { check: object, expects: 'an object' },
};

/** Picks the settings out of an app body, refusing unknown keys and wrong types. */
export function parseSettings(body: Record<string, unknown>, ignore: readonly string[]): Partial<AppSettings> {
  const settings: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (ignore.includes(key)) continue;
    const rule = SETTINGS[key];
    if (!rule) throw Errors.invalidJson(`Unknown app setting ${JSON.stringify(key.slice(0, 80))}.`);
    if (!rule.check(value)) throw Errors.invalidJson(`App setting ${key} must be ${rule.expects}.`);
    settings[key] = value;
  }
  return settings as Partial<AppSettings>;
}
