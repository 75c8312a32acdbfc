import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDriver } from '../sql/sqlite/driver.ts';
import { AppNamespace } from '../sql/namespace.ts';
import { applyMigrations } from '../sql/migrations.ts';
import { APP_MIGRATIONS } from '../sql/sqlite/migrations.ts';
import { ident } from '../sql/params.ts';
import { SqlJobStore } from './sql-jobs.ts';

/**
 * The lease rules of the job table, on SQLite (the PostgreSQL statements are the same but for
 * SKIP LOCKED; test/api/queue-processes.test.ts runs two processes on one PostgreSQL).
 */
describe('SqlJobStore leases', () => {
  const dir = mkdtempSync(join(tmpdir(), 'basalt-jobs-'));
  let driver: SqliteDriver;
  let store: SqlJobStore;
  let announced = 0;
  const t0 = 1_700_000_000_000;

  before(async () => {
    driver = new SqliteDriver(join(dir, 'app.db'));
    await driver.transaction((tx) => applyMigrations(tx, APP_MIGRATIONS, ident, ident('_MIGRATIONS')));
    store = new SqlJobStore(new AppNamespace(driver, null), async () => void (announced += 1), (type) => (type === 'mail' ? 5 : 3));
  });
  after(async () => {
    await driver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function enqueue(count: number, runAt: number): Promise<readonly string[]> {
    const { ids, step } = store.enqueueStep(Array.from({ length: count }, () => ({ type: 'noop', payload: { n: 1 }, runAt })));
    await driver.transaction(step);
    return ids;
  }

  it('gives each due job to one owner, which the lease keeps until it runs out', async () => {
    const before = announced;
    const ids = await enqueue(3, t0);
    assert.equal(announced, before + 1, 'one announcement per enqueuing transaction');
    assert.deepEqual(await store.claim('a', 10, t0 - 1, t0 + 1000), [], 'not due yet');
    const a = await store.claim('a', 2, t0, t0 + 1000);
    const b = await store.claim('b', 2, t0, t0 + 1000);
    assert.equal(a.length, 2);
    assert.equal(b.length, 1);
    assert.deepEqual([...a, ...b].map((job) => job.id).sort(), [...ids].sort());
    for (const job of a) {
      assert.equal(job.status, 'running');
      assert.equal(job.attempts, 1);
      assert.equal(job.maxAttempts, 3);
      assert.equal(job.lockedBy, 'a');
      assert.equal(job.lockedUntil, t0 + 1000);
    }
    assert.deepEqual(await store.claim('c', 10, t0 + 999, t0 + 2000), [], 'leased');
    assert.equal(await store.nextDue(), t0 + 1000);

    // a's lease runs out (its process died): c takes its jobs, and a can no longer finish them.
    const c = await store.claim('c', 10, t0 + 1000, t0 + 2000);
    assert.deepEqual(c.map((job) => job.id).sort(), [...a, ...b].map((job) => job.id).sort());
    assert.ok(c.every((job) => job.attempts === 2));
    await store.complete(a[0]!.id, 'a');
    await store.reschedule(a[1]!.id, 'a', t0, 'late');
    assert.equal((await store.get(a[0]!.id))?.lockedBy, 'c');
    assert.equal((await store.get(a[1]!.id))?.status, 'running');
    for (const job of c) await store.complete(job.id, 'c');
    assert.equal(await store.count(), 0);
    assert.equal(await store.nextDue(), null);
  });

  it('renews a lease; a failure reschedules, the last one buries with its steps', async () => {
    const [id] = await enqueue(1, t0);
    await store.claim('a', 1, t0, t0 + 1000);
    await store.renew('a', t0 + 5000);
    assert.deepEqual(await store.claim('b', 1, t0 + 4999, t0 + 6000), []);
    await store.reschedule(id!, 'a', t0 + 100, 'refused');
    const pending = await store.get(id!);
    assert.equal(pending?.status, 'pending');
    assert.equal(pending?.runAt, t0 + 100);
    assert.equal(pending?.lastError, 'refused');
    assert.equal(pending?.lockedBy, null);

    await store.claim('b', 1, t0 + 100, t0 + 1000);
    let buried = 0;
    await store.bury(id!, 'other', 'not mine', [async () => void (buried += 1)]);
    assert.equal(buried, 0, 'a process without the lease records nothing');
    await store.bury(id!, 'b', 'refused again', [async () => void (buried += 1)]);
    assert.equal(buried, 1);
    const dead = await store.get(id!);
    assert.equal(dead?.status, 'dead');
    assert.equal(dead?.attempts, 2);
    assert.equal(dead?.lastError, 'refused again');
    assert.equal(await store.nextDue(), null, 'a dead job is never due');
    assert.deepEqual((await store.list({ status: 'dead', limit: 10, skip: 0 })).map((job) => job.id), [id]);

    const retried = await store.retry(id!, t0 + 200);
    assert.equal(retried?.status, 'pending');
    assert.equal(retried?.attempts, 0);
    assert.equal(await store.nextDue(), t0 + 200);
    const [again] = await store.claim('b', 1, t0 + 200, t0 + 1000);
    assert.equal(await store.retry(id!, t0 + 300), null, 'a running job is not retried');
    await store.complete(again!.id, 'b');
  });

  it('releases its own running jobs uncounted; recovers those of a process that is gone', async () => {
    const ids = await enqueue(4, t0);
    await store.claim('a', 2, t0, t0 + 60_000);
    await store.claim('b', 2, t0, t0 + 60_000);
    assert.equal(await store.release('a', t0 + 10), 2);
    assert.equal(await store.count('pending'), 2);
    const released = (await store.list({ status: 'pending', limit: 10, skip: 0 }))[0]!;
    assert.equal(released.attempts, 0);
    assert.equal(await store.recoverOrphans('c', t0 + 20), 2, "b's jobs");
    const all = await store.list({ limit: 10, skip: 0 });
    assert.equal(all.length, 4);
    assert.ok(all.every((job) => job.status === 'pending' && job.lockedBy === null));
    assert.equal(await store.nextDue(), t0 + 10);
    for (const job of await store.claim('c', 10, t0 + 20, t0 + 1000)) await store.complete(job.id, 'c');
    assert.equal(await store.count(), 0, ids.join());
  });
});
