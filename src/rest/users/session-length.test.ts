import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RequestContext } from '../context.ts';
import { MAX_SESSION_LENGTH } from '../../apps/settings.ts';
import { sessionFor } from './common.ts';

function contextWith(sessionLength: unknown): RequestContext {
  const settings = { requireRevocableSessions: true, sessionLength };
  return { app: { record: { settings } }, auth: { installationId: null, revocableSession: false } } as unknown as RequestContext;
}

// Settings written through the API are bounded (settings.ts); an app saved before the bound
// existed may still hold a length past what a Date can reach.
describe('session length of a new session', () => {
  it('is the app setting, at most a hundred years', () => {
    assert.equal(sessionFor(contextWith(3600), 'u', 'login', 'password').lengthSeconds, 3600);
    assert.equal(sessionFor(contextWith(MAX_SESSION_LENGTH), 'u', 'login', 'password').lengthSeconds, MAX_SESSION_LENGTH);
    assert.equal(sessionFor(contextWith(1e13), 'u', 'signup', 'password').lengthSeconds, MAX_SESSION_LENGTH);
    const expiry = new Date(Date.now() + MAX_SESSION_LENGTH * 1000);
    assert.ok(Number.isFinite(expiry.getTime()));
  });

  it('is absent (no expiry) without a positive setting', () => {
    for (const value of [undefined, 0, -5, '3600']) assert.equal(sessionFor(contextWith(value), 'u', 'login', 'password').lengthSeconds, undefined);
  });
});
