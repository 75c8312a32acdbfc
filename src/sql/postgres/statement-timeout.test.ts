import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PostgresDriver } from './driver.ts';
import { testPostgresUrl } from './connection.test-helper.ts';
import { ApiError } from '../../errors/index.ts';

/**
 * `--statement-timeout` (PostgresDriver): a statement past the limit is cancelled by PostgreSQL
 * and answered 124, on every way a statement reaches a pooled connection, and the connection
 * serves the next statement. pg_sleep runs far past the limit, so nothing here races the clock.
 */
describe('PostgreSQL statement time limit', () => {
  let driver: PostgresDriver;
  let unlimited: PostgresDriver;

  before(() => {
    // Pool size 2: one connection in each pool, so the statements after a cancel reuse it.
    driver = new PostgresDriver(testPostgresUrl(), 2, 200);
    unlimited = new PostgresDriver(testPostgresUrl(), 2, 0);
  });
  after(async () => {
    await Promise.all([driver.close(), unlimited.close()]);
  });

  function isTimeout(error: unknown): boolean {
    assert.ok(error instanceof ApiError, String(error));
    assert.equal(error.code, 124);
    assert.equal(error.status, 400);
    assert.match(error.message, /200 ms/);
    return true;
  }

  it('cancels a statement past the limit with 124, and the same connection answers the next one', async () => {
    await assert.rejects(driver.all('SELECT pg_sleep(5)'), isTimeout);
    assert.deepEqual(await driver.all('SELECT 1 AS "one"'), [{ one: 1 }]);
    await assert.rejects(driver.all('SELECT pg_sleep(5), $1::int AS "n"', [1], { planPerRun: true }), isTimeout);
    assert.deepEqual(await driver.all('SELECT $1::int AS "n"', [2], { planPerRun: true }), [{ n: 2 }]);
    await assert.rejects(driver.run('SELECT pg_sleep(5)'), isTimeout);
    assert.deepEqual(await driver.all(`SELECT current_setting('statement_timeout') AS "limit"`), [{ limit: '200ms' }]);
  });

  it('cancels inside a transaction, rolls it back, and lets a transaction lift the limit for itself', async () => {
    await assert.rejects(
      driver.transaction(async (tx) => {
        await tx.run('SELECT 1');
        await tx.all('SELECT pg_sleep(5)');
      }),
      isTimeout,
    );
    const slept = await driver.transaction(async (tx) => {
      await tx.run(tx.dialect.unlimitedStatementsSql()!);
      return tx.all(`SELECT pg_sleep(0.3)::text AS "slept"`);
    });
    assert.deepEqual(slept, [{ slept: '' }]);
    // SET LOCAL ended with its transaction.
    assert.deepEqual(await driver.all(`SELECT current_setting('statement_timeout') AS "limit"`), [{ limit: '200ms' }]);
  });

  it('waits for a session lock longer than the limit, and gives the connection back with it', async () => {
    const key = `statement-timeout-test-${process.pid}`;
    let acquired!: () => void;
    const isHeld = new Promise<void>((resolve) => (acquired = resolve));
    // Another process's hold, over twice the limit: the wait for it is no statement to cancel.
    const holding = unlimited.withSessionLock(key, async () => {
      acquired();
      await new Promise((resolve) => setTimeout(resolve, 600));
    });
    await isHeld;
    assert.equal(await driver.withSessionLock(key, () => Promise.resolve('held')), 'held');
    await holding;
    assert.deepEqual(await driver.all(`SELECT current_setting('statement_timeout') AS "limit"`), [{ limit: '200ms' }]);
  });

  it('sets no limit with 0', async () => {
    assert.deepEqual(await unlimited.all(`SELECT current_setting('statement_timeout') AS "limit"`), [{ limit: '0' }]);
  });
});
