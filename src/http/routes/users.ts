import type { AppRoute } from '../route.ts';
import { signUp } from '../../rest/users/signup.ts';
import { checkPassword, logIn, logOut, me } from '../../rest/users/login.ts';
import { logInAs } from '../../rest/users/login-as.ts';
import { deleteUser, findUsers, getUser, updateUser } from '../../rest/users/manage.ts';
import { isPlainObject } from '../../encoding/values.ts';
import { requestPasswordReset } from '../../rest/users/password-reset.ts';
import { requestVerificationEmail } from '../../rest/users/email-verification.ts';
import { parseShape } from '../../rest/shape.ts';

/**
 * The five object operations on users. The Parse SDKs save, fetch, query and delete users
 * through /1/classes/_User, which means the same; server.ts lists these routes before the
 * generic class routes so that they match first (batch, `_method`).
 */
function userObjectRoutes(base: string): AppRoute[] {
  return [
    { method: 'POST', path: base, handler: (ctx, { body }) => signUp(ctx, body ?? {}) },
    { method: 'GET', path: base, handler: (ctx, { query }) => findUsers(ctx, query) },
    { method: 'GET', path: `${base}/:objectId`, handler: (ctx, { params, query }) => getUser(ctx, params.objectId!, parseShape(query)) },
    { method: 'PUT', path: `${base}/:objectId`, handler: (ctx, { params, body }) => updateUser(ctx, params.objectId!, body ?? {}) },
    { method: 'DELETE', path: `${base}/:objectId`, handler: (ctx, { params }) => deleteUser(ctx, params.objectId!) },
  ];
}

/**
 * Spec 4.3. `me` comes before `:objectId`: batch and `_method` match routes in this order.
 * `/1/classes/_User/me` is no alias of it (Parse Server has none either): there `me` is an objectId.
 */
export const userRoutes: AppRoute[] = [
  { method: 'GET', path: '/1/users/me', handler: (ctx) => me(ctx) },
  ...userObjectRoutes('/1/users'),
  ...userObjectRoutes('/1/classes/_User'),
  { method: 'GET', path: '/1/login', handler: (ctx, { query }) => logIn(ctx, query) },
  // The Parse SDKs log in with a POST whose body holds username and password.
  { method: 'POST', path: '/1/login', handler: (ctx, { body, query }) => logIn(ctx, isPlainObject(body) ? { ...query, ...body } : query) },
  { method: 'POST', path: '/1/logout', handler: (ctx) => logOut(ctx) },
  // Not in the spec: the SDKs' Parse.User.verifyPassword, a login's checks without a session.
  { method: 'GET', path: '/1/verifyPassword', handler: (ctx, { query }) => checkPassword(ctx, query) },
  { method: 'POST', path: '/1/verifyPassword', handler: (ctx, { body, query }) => checkPassword(ctx, isPlainObject(body) ? { ...query, ...body } : query) },
  // Not in the spec: Parse's master-key "act as this user" (users/login-as.ts).
  { method: 'POST', path: '/1/loginAs', handler: (ctx, { body, query }) => logInAs(ctx, isPlainObject(body) ? { ...query, ...body } : query) },
  { method: 'POST', path: '/1/requestPasswordReset', handler: (ctx, { body }) => requestPasswordReset(ctx, body ?? {}) },
  // Not in the spec: the Parse SDKs' "send the confirmation mail again".
  { method: 'POST', path: '/1/verificationEmailRequest', handler: (ctx, { body }) => requestVerificationEmail(ctx, body ?? {}) },
];
