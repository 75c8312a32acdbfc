import { Errors } from '../../errors/index.ts';
import { hashPassword, needsRehash, verifyPassword } from '../../auth/passwords.ts';
import type { StoredObject } from '../../storage/port.ts';
import { ok, type RequestContext, type Result } from '../context.ts';
import { renderUser, sessionFor, USER } from './common.ts';

const INVALID = 'Invalid username/password.';

/**
 * GET or POST /1/login (spec 4.3): the user's fields and a new session token. A wrong username
 * and a wrong password get the same answer (decisions.md: 404/101), so usernames cannot be probed.
 */
export async function logIn(ctx: RequestContext, input: { username?: unknown; password?: unknown }): Promise<Result> {
  if (typeof input.username !== 'string' || input.username === '') throw Errors.usernameMissing('A username is required.');
  if (typeof input.password !== 'string' || input.password === '') throw Errors.passwordMissing('A password is required.');
  const user = await findByUsername(ctx, input.username);
  const stored = typeof user?.data._hashed_password === 'string' ? user.data._hashed_password : null;
  if (!user || !stored) {
    // Spend the same time as a real check, so timing does not tell which usernames exist.
    await hashPassword(input.password);
    throw Errors.objectNotFound(INVALID);
  }
  if (!(await verifyPassword(stored, input.password))) throw Errors.objectNotFound(INVALID);
  if (needsRehash(stored)) {
    const rehashed = await hashPassword(input.password);
    await ctx.app.store.update(USER, user.objectId, null, (current) => ({ object: { ...current, data: { ...current.data, _hashed_password: rehashed } }, relations: [] }));
  }
  const session = await ctx.app.sessions.create(sessionFor(ctx, user.objectId, 'login', 'password'));
  return ok({ ...(await renderUser(ctx, user, true)), sessionToken: session.data.sessionToken });
}

async function findByUsername(ctx: RequestContext, username: string): Promise<StoredObject | null> {
  if (!(await ctx.app.schemas.get(USER))) return null;
  const [user] = await ctx.app.store.find(USER, {
    where: { kind: 'compare', field: { kind: 'doc', path: ['username'] }, op: 'eq', value: username, as: 'text' },
    order: [],
    limit: 1,
    skip: 0,
  });
  return user ?? null;
}

/** POST /1/logout: deletes the session of the token (spec 3.2): `{}`. */
export async function logOut(ctx: RequestContext): Promise<Result> {
  const session = ctx.auth.session;
  if (!session) throw Errors.invalidSessionToken('A valid session token is required to log out.');
  await ctx.app.sessions.remove(session.sessionId);
  return ok({});
}

/** GET /1/users/me: the token's user, with its session token (spec 4.3); no valid token: 209. */
export async function me(ctx: RequestContext): Promise<Result> {
  const session = ctx.auth.session;
  if (!session) throw Errors.invalidSessionToken('A valid session token is required.');
  const user = await ctx.app.store.get(USER, session.userId, null);
  if (!user) throw Errors.invalidSessionToken('The user of this session no longer exists.');
  return ok({ ...(await renderUser(ctx, user, true)), sessionToken: session.token });
}
