import { it } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import type { FindQuery, WhereNode } from '../../query/ast.ts';
import { sqliteDialect } from './dialect.ts';

const table = (className: string) => `"${className}"`;
const OWNERS = 100;
const ITEMS = 20_000;

/** Items point at owners of ten tiers; the page asks for the items of one tier's owners. */
function seededDatabase(field: string): Database.Database {
  const db = new Database(':memory:');
  for (const name of ['Owner', 'Item']) {
    db.exec(`CREATE TABLE "${name}" ("objectId" TEXT PRIMARY KEY, "createdAt" TEXT NOT NULL, "updatedAt" TEXT NOT NULL, "_rperm" TEXT NOT NULL, "_wperm" TEXT NOT NULL, "data" BLOB NOT NULL)`);
  }
  // A schema index ends with objectId and the permission list (storage/sql-schema-store.ts).
  db.exec(`CREATE INDEX "itemOwner" ON "Item" (${field}, "objectId", "_rperm")`);
  const insert = (name: string) => db.prepare(`INSERT INTO "${name}" VALUES (?, 'a', 'a', '["*"]', '["*"]', jsonb(?))`);
  const owner = insert('Owner');
  const item = insert('Item');
  db.transaction(() => {
    for (let i = 0; i < OWNERS; i++) owner.run(`o${String(i).padStart(4, '0')}`, JSON.stringify({ tier: i % 10 }));
    for (let i = 0; i < ITEMS; i++) {
      const ownerId = `o${String(i % OWNERS).padStart(4, '0')}`;
      item.run(`i${String((i * 7919) % ITEMS).padStart(6, '0')}`, JSON.stringify({ owner: { __type: 'Pointer', className: 'Owner', objectId: ownerId } }));
    }
  })();
  return db;
}

it("SQLite merges an $inQuery page from one index read per inner value, stopping at the page's end", () => {
  const inTier: WhereNode = { kind: 'compare', field: { kind: 'doc', path: ['tier'] }, op: 'eq', value: 3, as: 'number' };
  const query: FindQuery = {
    where: {
      kind: 'inSubquery',
      field: { kind: 'doc', path: ['owner', 'objectId'] },
      as: 'text',
      element: null,
      indexed: true,
      query: { className: 'Owner', where: inTier, select: { kind: 'column', column: 'objectId' }, limit: 100 },
    },
    order: [],
    limit: 20,
    skip: 5,
  } as FindQuery;
  const [statement] = sqliteDialect.findStatements(table, 'Item', query);
  const { sql, params } = statement!();
  // The index is made over exactly the expression the arms compare.
  const field = /SELECT "objectId" FROM "Item" WHERE (.+?) = \+?\(SELECT "_v" FROM "_o" LIMIT 1 OFFSET 0\)/.exec(sql)?.[1];
  assert.ok(field, 'the page reads the inner values arm by arm');
  const db = seededDatabase(field);

  const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...(params as unknown[])) as { detail: string }[]).map((row) => row.detail);
  assert.ok(plan.includes('MERGE (UNION ALL)'), 'the arms are merged, not read whole and sorted');
  assert.ok(plan.some((detail) => /SEARCH Item USING COVERING INDEX itemOwner \(<expr>=\?\)/.test(detail)), 'each arm seeks the index');

  const ids = (db.prepare(sql).all(...(params as unknown[])) as { objectId: string }[]).map((row) => row.objectId);
  const expected = (db.prepare(`SELECT "objectId" FROM "Item" WHERE json_extract("data", '$.owner.objectId') IN (SELECT "objectId" FROM "Owner" WHERE json_extract("data", '$.tier') = 3) ORDER BY "objectId" LIMIT 20 OFFSET 5`).all() as { objectId: string }[]).map((row) => row.objectId);
  assert.equal(ids.length, 20);
  assert.deepEqual(ids, expected);
});
