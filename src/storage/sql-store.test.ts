import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PostgresDriver } from '../sql/postgres/driver.ts';
import { testPostgresUrl } from '../sql/postgres/connection.test-helper.ts';
import { AppNamespace } from '../sql/namespace.ts';
import { SqlAppStore } from './sql-store.ts';
import type { Row, SqlParam, StatementOptions } from '../sql/driver.ts';
import type { FindQuery, WhereNode } from '../query/ast.ts';

/** The driver, recording the statements the store sends through `all`. */
class RecordingDriver extends PostgresDriver {
  readonly sent: string[] = [];
  override async all(sql: string, params?: readonly SqlParam[], options?: StatementOptions): Promise<Row[]> {
    this.sent.push(sql);
    return super.all(sql, params, options);
  }
}

const score = { kind: 'doc', path: ['score'] } as const;
const atLeast = (value: number): WhereNode => ({ kind: 'compare', field: score, op: 'gte', value, as: 'number' });
const readableBy = (principals: string[]): WhereNode => ({ kind: 'acl', access: 'read', principals });
const both = (...nodes: WhereNode[]): WhereNode => ({ kind: 'and', nodes });
const byScore = (where: WhereNode, limit: number, skip: number): FindQuery => ({ where, order: [{ field: score, as: 'number', descending: true }], limit, skip });

/**
 * A page with its count is one round trip on PostgreSQL (sql-store.ts, `findWithCount`), and
 * gives what `find` and `count` give apart.
 */
describe('SqlAppStore.findWithCount on PostgreSQL', () => {
  const schema = `store_count_${process.pid}_${Date.now()}`;
  let driver: RecordingDriver;
  let store: SqlAppStore;

  before(async () => {
    driver = new RecordingDriver(testPostgresUrl(), 2);
    await driver.run(`CREATE SCHEMA "${schema}"`);
    await driver.run(`CREATE TABLE "${schema}"."Item" ("objectId" text COLLATE "C" PRIMARY KEY, "createdAt" text, "updatedAt" text, "_rperm" text[], "_wperm" text[], "data" jsonb)`);
    // Scores 0 … 49; every third object is readable by u1 only, the others by anyone.
    await driver.run(
      `INSERT INTO "${schema}"."Item" SELECT 'o' || lpad(i::text, 3, '0'), '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z',
       CASE WHEN i % 3 = 0 THEN ARRAY['u1'] ELSE ARRAY['*'] END, ARRAY[]::text[], jsonb_build_object('score', i) FROM generate_series(0, 49) AS "g"("i")`,
    );
    store = new SqlAppStore(new AppNamespace(driver, schema));
  });
  after(async () => {
    await driver.run(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await driver.close();
  });

  /** findWithCount, the statements it sent, and what find and count give apart. */
  async function compare(query: FindQuery, countWhere: WhereNode) {
    driver.sent.length = 0;
    const together = await store.findWithCount('Item', query, countWhere);
    const sent = driver.sent.length;
    const [objects, count] = await Promise.all([store.find('Item', query), store.count('Item', countWhere)]);
    assert.deepEqual(together.objects.map((object) => object.objectId), objects.map((object) => object.objectId));
    assert.equal(together.count, count);
    return { sent, ids: objects.map((object) => object.objectId), count };
  }

  it('reads a page and its count in one statement', async () => {
    const where = both(atLeast(30), readableBy(['*']));
    const { sent, ids, count } = await compare(byScore(where, 5, 2), where);
    assert.equal(sent, 1);
    assert.deepEqual(ids, ['o046', 'o044', 'o043', 'o041', 'o040']);
    assert.equal(count, 13);
  });

  it('counts with the where it is given, which may differ from the page’s', async () => {
    const { sent, count } = await compare(byScore(both(atLeast(30), readableBy(['*', 'u1'])), 5, 0), both(atLeast(30), readableBy(['u1'])));
    assert.equal(sent, 1);
    assert.equal(count, 7);
  });

  it('counts alone when the page is empty: a skip past the end still gets the exact count', async () => {
    const where = both(atLeast(30), readableBy(['*']));
    const { sent, ids, count } = await compare(byScore(where, 5, 100), where);
    assert.equal(sent, 2);
    assert.deepEqual(ids, []);
    assert.equal(count, 13);
  });
});
