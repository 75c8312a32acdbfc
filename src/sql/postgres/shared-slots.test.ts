import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { PostgresSharedSlots } from './shared-slots.ts';
import { postgresForSuite, testPostgresUrl } from './connection.test-helper.ts';

/** Slots as advisory locks: each take locks one slot, the first free one, and release frees it. */
describe('PostgresSharedSlots', () => {
  const observer = postgresForSuite();
  const opened: PostgresSharedSlots[] = [];
  const slotsOf = () => {
    const slots = new PostgresSharedSlots(testPostgresUrl());
    opened.push(slots);
    return slots;
  };
  after(async () => {
    for (const slots of opened) await slots.close();
  });
  /** The slot numbers of `key` locked by any session but the observer's, in order. */
  const held = async (key: string) => {
    const { rows } = await observer().query(
      `SELECT objid::int AS "slot" FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND classid = hashtext($1)::oid AND pid <> pg_backend_pid() ORDER BY 1`,
      [key],
    );
    return rows.map((row) => Number(row.slot));
  };

  it('takes one slot at a time, the first free one, until all are held; a release frees exactly that one', async () => {
    const key = `test:${randomUUID()}`;
    const slots = slotsOf();
    const first = await slots.take(key, 3);
    assert.ok(first);
    assert.deepEqual(await held(key), [0], 'one slot, not every free one');
    const second = await slots.take(key, 3);
    const third = await slots.take(key, 3);
    assert.ok(second && third);
    assert.deepEqual(await held(key), [0, 1, 2]);
    assert.equal(await slots.take(key, 3), null, 'all three held');
    await second.release();
    await second.release();
    assert.deepEqual(await held(key), [0, 2], 'a second release changes nothing');
    const again = await slots.take(key, 3);
    assert.ok(again);
    assert.deepEqual(await held(key), [0, 1, 2], 'the freed slot is taken again');
    assert.equal(await slots.take(key, 0), null, 'no slot among none');
  });

  it('takes made at once in one process get distinct slots', async () => {
    const key = `test:${randomUUID()}`;
    const slots = slotsOf();
    const holds = await Promise.all(Array.from({ length: 4 }, () => slots.take(key, 3)));
    assert.equal(holds.filter((hold) => hold === null).length, 1, 'three slots for four takes');
    assert.deepEqual(await held(key), [0, 1, 2]);
    for (const hold of holds) await hold?.release();
    assert.deepEqual(await held(key), []);
  });

  it('another process holds its own slots of the same key; closing its connection frees them', async () => {
    const key = `test:${randomUUID()}`;
    const mine = slotsOf();
    const theirs = slotsOf();
    assert.ok(await theirs.take(key, 2));
    assert.ok(await mine.take(key, 2), 'the second slot');
    assert.equal(await mine.take(key, 2), null);
    await theirs.close();
    let left = await held(key);
    for (let attempt = 0; left.length > 1 && attempt < 50; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      left = await held(key);
    }
    assert.deepEqual(left, [1], 'slot 0 went with the closed connection');
    assert.ok(await mine.take(key, 2), 'and is free again');
  });
});
