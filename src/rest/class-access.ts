import { Errors } from '../errors/index.ts';
import { assertClassName, isSystemClass } from '../schema/names.ts';
import type { RequestContext } from './context.ts';

/**
 * Which classes the generic object routes may touch. Built-in classes get their own endpoints
 * (users, roles, sessions, installations) with their own rules; until those rules exist, the
 * generic routes let only the master key read them and nobody write them.
 */
export function assertGenericClass(ctx: RequestContext, className: string, access: 'read' | 'write'): void {
  if (className.startsWith('_') && !isSystemClass(className)) {
    throw Errors.invalidClassName(`Class names starting with "_" are reserved for built-in classes: ${JSON.stringify(className.slice(0, 80))}.`);
  }
  assertClassName(className);
  if (isSystemClass(className) && (access === 'write' || !ctx.auth.isMaster)) {
    throw Errors.operationForbidden(`The built-in class ${className} is not available through /1/classes with this key.`);
  }
}
