import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { unique } from '../helpers/client.ts';
import { withTwoProcesses } from '../helpers/shared-database.ts';

/**
 * Two processes on one PostgreSQL behave as one service: a class one process has just made is
 * found by the other at once, before the other's schema cache hears of it (docs/architecture.md,
 * "Caches and invalidation").
 */
describe('a new class seen by another process at once (PostgreSQL)', () => {
  it('an object created on one process is found, counted and read by id on the other, right away', async () => {
    await withTwoProcesses(async (a, b) => {
      for (let i = 0; i < 20; i++) {
        const className = unique('Fresh');
        const created = await a.post(`/1/classes/${className}`, { n: i });
        assert.equal(created.status, 201, created.text);
        const found = await b.get(`/1/classes/${className}`, { query: { count: 1 } });
        assert.equal(found.status, 200, found.text);
        assert.deepEqual([found.body.count, found.body.results.map((object: { objectId: string }) => object.objectId)], [1, [created.body.objectId]]);
        const read = await b.get(`/1/classes/${className}/${created.body.objectId}`);
        assert.equal(read.status, 200, read.text);
        assert.equal(read.body.n, i);
      }
    });
  });
});
