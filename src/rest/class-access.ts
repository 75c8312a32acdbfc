import { Errors } from '../errors/index.ts';
import { assertClassName, isSystemClass } from '../schema/names.ts';
import type { RequestContext } from './context.ts';

/**
 * Which classes the generic object routes may touch. `_User`, `_Session`, `_Role` and
 * `_Installation` never reach them: their /1/classes paths are routes of their own endpoints,
 * listed first (server.ts). The other built-in classes (push and job statuses, audiences) are
 * the server's records: the generic routes let only the master key read them and nobody write
 * them. The routers decode path segments before matching, so an escaped spelling (`%5FUser`)
 * reaches the built-in routes too; were one ever to come here, it would be refused like the rest.
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
