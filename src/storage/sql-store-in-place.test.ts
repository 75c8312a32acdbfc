import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PostgresDriver } from '../sql/postgres/driver.ts';
import { SqliteDriver } from '../sql/sqlite/driver.ts';
import { AppNamespace } from '../sql/namespace.ts';
import type { SqlDriver, SqlExecutor, SqlParam, Row, StatementOptions } from '../sql/driver.ts';
import type { InPlaceChange } from '../query/in-place.ts';
import { SqlAppStore } from './sql-store.ts';
import type { StoredObject } from './port.ts';
import { BACKENDS, T0, type Opened } from './store-tables.test-helper.ts';

/** Counts what reaches the database: statements outside a transaction, and transactions. */
interface Counted {
  statements: number;
  transactions: number;
}

function counting<T extends new (...args: any[]) => SqlDriver>(Base: T) {
  return class extends Base {
    readonly counted: Counted = { statements: 0, transactions: 0 };
    override all(sql: string, params?: readonly SqlParam[], options?: StatementOptions): Promise<Row[]> {
      this.counted.statements += 1;
      return super.all(sql, params, options);
    }
    override run(sql: string, params?: readonly SqlParam[], options?: StatementOptions): Promise<number> {
      this.counted.statements += 1;
      return super.run(sql, params, options);
    }
    override writeRows(sql: string, params: readonly SqlParam[], row?: string): Promise<Row[]> {
      this.counted.statements += 1;
      return super.writeRows(sql, params, row);
    }
    override transaction<R>(fn: (tx: SqlExecutor) => Promise<R>): Promise<R> {
      this.counted.transactions += 1;
      return super.transaction(fn);
    }
  };
}

const CountingPostgres = counting(PostgresDriver);
const CountingSqlite = counting(SqliteDriver);

const T1 = '2025-01-02T00:00:00.000Z';

function change(parts: Partial<InPlaceChange>): InPlaceChange {
  return { updatedAt: T1, set: new Map(), remove: [], increment: new Map(), append: new Map(), growth: 64, sizeLimit: 128 * 1024, ...parts };
}

for (const backend of BACKENDS) {
  describe(`SqlAppStore.updateInPlace [${backend.name}]`, () => {
    let opened: Opened<SqlDriver & { counted: Counted }>;
    let store: SqlAppStore;
    let n = 0;

    before(async () => {
      opened = await backend.open<SqlDriver & { counted: Counted }>({ sqlite: (file) => new CountingSqlite(file), postgres: (url) => new CountingPostgres(url, 2) });
      store = new SqlAppStore(new AppNamespace(opened.driver, opened.schema));
    });
    after(() => opened.close());

    async function insert(data: Record<string, unknown>, wperm: string[] = ['*']): Promise<string> {
      const objectId = `o${++n}`;
      await store.insert('Item', { object: { objectId, createdAt: T0, updatedAt: T0, data, rperm: ['*'], wperm }, relations: [] });
      return objectId;
    }

    /** The stored document as JSON.stringify would write it once read back. */
    async function stored(objectId: string): Promise<StoredObject> {
      const object = await store.get('Item', objectId, null);
      assert.ok(object);
      return object;
    }

    it('sets, removes, increments and appends in one statement, no transaction, and stores what the path that reads the row stores', async () => {
      const data = { score: 5, ratio: 0.2, gone: 'x', kept: [1, { a: 'é' }], nothing: null };
      const fast = await insert(data);
      const slow = await insert(data);
      const edit = { name: { text: 'new', n: 1 }, when: { __type: 'Date', iso: T1 }, cleared: null };
      const before = { ...opened.driver.counted };
      const results = await store.updateInPlace('Item', fast, null, change({
        set: new Map(Object.entries(edit).map(([key, value]) => [key, JSON.stringify(value)])),
        remove: ['gone', 'absent'],
        increment: new Map([['score', 1], ['ratio', 0.1], ['nothing', 2], ['fresh', 1.5]]),
        append: new Map([['kept', ['true', '[2]']], ['list', ['"a"']]]),
      }));
      assert.deepEqual({ statements: opened.driver.counted.statements - before.statements, transactions: opened.driver.counted.transactions - before.transactions }, { statements: 1, transactions: 0 });
      assert.deepEqual(results, { score: 6, ratio: 0.2 + 0.1, nothing: 2, fresh: 1.5, kept: [1, { a: 'é' }, true, [2]], list: ['a'] });
      await store.update('Item', slow, null, (current) => {
        const next: Record<string, unknown> = { ...current.data, ...edit, score: 6, ratio: 0.2 + 0.1, nothing: 2, fresh: 1.5, kept: [1, { a: 'é' }, true, [2]], list: ['a'] };
        delete next.gone;
        return { object: { ...current, updatedAt: T1, data: next }, relations: [] };
      });
      const [a, b] = [await stored(fast), await stored(slow)];
      assert.deepEqual(a.data, b.data);
      assert.equal(JSON.stringify(sortKeys(a.data)), JSON.stringify(sortKeys(b.data)));
      assert.equal(a.updatedAt, T1);
    });

    it('changes no row, and says so, for a missing object, one the principals may not write, an increment of a non-number, or a document near the limit', async () => {
      const mine = await insert({ score: 1, label: 'a' }, ['u1']);
      const increment = change({ increment: new Map([['score', 1]]) });
      assert.equal(await store.updateInPlace('Item', 'missing', null, increment), null);
      assert.equal(await store.updateInPlace('Item', mine, ['u2', '*'], increment), null);
      assert.deepEqual(await store.updateInPlace('Item', mine, ['u1'], increment), { score: 2 });
      assert.equal(await store.updateInPlace('Item', mine, null, change({ increment: new Map([['label', 1]]) })), null);
      assert.equal(await store.updateInPlace('Item', mine, null, change({ append: new Map([['label', ['1']]]) })), null);
      const size = JSON.stringify({ score: 2, label: 'a' }).length;
      assert.equal(await store.updateInPlace('Item', mine, null, change({ ...increment, growth: 10, sizeLimit: size + 9 })), null);
      assert.deepEqual((await stored(mine)).data, { score: 2, label: 'a' });
      assert.equal((await stored(mine)).updatedAt, T1);
    });

    it('keeps 50 concurrent increments exact', async () => {
      const id = await insert({ score: 0 });
      const results = await Promise.all(Array.from({ length: 50 }, () => store.updateInPlace('Item', id, null, change({ increment: new Map([['score', 1]]) }))));
      assert.deepEqual(results.map((result) => result?.score as number).sort((x, y) => x - y), Array.from({ length: 50 }, (_, i) => i + 1));
      assert.deepEqual((await stored(id)).data, { score: 50 });
    });
  });
}

function sortKeys(data: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data).sort(([a], [b]) => (a < b ? -1 : 1)));
}
