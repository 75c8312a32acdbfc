import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import { assertError } from '../helpers/users.ts';

/** GET/POST /1/verifyPassword: a login's checks, the user's fields, and no session. */
eachBackend('users: verifyPassword', (target) => {
  let app: AppClient;
  const username = unique('checked');
  const password = 'right-password-1';
  let userId: string;

  before(async () => {
    app = await newApp(target, { rateLimits: { authRequestsPerMinute: 0 } });
    const created = await app.post('/1/users', { username, password, email: `${username.toLowerCase()}@example.com`, level: 3 });
    assert.equal(created.status, 201, created.text);
    userId = created.body.objectId;
  });

  async function sessionCount(): Promise<number> {
    const sessions = await app.get('/1/sessions', { key: 'master', query: { where: { user: { __type: 'Pointer', className: '_User', objectId: userId } }, count: 1, limit: 0 } });
    assert.equal(sessions.status, 200, sessions.text);
    return sessions.body.count;
  }

  describe('the right password', () => {
    it('answers the user fields without a session token, by GET and POST, and creates no session', async () => {
      const before = await sessionCount();
      for (const response of [await app.get('/1/verifyPassword', { query: { username, password } }), await app.post('/1/verifyPassword', { username, password })]) {
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.objectId, userId);
        assert.equal(response.body.username, username);
        assert.equal(response.body.level, 3);
        assert.equal(response.body.sessionToken, undefined);
        assert.equal(response.body.password, undefined);
      }
      assert.equal(await sessionCount(), before);
    });
  });

  it('refuses a wrong password and an unknown username alike (404/101), and missing fields (200, 201)', async () => {
    assertError(await app.get('/1/verifyPassword', { query: { username, password: 'wrong-password' } }), 404, 101);
    assertError(await app.get('/1/verifyPassword', { query: { username: unique('nobody'), password } }), 404, 101);
    assertError(await app.get('/1/verifyPassword', { query: { password } }), 400, 200);
    assertError(await app.get('/1/verifyPassword', { query: { username } }), 400, 201);
  });
});
