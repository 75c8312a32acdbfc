import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AppNamespace } from '../sql/namespace.ts';
import type { FindQuery, WhereNode } from '../query/ast.ts';
import { SqlAppStore } from './sql-store.ts';
import { CountMemory, LARGE_COUNT } from './count-memory.ts';
import { ValueCounts } from './value-counts.ts';
import { atLeast, BACKENDS, id, page, publicRows, score, T0, type Opened } from './store-tables.test-helper.ts';

/*
 * Remembered large counts (count-memory.ts) through the store, on both databases: rows written
 * behind the store's back stand for another process's writes, which a remembered count may miss
 * for its lifetime; the store's own writes are never missed; small counts are always counted.
 */

/** A table of 1,500 public rows (scores 0 … 1,499) and a store over it with a long-lived count memory. */
async function seeded(backend: (typeof BACKENDS)[number]): Promise<{ opened: Opened; memory: CountMemory; store: SqlAppStore }> {
  const opened = await backend.open();
  await opened.add(0, 1500);
  const memory = new CountMemory(60_000);
  return { opened, memory, store: new SqlAppStore(new AppNamespace(opened.driver, opened.schema), undefined, memory) };
}

for (const backend of BACKENDS) {
  describe(`remembered counts through the store [${backend.name}]`, () => {
    let opened: Opened;
    let memory: CountMemory;
    let store: SqlAppStore;
    let lifetimeMs = 60_000;

    before(async () => {
      ({ opened, memory, store } = await seeded(backend));
    });
    after(async () => {
      await opened?.close();
    });

    it('answers a count over 1,000 again without counting, so a write behind its back is missed', async () => {
      const everything = publicRows(atLeast(0));
      assert.equal(await store.count('Item', everything), 1500);
      await opened.add(1500, 10);
      assert.equal(await store.count('Item', everything), 1500);
      // A page with its count takes the remembered count too; the page itself is read.
      const { objects, count } = await store.findWithCount('Item', page(everything), everything);
      assert.equal(count, 1500);
      assert.deepEqual(objects.map((object) => object.objectId), [id(1509), id(1508), id(1507)]);
    });

    it('forgets every count at a write of its own, which the next count includes', async () => {
      await store.insert('Item', { object: { objectId: id(9000), createdAt: T0, updatedAt: T0, rperm: ['*'], wperm: [], data: { score: 9000 } }, relations: [] });
      assert.equal(await store.count('Item', publicRows(atLeast(0))), 1511);
      assert.equal(await store.delete('Item', id(9000), null), true);
      assert.equal(await store.count('Item', publicRows(atLeast(0))), 1510);
    });

    it(`counts ${LARGE_COUNT} or fewer every time`, async () => {
      const few = publicRows(atLeast(1000));
      assert.equal(await store.count('Item', few), 510);
      await opened.add(2000, 5);
      assert.equal(await store.count('Item', few), 515);
      const both = await store.findWithCount('Item', page(few), few);
      assert.equal(both.count, 515);
    });

    it('counts again once the lifetime has passed', async () => {
      lifetimeMs = 30;
      memory = new CountMemory(lifetimeMs);
      store = new SqlAppStore(new AppNamespace(opened.driver, opened.schema), undefined, memory);
      const everything = publicRows(atLeast(0));
      assert.equal(await store.count('Item', everything), 1515);
      await opened.add(3000, 4);
      assert.equal(await store.count('Item', everything), 1515);
      await new Promise((resolve) => setTimeout(resolve, lifetimeMs + 20));
      assert.equal(await store.count('Item', everything), 1519);
    });

    it('remembers nothing from inside a unit of work, and forgets at its end', async () => {
      const everything = publicRows(atLeast(0));
      memory = new CountMemory(60_000);
      store = new SqlAppStore(new AppNamespace(opened.driver, opened.schema), undefined, memory);
      assert.equal(await store.count('Item', everything), 1519);
      await assert.rejects(
        store.unitOfWork(async (unit) => {
          await unit.insert('Item', { object: { objectId: id(9100), createdAt: T0, updatedAt: T0, rperm: ['*'], wperm: [], data: { score: 1 } }, relations: [] });
          // The unit sees its own row; what it counts is not kept for the others.
          assert.equal(await unit.count('Item', everything), 1520);
          throw new Error('roll back');
        }),
        /roll back/,
      );
      await opened.add(4000, 2);
      // The unit's end forgot the 1,519 taken before it: this count is counted.
      assert.equal(await store.count('Item', everything), 1521);
    });
  });
}

