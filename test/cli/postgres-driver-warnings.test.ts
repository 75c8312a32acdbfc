import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { start, stop, tempDatabase, tempDir } from '../helpers/process.ts';
import { http } from '../helpers/client.ts';

const KEYS = { 'X-Svc-Application-Id': 'warn-app', 'X-Svc-Master-Key': 'mk' };
const QUEUED = /already executing a query/;

/**
 * The pg driver warns when a statement is given to a connection still running another one (a
 * queue it drops in pg 9). Every path that shares one connection must wait for its turn: the
 * connections planned per run (a setting made as they open), transactions, the session holding
 * the regex slots (takes and releases), LISTEN.
 */
describe('PostgreSQL connections', () => {
  it('never queue a statement behind another on one connection: at start and under a burst of requests', async () => {
    const db = await tempDatabase();
    const server = await start({ BASALT_DATABASE_URL: db.url, BASALT_DATA_DIR: tempDir(), BASALT_APP_ID: 'warn-app', BASALT_MASTER_KEY: 'mk', BASALT_LOG_LEVEL: 'info' });
    try {
      assert.doesNotMatch(server.stderr() + server.stdout(), QUEUED, 'after start');
      const created = await http(`${server.url}/1/classes/Burst`, 'POST', { body: { n: 0, name: 'first' }, headers: KEYS });
      assert.equal(created.status, 201);
      const requests: Promise<{ status: number }>[] = [];
      for (let i = 0; i < 40; i++) {
        requests.push(http(`${server.url}/1/classes/Burst`, 'POST', { body: { n: i, name: `item ${i}` }, headers: KEYS }));
        const where = encodeURIComponent(JSON.stringify({ n: { $gte: i } }));
        requests.push(http(`${server.url}/1/classes/Burst?where=${where}&order=-n&limit=5`, 'GET', { headers: KEYS }));
        const regex = encodeURIComponent(JSON.stringify({ name: { $regex: `^item ${i}` } }));
        requests.push(http(`${server.url}/1/classes/Burst?where=${regex}`, 'GET', { headers: KEYS }));
        requests.push(http(`${server.url}/1/classes/Burst/${created.body.objectId}`, 'PUT', { body: { n: { __op: 'Increment', amount: 1 } }, headers: KEYS }));
      }
      const statuses = (await Promise.all(requests)).map((response) => response.status);
      assert.deepEqual([...new Set(statuses)].sort(), [200, 201]);
      const changed = await http(`${server.url}/1/schemas/Burst`, 'PUT', { body: { fields: { extra: { type: 'String' } } }, headers: KEYS });
      assert.equal(changed.status, 200);
      assert.equal((await http(`${server.url}/1/classes/Burst/${created.body.objectId}`, 'GET', { headers: KEYS })).status, 200);
      // A warning is printed once per process, so the first one anywhere above shows here.
      assert.doesNotMatch(server.stderr() + server.stdout(), QUEUED, 'after the burst');
    } finally {
      await stop(server);
      await db.drop();
    }
  });
});
