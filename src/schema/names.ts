import { Errors } from '../errors/index.ts';

/** Built-in classes Basalt knows; any other name starting with "_" is refused. */
export const SYSTEM_CLASSES = ['_User', '_Role', '_Session', '_Installation', '_PushStatus', '_JobStatus', '_JobSchedule', '_Audience', '_Hooks'] as const;

const CLASS_NAME = /^[A-Za-z][A-Za-z0-9_]{0,59}$/;
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,127}$/;

/** Names reserved for the columns every object has. */
export const RESERVED_FIELDS = new Set(['objectId', 'createdAt', 'updatedAt']);

export function isSystemClass(className: string): boolean {
  return (SYSTEM_CLASSES as readonly string[]).includes(className);
}

// SQLite refuses to create tables named sqlite_… (in any letter case); refusing such class names on
// every backend keeps the same names valid everywhere.
const SQLITE_RESERVED = /^sqlite_/i;

export function isValidClassName(className: string): boolean {
  return isSystemClass(className) || (CLASS_NAME.test(className) && !SQLITE_RESERVED.test(className));
}

export function assertClassName(className: string): void {
  if (!isValidClassName(className)) {
    throw Errors.invalidClassName(`Invalid class name: ${JSON.stringify(className.slice(0, 80))}. Class names start with a letter and hold letters, digits and underscores (60 at most).`);
  }
}

export function isValidFieldName(name: string): boolean {
  return FIELD_NAME.test(name);
}

export function assertFieldName(name: string): void {
  if (!FIELD_NAME.test(name)) {
    throw Errors.invalidKeyName(`Invalid field name: ${JSON.stringify(name.slice(0, 80))}.`);
  }
}
