import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AppClient, unique } from '../helpers/client.ts';
import { withTwoProcesses } from '../helpers/shared-database.ts';
import { as, assertError, meStatus, newToken, sessionOf, signUp } from '../helpers/users.ts';

/**
 * Spec 5 rule 6 across server processes: each process caches what a token resolves to, so a
 * session ended through one process must stop working in the others. Only PostgreSQL is shared
 * by several processes; a SQLite data directory belongs to one process, which the other session
 * files already cover on both backends.
 */


/** Polls (bounded, far below the cache's one-minute lifetime) until the token is refused. */
async function refusedWithin(client: AppClient, token: string, limitMs: number): Promise<number> {
  const deadline = Date.now() + limitMs;
  let status = await meStatus(client, token);
  while (status === 200 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    status = await meStatus(client, token);
  }
  return status;
}

describe('sessions: several processes on one PostgreSQL', () => {
  it('a session ended through one process stops working in the other, which had it cached', async () => {
    await withTwoProcesses(async (a, b) => {
      const user = await signUp(a);
      const second = await newToken(a, user);
      const third = await newToken(a, user, { 'X-Svc-Installation-Id': unique('inst') });
      for (const token of [user.sessionToken, second, third]) assert.equal(await meStatus(b, token), 200);

      // Logout through A: A refuses the token at once, B within the bound.
      assert.equal((await a.post('/1/logout', {}, as(user.sessionToken))).status, 200);
      assertError(await a.get('/1/users/me', as(user.sessionToken)), 400, 209, 'A after logout');
      assert.equal(await refusedWithin(b, user.sessionToken, 10_000), 400, 'B after logout');

      // A session deleted through B stops working in A, which had it cached.
      assert.equal(await meStatus(a, third), 200);
      const doomed = await sessionOf(b, third);
      assert.equal((await b.delete(`/1/sessions/${doomed.objectId}`, as(second))).status, 200);
      assert.equal(await refusedWithin(a, third, 10_000), 400, 'A after delete through B');

      // A password change through A ends the user's other sessions in B too.
      const fourth = await newToken(b, user);
      assert.equal(await meStatus(b, fourth), 200);
      assert.equal((await a.put(`/1/users/${user.objectId}`, { password: 'changed' }, as(second))).status, 200);
      assert.equal(await refusedWithin(b, fourth, 10_000), 400, 'B after the password change');
      assert.equal(await meStatus(b, second), 200);
    });
  });
});