for (const backend of BACKENDS) {
  describe(`counts at moved bounds through the store [${backend.name}]`, () => {
    let opened: Opened;
    let memory: CountMemory;
    let store: SqlAppStore;
    const between = (from: number, below: number): WhereNode => publicRows({ kind: 'and', nodes: [atLeast(from), { kind: 'compare', field: score, op: 'lt', value: below, as: 'number' }] });

    before(async () => {
      ({ opened, memory, store } = await seeded(backend));
    });
    after(async () => {
      await opened?.close();
    });

    /** Waits for the values read in the background after a second large count. */
    async function valuesRead(): Promise<void> {
      for (let i = 0; i < 1000 && memory.valuesKept === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal(memory.valuesKept, 1);
    }

    it('answers counts at other bounds from the values read after two large counts, and reads pages afresh', async () => {
      assert.equal(await store.count('Item', publicRows(atLeast(0))), 1500);
      assert.equal(memory.valuesKept, 0);
      assert.equal(await store.count('Item', publicRows(atLeast(10))), 1490);
      await valuesRead();
      await opened.add(5000, 5);
      // Counted afresh, 1,505 − bound, without the values; from them, 1,500 − bound.
      assert.equal(await store.count('Item', publicRows(atLeast(100))), 1400);
      const bound = 100;
      // Bounds never asked before, both sides and each kind of comparison, from the same values.
      assert.equal(await store.count('Item', between(50, 1450)), 1400);
      assert.equal(await store.count('Item', publicRows({ kind: 'compare', field: score, op: 'lte', value: 1200, as: 'number' })), 1201);
      assert.equal(await store.count('Item', publicRows({ kind: 'compare', field: score, op: 'gt', value: 20, as: 'number' })), 1479);
      // A page with its count: the count from the values, the page read, with the rows added behind.
      const { objects, count } = await store.findWithCount('Item', page(publicRows(atLeast(bound + 1))), publicRows(atLeast(bound + 1)));
      assert.equal(count, 1500 - bound - 1);
      assert.deepEqual(objects.map((object) => object.objectId), [id(5004), id(5003), id(5002)]);
    });

    it(`counts ${LARGE_COUNT} or fewer, and the where's other conjuncts, as they are`, async () => {
      // 1,000 or fewer by the values: counted, and the rows added behind are seen.
      assert.equal(await store.count('Item', publicRows(atLeast(600))), 905);
      assert.equal(await store.count('Item', between(100, 1100)), 1000);
      // Another rest is another where: none of its values are read yet.
      const other: WhereNode = { kind: 'and', nodes: [atLeast(0), { kind: 'acl', access: 'read', principals: ['*', 'someone'] }] };
      assert.equal(await store.count('Item', other), 1505);
    });

    it('forgets the values at a write of its own', async () => {
      assert.equal(memory.valuesKept, 1);
      await store.insert('Item', { object: { objectId: id(9000), createdAt: T0, updatedAt: T0, rperm: ['*'], wperm: [], data: { score: 9000 } }, relations: [] });
      assert.equal(await store.count('Item', publicRows(atLeast(30))), 1476);
      assert.equal(memory.valuesKept, 0);
      assert.equal(await store.count('Item', publicRows(atLeast(31))), 1475);
    });
  });
}

describe('CountMemory', () => {
  it('keeps nothing with a lifetime of 0, and nothing taken before a write', () => {
    const off = new CountMemory(0);
    off.remember('k', off.generation, 5000);
    assert.equal(off.recall('k'), undefined);
    const memory = new CountMemory(60_000);
    const generation = memory.generation;
    memory.written();
    memory.remember('k', generation, 5000);
    assert.equal(memory.recall('k'), undefined);
    memory.remember('k', memory.generation, 5000);
    assert.equal(memory.recall('k'), 5000);
  });

  it('keeps at most 262,144 values of value counts, dropping the oldest', () => {
    const memory = new CountMemory(60_000);
    const values = (from: number) => ValueCounts.of(Array.from({ length: 100_000 }, (_, i) => ({ v: from + i, n: 1 })))!;
    memory.rememberValues('a', memory.generation, values(0));
    memory.rememberValues('b', memory.generation, values(1));
    assert.equal(memory.valuesKept, 2);
    memory.rememberValues('c', memory.generation, values(2));
    assert.equal(memory.valuesKept, 2);
    assert.equal(memory.recallValues('a'), undefined);
    assert.equal(memory.recallValues('c')?.count([{ op: 'gte', value: 50_002 }]), 50_000);
    // Too few rows to be kept at all.
    memory.rememberValues('d', memory.generation, ValueCounts.of([{ v: 1, n: 1000 }]));
    assert.equal(memory.recallValues('d'), undefined);
  });

  it('drops the least recently used count past 500', () => {
    const memory = new CountMemory(60_000);
    for (let i = 0; i < 500; i++) memory.remember(`k${i}`, memory.generation, 2000 + i);
    assert.equal(memory.recall('k0'), 2000);
    memory.remember('k500', memory.generation, 2500);
    assert.equal(memory.recall('k1'), undefined);
    assert.equal(memory.recall('k0'), 2000);
    assert.equal(memory.recall('k500'), 2500);
  });
});
