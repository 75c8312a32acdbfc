import { Errors } from '../errors/index.ts';
import { ok, type RequestContext, type Result } from './context.ts';

/**
 * The list endpoints of features Basalt does not have yet (push audiences). Parse Dashboard reads some of them when a page opens; a 404 there
 * shows as a broken page, while an empty list is the truth: there is nothing of the kind. Each
 * answers in Parse Server's shape for the list, master key only as there, until the feature exists.
 */
export type UnbuiltList = 'pushAudiences';

const EMPTY: Record<UnbuiltList, () => unknown> = {
  // Parse Server: a query answer over _Audience.
  pushAudiences: () => ({ results: [] }),
};

export async function emptyList(ctx: RequestContext, list: UnbuiltList): Promise<Result> {
  if (!ctx.auth.isMaster) throw Errors.operationForbidden('This endpoint needs the master key.');
  return ok(EMPTY[list]());
}
