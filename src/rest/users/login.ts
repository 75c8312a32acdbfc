import { Errors } from '../../errors/index.ts';
import { hashPassword, needsRehash, verifyPassword } from '../../auth/passwords.ts';
import { accountLockoutOf, type AccountLockout } from '../../apps/settings.ts';
import type { StoredObject } from '../../storage/port.ts';
import { ok, type RequestContext, type Result } from '../context.ts';
import { renderUser, requiresVerifiedEmail, sessionFor, takeAuthAttempt, USER } from './common.ts';
import { INTERNAL, writeUpdate } from '../write/pipeline.ts';
import { callerFields } from '../trigger-caller.ts';

const INVALID = 'Invalid username/password.';
const FAILED_COUNT = '_failed_login_count';
const LOCKED_UNTIL = '_account_lockout_expires_at';
/** The server's own fields of the lockout, kept in the user document (never rendered: they start with "_"). */
export const LOCKOUT_FIELDS = [FAILED_COUNT, LOCKED_UNTIL] as const;

/**
 * GET or POST /1/login (spec 4.3): the user's fields and a new session token. A wrong username
 * and a wrong password get the same answer (decisions.md: 404/101), so usernames cannot be probed.
 * With accountLockout, `threshold` wrong passwords in a row lock the account for `duration`
 * minutes, and while it is locked even the right password is refused (Parse's answer: 101 and
 * a message that says so). With preventLoginWithUnverifiedEmail, a right password of a user
 * whose address is not verified gets 205 (Parse's answer too).
 */
export async function logIn(ctx: RequestContext, input: { username?: unknown; password?: unknown }): Promise<Result> {
  const user = await authenticate(ctx, input);
  const rendered = await renderUser(ctx, user, true);
  // Cloud code's beforeLogin may refuse the login: then no session is made.
  const triggers = ctx.app.hooks.requests;
  const before = triggers.of('beforeLogin', USER);
  if (before) await before({ className: USER, object: rendered, ...callerFields(ctx) });
  const session = await ctx.app.sessions.create(sessionFor(ctx, user.objectId, 'login', 'password'));
  const after = triggers.of('afterLogin', USER);
  // The login is made: a failing afterLogin is logged (by cloud code's log), never answered.
  if (after) await after({ className: USER, object: rendered, ...callerFields(ctx), user: user.objectId }).catch(() => {});
  return ok({ ...rendered, sessionToken: session.data.sessionToken });
}

/**
 * GET or POST /1/verifyPassword (the SDKs' `Parse.User.verifyPassword`, outside the spec): the
 * same checks as a login, lockout and verified email included, answered with the user's fields
 * and no session.
 */
export async function checkPassword(ctx: RequestContext, input: { username?: unknown; password?: unknown }): Promise<Result> {
  return ok(await renderUser(ctx, await authenticate(ctx, input), true));
}

/** The user whose username and password these are; every refusal of a login. */
async function authenticate(ctx: RequestContext, input: { username?: unknown; password?: unknown }): Promise<StoredObject> {
  await takeAuthAttempt(ctx);
  if (typeof input.username !== 'string' || input.username === '') throw Errors.usernameMissing('A username is required.');
  if (typeof input.password !== 'string' || input.password === '') throw Errors.passwordMissing('A password is required.');
  const user = await findByUsername(ctx, input.username);
  const stored = typeof user?.data._hashed_password === 'string' ? user.data._hashed_password : null;
  if (!user || !stored) {
    // Spend the same time as a real check, so timing does not tell which usernames exist.
    await hashPassword(input.password);
    throw Errors.objectNotFound(INVALID);
  }
  const lockout = accountLockoutOf(ctx.app.record.settings);
  if (lockout) assertNotLocked(user, lockout);
  if (!(await verifyPassword(stored, input.password))) {
    if (lockout) await countFailure(ctx, user.objectId, lockout);
    throw Errors.objectNotFound(INVALID);
  }
  if (requiresVerifiedEmail(ctx.app.record.settings) && user.data.emailVerified !== true) throw Errors.emailNotFound('User email is not verified.');
  const rehash = needsRehash(stored) ? await hashPassword(input.password) : null;
  if (rehash || user.data[FAILED_COUNT] !== undefined || user.data[LOCKED_UNTIL] !== undefined) {
    await writeUpdate(ctx.app, INTERNAL, {
      className: USER,
      objectId: user.objectId,
      write: null,
      change: (current) => {
        const data: Record<string, unknown> = { ...current.data };
        if (rehash) data._hashed_password = rehash;
        for (const field of LOCKOUT_FIELDS) delete data[field];
        return { object: { ...current, data }, relations: [] };
      },
    });
  }
  return user;
}

function lockedMessage(lockout: AccountLockout): string {
  const minutes = Math.max(1, Math.ceil(lockout.durationMs / 60_000));
  return `Your account is locked due to multiple failed login attempts. Please try again after ${minutes} minute(s).`;
}

function assertNotLocked(user: StoredObject, lockout: AccountLockout): void {
  const until = user.data[LOCKED_UNTIL];
  if (typeof until === 'number' && until > Date.now()) throw Errors.objectNotFound(lockedMessage(lockout));
}

/**
 * One more wrong password, counted under the row lock so that concurrent attempts all count.
 * The attempt that reaches the threshold locks the account and already gets the lockout answer.
 */
async function countFailure(ctx: RequestContext, userId: string, lockout: AccountLockout): Promise<void> {
  let locked = false;
  await writeUpdate(ctx.app, INTERNAL, {
    className: USER,
    objectId: userId,
    write: null,
    change: (current) => {
      // Run again on the locked row when observers look first: the last run counts.
      locked = false;
      const now = Date.now();
      const data: Record<string, unknown> = { ...current.data };
      const until = data[LOCKED_UNTIL];
      if (typeof until === 'number' && until > now) {
        locked = true;
        return { object: current, relations: [] };
      }
      delete data[LOCKED_UNTIL];
      const failures = (typeof data[FAILED_COUNT] === 'number' ? (data[FAILED_COUNT] as number) : 0) + 1;
      if (failures >= lockout.threshold) {
        data[LOCKED_UNTIL] = now + lockout.durationMs;
        delete data[FAILED_COUNT];
        locked = true;
      } else data[FAILED_COUNT] = failures;
      return { object: { ...current, data }, relations: [] };
    },
  });
  if (locked) throw Errors.objectNotFound(lockedMessage(lockout));
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
  const after = ctx.app.hooks.requests.of('afterLogout', '_Session');
  if (after) {
    const object = { objectId: session.sessionId, sessionToken: session.token, user: { __type: 'Pointer', className: USER, objectId: session.userId } };
    await after({ className: '_Session', object, ...callerFields(ctx) }).catch(() => {});
  }
  return ok({});
}

/** GET /1/users/me: the token's user, with its session token (spec 4.3); no valid token: 209. */
export async function me(ctx: RequestContext): Promise<Result> {
  const session = ctx.auth.session;
  if (!session) throw Errors.invalidSessionToken('A valid session token is required.');
  const user = await ctx.app.store.get(USER, session.userId, null);
  if (!user) throw Errors.invalidSessionToken('The user of this session no longer exists.');
  // The rendered object is this request's own: adding to it spares a copy of every field.
  const rendered = await renderUser(ctx, user, true);
  rendered.sessionToken = session.token;
  return ok(rendered);
}
