import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { postgresApp, sqliteApp } from '../helpers/app-database.ts';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import type { Target } from '../helpers/targets.ts';
import { as, signUp } from '../helpers/users.ts';

/**
 * Counts above 1,000 are remembered by the server process (docs/api.md "Count"). Rows written
 * into the database behind the server's back stand for another process's writes: a remembered
 * count misses them. Every write through the server, of any kind, forgets the counts at once.
 */

const MASTER = { key: 'master' } as const;
const SEEDED = 1020;
const T0 = '2026-01-01T00:00:00.000Z';

/** Public rows with `n` = from … from + count − 1, straight into the app's table. */
async function writeBehind(target: Target, className: string, from: number, count: number): Promise<void> {
  const rows = Array.from({ length: count }, (_, i) => ({ objectId: `behind${from + i}`, data: JSON.stringify({ n: from + i }) }));
  if (target.backend === 'postgres') {
    const { client, schema } = await postgresApp(className);
    try {
      for (const row of rows) {
        await client.query(`INSERT INTO "${schema}"."${className}" ("objectId", "createdAt", "updatedAt", "_rperm", "_wperm", "data") VALUES ($1, $2, $2, ARRAY['*'], ARRAY[]::text[], $3::jsonb)`, [row.objectId, T0, row.data]);
      }
    } finally {
      await client.end();
    }
    return;
  }
  const db = sqliteApp(className, { writable: true });
  try {
    const insert = db.prepare(`INSERT INTO "${className}" ("objectId", "createdAt", "updatedAt", "_rperm", "_wperm", "data") VALUES (?, ?, ?, '["*"]', '[]', jsonb(?))`);
    for (const row of rows) insert.run(row.objectId, T0, T0, row.data);
  } finally {
    db.close();
  }
}

