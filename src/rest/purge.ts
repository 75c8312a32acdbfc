import { Errors } from '../errors/index.ts';
import { assertClassName, isSystemClass } from '../schema/names.ts';
import { ok, type RequestContext, type Result } from './context.ts';
import type { HookDefinitions } from './hooks.ts';

/**
 * Classes emptied along with a class. A session belongs to a user: with every user gone, a token
 * left behind would name no one, so purging `_User` ends every session too (as deleting one user
 * ends its sessions).
 */
const EMPTIED_WITH: Readonly<Record<string, readonly string[]>> = { _User: ['_Session'] };

/**
 * DELETE /1/purge/<className>, master key only: every object of the class goes, with the
 * relation rows those objects own; the schema (fields, permissions, indexes) stays. Parse's
 * "delete all rows", and the step before `DELETE /1/schemas/<className>`, which refuses a class
 * that holds objects. One transaction: the class is emptied whole or not at all. A class that
 * does not exist answers `{}` as well, as in Parse Server.
 */
export async function purgeClass(ctx: RequestContext, className: string, hooks: HookDefinitions): Promise<Result> {
  if (!ctx.auth.isMaster) throw Errors.operationForbidden('Only the master key may delete all objects of a class.');
  if (className.startsWith('_') && !isSystemClass(className)) throw Errors.invalidClassName(`Class names starting with "_" are reserved: ${JSON.stringify(className.slice(0, 80))}.`);
  assertClassName(className);
  const classes = [className, ...(EMPTIED_WITH[className] ?? [])];
  await ctx.app.store.schemas.purge(classes);
  // The caches that hold objects of these classes, in every process.
  if (classes.includes('_Session')) await ctx.app.sessions.changed();
  if (className === '_Role') await ctx.app.roles.changed();
  // The hook definitions every process keeps in memory (webhooks/service.ts).
  if (className === '_Hooks') await hooks.reread(ctx.app);
  return ok({});
}
