import type { RequestContext } from './context.ts';
import type { RequestTriggerCall } from './request-triggers.ts';
import { plainHeaders } from './plain-headers.ts';

/** The caller's fields of a trigger request. */
export function callerFields(ctx: RequestContext): Pick<RequestTriggerCall, 'user' | 'master' | 'installationId' | 'ip' | 'headers'> {
  return { user: ctx.auth.userId, master: ctx.auth.isMaster, installationId: ctx.auth.installationId, ip: ctx.clientIp, headers: plainHeaders(ctx.headers) };
}