eachBackend('remembered counts', (target) => {
  let client: AppClient;
  const className = unique('Counted');
  const ids: string[] = [];

  async function count(where: Record<string, unknown> = { n: { $gte: 0 } }): Promise<number> {
    const answer = await client.get(`/1/classes/${className}`, { ...MASTER, query: { where, count: 1, limit: 0 } });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.count;
  }

  before(async () => {
    client = await newApp(target);
    for (let start = 0; start < SEEDED; start += 50) {
      const requests = Array.from({ length: Math.min(50, SEEDED - start) }, (_, k) => ({ method: 'POST', path: `/1/classes/${className}`, body: { n: start + k } }));
      const answer = await client.post('/1/batch', { requests }, MASTER);
      assert.equal(answer.status, 200, answer.text);
      for (const result of answer.body) ids.push(result.success.objectId);
    }
  });

  it('answers a count above 1,000 again without counting, until a write of its own', async () => {
    assert.equal(await count(), SEEDED);
    await writeBehind(target, className, 5000, 5);
    assert.equal(await count(), SEEDED);
    // The page beside a remembered count is read: the rows written behind the server's back are in it.
    const page = await client.get(`/1/classes/${className}`, { ...MASTER, query: { where: { n: { $gte: 0 } }, count: 1, order: '-n', limit: 2, keys: 'n' } });
    assert.equal(page.status, 200, page.text);
    assert.deepEqual({ count: page.body.count, n: page.body.results.map((object: { n: number }) => object.n) }, { count: SEEDED, n: [5004, 5003] });
    const created = await client.post(`/1/classes/${className}`, { n: 9000 }, MASTER);
    assert.equal(created.status, 201, created.text);
    assert.equal(await count(), SEEDED + 6);
  });

  it('counts 1,000 or fewer every time', async () => {
    assert.equal(await count({ n: { $gte: 100 } }), SEEDED - 100 + 6);
    assert.equal(await count({ n: { $lt: 100 } }), 100);
    await writeBehind(target, className, -10, 3);
    assert.equal(await count({ n: { $lt: 100 } }), 103);
  });

  it('forgets at every kind of write: update, delete, a transactional batch, a plain batch, a purge', async () => {
    let expected = SEEDED + 6;
    assert.equal(await count(), expected);
    const updated = await client.put(`/1/classes/${className}/${ids[0]}`, { n: -1 }, MASTER);
    assert.equal(updated.status, 200, updated.text);
    assert.equal(await count(), (expected -= 1));
    const deleted = await client.delete(`/1/classes/${className}/${ids[1]}`, MASTER);
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(await count(), (expected -= 1));
    const together = await client.post('/1/batch', { transaction: true, requests: [{ method: 'POST', path: `/1/classes/${className}`, body: { n: 9001 } }, { method: 'POST', path: `/1/classes/${className}`, body: { n: 9002 } }] }, MASTER);
    assert.equal(together.status, 200, together.text);
    assert.equal(await count(), (expected += 2));
    const apart = await client.post('/1/batch', { requests: [{ method: 'DELETE', path: `/1/classes/${className}/${ids[2]}` }] }, MASTER);
    assert.equal(apart.status, 200, apart.text);
    assert.equal(await count(), (expected -= 1));
    const purged = await client.delete(`/1/purge/${className}`, MASTER);
    assert.equal(purged.status, 200, purged.text);
    assert.equal(await count(), 0);
  });

  it('answers counts at moved bounds exactly as counting would, for each caller, and sees its own writes', async () => {
    // 2,200 objects, n = 0 … 2199: the even ones public, the odd ones readable by one user only.
    const ranged = unique('Ranged');
    // 3 rounds × 3 callers × 45 counts.
    const client = await newApp(target, { rateLimits: { countQueriesPerMinute: 1000 } });
    const owner = await signUp(client);
    for (let start = 0; start < 2200; start += 50) {
      const requests = Array.from({ length: 50 }, (_, k) => {
        const n = start + k;
        return { method: 'POST', path: `/1/classes/${ranged}`, body: n % 2 === 0 ? { n } : { n, ACL: { [owner.objectId]: { read: true } } } };
      });
      const answer = await client.post('/1/batch', { requests }, MASTER);
      assert.equal(answer.status, 200, answer.text);
    }
    const callers = { master: MASTER, owner: as(owner.sessionToken), anyone: { key: 'rest' } as const };
    // Public objects with n = 10 created through the server between the rounds.
    let added = 0;
    const truth = (caller: keyof typeof callers, passes: (n: number) => boolean) => {
      let total = passes(10) ? added : 0;
      for (let n = 0; n < 2200; n++) if ((caller !== 'anyone' || n % 2 === 0) && passes(n)) total += 1;
      return total;
    };
    const cases: [Record<string, number>, (n: number) => boolean][] = [];
    for (const bound of [0, 1, 7, 100, 101, 555, 1000, 1999, 2150]) {
      cases.push([{ $gte: bound }, (n) => n >= bound], [{ $gt: bound }, (n) => n > bound], [{ $lt: bound + 1200 }, (n) => n < bound + 1200]);
      cases.push([{ $gte: bound, $lte: bound + 1500 }, (n) => n >= bound && n <= bound + 1500], [{ $lte: bound }, (n) => n <= bound]);
    }
    // Each round counts every case for every caller (the large ones from the values once read),
    // then writes through the server, which the next round must see.
    for (let round = 0; round < 3; round++) {
      for (const caller of Object.keys(callers) as (keyof typeof callers)[]) {
        for (const [range, passes] of cases) {
          const answer = await client.get(`/1/classes/${ranged}`, { ...callers[caller], query: { where: { n: range }, count: 1, limit: 0 } });
          assert.equal(answer.status, 200, answer.text);
          assert.equal(answer.body.count, truth(caller, passes), `${caller} ${JSON.stringify(range)} round ${round}`);
        }
      }
      const created = await client.post(`/1/classes/${ranged}`, { n: 10 }, MASTER);
      assert.equal(created.status, 201, created.text);
      added += 1;
    }
  });
});
