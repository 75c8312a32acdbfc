import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { multiRowInsert } from './multi-row.ts';

describe('multiRowInsert', () => {
  const single = 'INSERT INTO "app_1"."Game Score" ("objectId", "data") VALUES ($1, $2::jsonb)';

  it('numbers the placeholders of each further row on', () => {
    assert.equal(multiRowInsert(single, 3, 2), 'INSERT INTO "app_1"."Game Score" ("objectId", "data") VALUES ($1, $2::jsonb), ($3, $4::jsonb), ($5, $6::jsonb)');
  });

  it('repeats positional placeholders as they are', () => {
    assert.equal(multiRowInsert('INSERT INTO "Game" ("objectId", "data") VALUES (?, jsonb(?))', 2), 'INSERT INTO "Game" ("objectId", "data") VALUES (?, jsonb(?)), (?, jsonb(?))');
  });

  it('leaves a single row as it is', () => {
    assert.equal(multiRowInsert(single, 1, 2), single);
  });

  it('renumbers past nine without mixing digits up', () => {
    const wide = `INSERT INTO "t" ("a") VALUES (${Array.from({ length: 11 }, (_, i) => `$${i + 1}`).join(', ')})`;
    const out = multiRowInsert(wide, 2, 11);
    assert.ok(out.endsWith(`, (${Array.from({ length: 11 }, (_, i) => `$${i + 12}`).join(', ')})`), out);
  });

  it('refuses anything but a single-row VALUES insert', () => {
    assert.throws(() => multiRowInsert('INSERT INTO "t" SELECT 1', 2, 1), /single-row/);
  });
});
