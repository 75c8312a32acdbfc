import type { AppRoute } from '../route.ts';
import { purgeClass } from '../../rest/purge.ts';
import type { HookDefinitions } from '../../rest/hooks.ts';

/** Parse's "delete all rows" of a class (master key). */
export function purgeRoutes(hooks: HookDefinitions): AppRoute[] {
  return [{ method: 'DELETE', path: '/1/purge/:className', handler: (ctx, { params }) => purgeClass(ctx, params.className!, hooks) }];
}
