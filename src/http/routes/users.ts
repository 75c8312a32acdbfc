import type { AppRoute } from '../route.ts';
import { signUp } from '../../rest/users/signup.ts';
import { logIn, logOut, me } from '../../rest/users/login.ts';
import { deleteUser, findUsers, getUser, updateUser } from '../../rest/users/manage.ts';
import { isPlainObject } from '../../encoding/values.ts';
import { requestPasswordReset } from '../../rest/users/password-reset.ts';
import { requestVerificationEmail } from '../../rest/users/email-verification.ts';

/** Spec 4.3. `me` comes before `:objectId`: batch and `_method` match routes in this order. */
export const userRoutes: AppRoute[] = [
  { method: 'POST', path: '/1/users', handler: (ctx, { body }) => signUp(ctx, body ?? {}) },
  { method: 'GET', path: '/1/users', handler: (ctx, { query }) => findUsers(ctx, query) },
  { method: 'GET', path: '/1/users/me', handler: (ctx) => me(ctx) },
  { method: 'GET', path: '/1/users/:objectId', handler: (ctx, { params }) => getUser(ctx, params.objectId!) },
  { method: 'PUT', path: '/1/users/:objectId', handler: (ctx, { params, body }) => updateUser(ctx, params.objectId!, body ?? {}) },
  { method: 'DELETE', path: '/1/users/:objectId', handler: (ctx, { params }) => deleteUser(ctx, params.objectId!) },
  { method: 'GET', path: '/1/login', handler: (ctx, { query }) => logIn(ctx, query) },
  // The Parse SDKs log in with a POST whose body holds username and password.
  { method: 'POST', path: '/1/login', handler: (ctx, { body, query }) => logIn(ctx, isPlainObject(body) ? { ...query, ...body } : query) },
  { method: 'POST', path: '/1/logout', handler: (ctx) => logOut(ctx) },
  { method: 'POST', path: '/1/requestPasswordReset', handler: (ctx, { body }) => requestPasswordReset(ctx, body ?? {}) },
  // Not in the spec: the Parse SDKs' "send the confirmation mail again".
  { method: 'POST', path: '/1/verificationEmailRequest', handler: (ctx, { body }) => requestVerificationEmail(ctx, body ?? {}) },
];
