import type { RequestContext } from './context.ts';
import type { RequestTriggerCall } from './request-triggers.ts';

/** The caller's fields of a trigger request. */
export function callerFields(ctx: RequestContext): Pick<RequestTriggerCall, 'user' | 'master' | 'installationId' | 'ip' | 'headers'> {
  return { user: ctx.auth.userId, master: ctx.auth.isMaster, installationId: ctx.auth.installationId, ip: ctx.clientIp, headers: plainHeaders(ctx.headers) };
}

function plainHeaders(headers: RequestContext['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}
