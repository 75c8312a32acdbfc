import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AppNamespace } from '../sql/namespace.ts';
import type { FindQuery, WhereNode } from '../query/ast.ts';
import type { Row, SqlParam, StatementOptions } from '../sql/driver.ts';
import { SqlAppStore } from './sql-store.ts';
import { atLeast, BACKENDS, id, page, publicRows, score, type Opened } from './store-tables.test-helper.ts';

/*
 * Pages read through the statements of a template (sql-store.ts `sameStatements`, `findLike`):
 * the template's statement with the values in place of its sentinels, which must read exactly
 * what the query with those values reads.
 */

const S1 = -987_654_321.125;
const S2 = -988_654_324.125;
const below = (value: number): WhereNode => ({ kind: 'compare', field: score, op: 'lt', value, as: 'number' });
const between = (from: number, to: number): FindQuery => page(publicRows({ kind: 'and', nodes: [atLeast(from), below(to)] }));
const ids = (objects: readonly { objectId: string }[]) => objects.map((object) => object.objectId);

for (const backend of BACKENDS) {
  describe(`pages read through a template's statements [${backend.name}]`, () => {
    let opened: Opened;
    let store: SqlAppStore;
    const sent: { sql: string; params: readonly SqlParam[] }[] = [];

    before(async () => {
      opened = await backend.open();
      await opened.add(0, 200);
      const all = opened.driver.all.bind(opened.driver);
      opened.driver.all = (sql: string, params?: readonly SqlParam[], options?: StatementOptions): Promise<Row[]> => {
        sent.push({ sql, params: params ?? [] });
        return all(sql, params, options);
      };
      store = new SqlAppStore(new AppNamespace(opened.driver, opened.schema));
    });
    after(async () => {
      await opened?.close();
    });

    it('finds a query the same as its template with the values put in, and sends the template with them', async () => {
      const template = between(S1, S2);
      assert.equal(store.sameStatements('Item', template, between(10, 50), [S1, S2], [10, 50]), true);
      for (const [from, to] of [
        [10, 50],
        [150, 400],
        [-5, 3],
        [0.5, 2.5],
      ] as const) {
        sent.length = 0;
        const like = await store.findLike('Item', template, [S1, S2], [from, to]);
        assert.deepEqual(ids(like), ids(await store.find('Item', between(from, to))), `${from} … ${to}`);
        assert.equal(sent.length, 2);
        assert.deepEqual(sent[0], sent[1]);
        assert.ok(sent[0]!.params.includes(from) && sent[0]!.params.includes(to) && !sent[0]!.params.includes(S1));
      }
      assert.deepEqual(ids(await store.findLike('Item', template, [S1, S2], [10, 50])), [id(49), id(48), id(47)]);
    });

    it('does not match a query whose statement differs beyond the sentinels', async () => {
      const template = between(S1, S2);
      // Another page size, other values than the sentinels stand for, another field, another reader.
      assert.equal(store.sameStatements('Item', template, { ...between(10, 50), limit: 4 }, [S1, S2], [10, 50]), false);
      assert.equal(store.sameStatements('Item', template, between(10, 51), [S1, S2], [10, 50]), false);
      assert.equal(store.sameStatements('Item', template, between(10, 50), [S2, S1], [10, 50]), false);
      const otherField: WhereNode = { kind: 'compare', field: { kind: 'doc', path: ['rank'] }, op: 'gte', value: 10, as: 'number' };
      assert.equal(store.sameStatements('Item', template, page(publicRows({ kind: 'and', nodes: [otherField, below(50)] })), [S1, S2], [10, 50]), false);
      const someone: WhereNode = { kind: 'and', nodes: [atLeast(10), below(50), { kind: 'acl', access: 'read', principals: ['*', 'u1'] }] };
      assert.equal(store.sameStatements('Item', template, page(someone), [S1, S2], [10, 50]), false);
    });
  });
}
