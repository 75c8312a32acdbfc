import { Errors } from '../errors/index.ts';
import { ok, type RequestContext, type Result } from './context.ts';
import { renderObject } from './render.ts';
import { sessionFor } from './users/common.ts';

/**
 * POST /1/upgradeToRevocableSession (Parse's endpoint, not in the spec): the Parse SDKs exchange
 * a legacy token (apps with `requireRevocableSessions: false`) for a revocable session of the
 * same user. The answer is the new session as GET /1/sessions/me shows it, `createdWith:
 * {action: "upgrade"}` and its `r:` token; the legacy session ends, so its token fails from
 * then on (Parse removes it from the user likewise).
 *
 * A token that is revocable already gets a new session too, and keeps its own: Parse does the
 * same, and the SDKs never ask for it. Unlike Parse, a restricted session is refused (119): an
 * "upgrade" would turn it into an unrestricted one (spec 5 rule 5). Without a valid token: 209,
 * Basalt's answer to every request that needs a session (Parse answers 101 "invalid session").
 * Sign-up and login create sessions whatever `_Session`'s permissions say, and so does this.
 */
export async function upgradeToRevocableSession(ctx: RequestContext): Promise<Result> {
  const current = ctx.auth.session;
  if (!current) throw Errors.invalidSessionToken('A valid session token is required to upgrade it.');
  if (current.restricted) throw Errors.operationForbidden('A restricted session cannot be upgraded.');
  const legacy = !current.token.startsWith('r:');
  const created = await ctx.app.sessions.create({
    ...sessionFor(ctx, current.userId, 'upgrade'),
    installationId: ctx.auth.installationId ?? current.installationId,
    legacy: false,
  });
  if (legacy) await ctx.app.sessions.remove(current.sessionId);
  return ok(renderObject(ctx, await ctx.app.schemas.get('_Session'), created));
}
