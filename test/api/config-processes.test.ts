import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AppClient } from '../helpers/client.ts';
import { withTwoProcesses } from '../helpers/shared-database.ts';

/**
 * Spec 2.9 across server processes: each process caches the config, so a change made through
 * one must reach the others. Only PostgreSQL is shared by several processes; a SQLite data
 * directory belongs to one process, which config.test.ts covers on both backends.
 */

const MASTER = { key: 'master' } as const;

/**
 * Polls (bounded, well below the cache's one-minute backstop, so only the change notification
 * can make it pass) until the config read through `client` satisfies `test`.
 */
async function seenWithin(client: AppClient, test: (params: Record<string, unknown>) => boolean, limitMs: number): Promise<Record<string, unknown>> {
  const deadline = Date.now() + limitMs;
  let params = (await client.get('/1/config')).body.params;
  while (!test(params) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    params = (await client.get('/1/config')).body.params;
  }
  return params;
}

describe('config: several processes on one PostgreSQL', () => {
  it('a change made through one process is seen by the other, which had the config cached', async () => {
    await withTwoProcesses(async (a, b) => {
      assert.equal((await a.put('/1/config', { params: { motd: 'first', hidden: 'no' } }, MASTER)).status, 200);
      // B reads (and caches) the first version.
      assert.deepEqual((await b.get('/1/config')).body.params, { motd: 'first', hidden: 'no' });

      assert.equal((await a.put('/1/config', { params: { motd: 'second', hidden: 'yes' }, masterKeyOnly: { hidden: true } }, MASTER)).status, 200);
      const changed = await seenWithin(b, (params) => params.motd === 'second', 10_000);
      assert.deepEqual(changed, { motd: 'second' }, 'B after the change through A');

      // And the other way round: a removal through B reaches A, which has cached the second version.
      assert.deepEqual((await a.get('/1/config')).body.params, { motd: 'second' });
      assert.equal((await b.put('/1/config', { params: { motd: { __op: 'Delete' } } }, MASTER)).status, 200);
      const removed = await seenWithin(a, (params) => !('motd' in params), 10_000);
      assert.deepEqual(removed, {}, 'A after the removal through B');
      assert.deepEqual((await a.get('/1/config', MASTER)).body.params, { hidden: 'yes' });
    });
  });
});
