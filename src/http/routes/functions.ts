import type { AppRoute } from '../route.ts';
import { runFunction, type FunctionSources } from '../../rest/functions.ts';

/** Spec 4.10: cloud functions, from webhooks or cloud code (rest/functions.ts). */
export function functionRoutes(sources: FunctionSources): AppRoute[] {
  return [{ method: 'POST', path: '/1/functions/:name', handler: (ctx, { params, body }) => runFunction(ctx, sources, params.name!, body) }];
}
