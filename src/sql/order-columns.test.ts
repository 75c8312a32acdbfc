import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { OrderKey } from '../query/ast.ts';
import { Params } from './params.ts';
import { postgresDialect } from './postgres/dialect.ts';
import { sqliteDialect } from './sqlite/dialect.ts';
import { postgresForSuite } from './postgres/connection.test-helper.ts';

/**
 * Ordering by objectId, createdAt or updatedAt (never null) carries no NULLS clause, so that
 * PostgreSQL reads a page in the order of the primary key or the date indexes instead of sorting
 * the whole class (`ASC NULLS FIRST` is the order of no index).
 */

const column = (name: 'objectId' | 'createdAt' | 'updatedAt', descending = false): OrderKey => ({ field: { kind: 'column', column: name }, as: 'text', descending }) as OrderKey;

type PlanNode = { 'Node Type': string; Plans?: PlanNode[] };
const nodeTypes = (node: PlanNode): string[] => [node['Node Type'], ...(node.Plans ?? []).flatMap(nodeTypes)];

describe('ORDER BY the built-in columns', () => {
  const postgres = postgresForSuite(async (client) => {
    await client.query(`CREATE TEMP TABLE "Ordered" ("objectId" text COLLATE "C" PRIMARY KEY, "createdAt" text COLLATE "C" NOT NULL, "updatedAt" text COLLATE "C" NOT NULL, "data" jsonb NOT NULL)`);
    await client.query(`CREATE INDEX ON "Ordered" ("createdAt")`);
    await client.query(`INSERT INTO "Ordered" SELECT md5(i::text), to_char(i, 'FM0000000'), to_char(i, 'FM0000000'), '{}' FROM generate_series(1, 20000) i`);
    await client.query('ANALYZE "Ordered"');
  });

  it('has no NULLS clause on either database', () => {
    for (const dialect of [postgresDialect, sqliteDialect]) {
      const sql = dialect.orderBy([column('createdAt', true)], new Params((i) => `$${i}`));
      assert.doesNotMatch(sql, /NULLS/, sql);
      assert.match(sql, /DESC/, sql);
    }
  });

  it('lets PostgreSQL read a page through the primary key or the createdAt index, with no full sort', async () => {
    for (const order of [[column('objectId')], [column('objectId', true)], [column('createdAt')], [column('createdAt', true)]]) {
      const orderBy = postgresDialect.orderBy(order, new Params((i) => `$${i}`));
      const { rows } = await postgres().query(`EXPLAIN (FORMAT JSON) SELECT * FROM "Ordered" ORDER BY ${orderBy} LIMIT 20`);
      const types = nodeTypes((rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan);
      assert.ok(!types.includes('Sort') && !types.includes('Seq Scan'), `${orderBy}: ${types.join(' > ')}`);
    }
  });
});
