import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { authenticateKey } from './credentials.ts';
import { ApiError } from '../errors/index.ts';
import type { AppRecord } from '../apps/types.ts';

function record(restKey: string): AppRecord {
  return {
    applicationId: 'app',
    appName: 'app',
    namespace: 'ns',
    ownerId: null,
    keys: { masterKey: 'master-secret', restKey, clientKey: 'client-secret', javascriptKey: 'js-secret', windowsKey: 'windows-secret', webhookKey: 'hook-secret' },
    settings: {} as AppRecord['settings'],
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
}

const refused = (error: unknown) => error instanceof ApiError && error.code === 903;

describe('authenticateKey', () => {
  it('accepts a right key again and again, and still refuses a wrong one after it', () => {
    const app = record('rest-secret');
    for (let i = 0; i < 3; i++) assert.equal(authenticateKey(app, { keys: { rest: 'rest-secret' } }), 'rest');
    assert.throws(() => authenticateKey(app, { keys: { rest: 'rest-secreT' } }), refused);
    assert.throws(() => authenticateKey(app, { keys: { rest: 'rest-secret', master: 'wrong' } }), refused);
    // A key proven right for one kind opens no other kind.
    assert.throws(() => authenticateKey(app, { keys: { client: 'rest-secret' } }), refused);
  });

  it('refuses a key of the record it replaced', () => {
    const before = record('old-rest');
    assert.equal(authenticateKey(before, { keys: { rest: 'old-rest' } }), 'rest');
    const after = record('new-rest');
    assert.throws(() => authenticateKey(after, { keys: { rest: 'old-rest' } }), refused);
    assert.equal(authenticateKey(after, { keys: { rest: 'new-rest' } }), 'rest');
  });

  it('lets the strongest key presented win', () => {
    const app = record('rest-secret');
    assert.equal(authenticateKey(app, { keys: { rest: 'rest-secret', master: 'master-secret' } }), 'master');
  });
});
