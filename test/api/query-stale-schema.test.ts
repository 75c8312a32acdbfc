import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import { postgresApp } from '../helpers/app-database.ts';
import { targets } from '../helpers/targets.ts';

/**
 * Several processes on one PostgreSQL database: when one drops the last index over a field, the
 * field's stored column goes with it, and the others learn of it by a notice that arrives a
 * moment later. A query planned in that moment names the column. Here the other process's change
 * is made in SQL, with no notice at all, so the server under test keeps its schema until the
 * query fails on the column (docs/architecture.md, "Indexed fields in columns").
 */

const MASTER = { key: 'master' } as const;
const postgres = targets().find((candidate) => candidate.backend === 'postgres');

describe('a query planned from a schema another process has changed', () => {
  let app: AppClient;

  before(async () => {
    assert.ok(postgres, 'a PostgreSQL server under test');
    app = await newApp(postgres);
  });

  // A page, a page with its count (one statement), a count alone: each a class of its own, so
  // that each is the query that meets the dropped column first.
  const kinds: [string, Record<string, unknown>, (body: { results: { score: number }[]; count?: number }) => unknown, unknown][] = [
    ['a page', { order: '-score' }, (body) => body.results.map((object) => object.score), [9, 6, 4]],
    ['a page with its count', { order: 'score', count: 1, keys: 'score' }, (body) => [body.count, ...body.results.map((object) => object.score)], [3, 4, 6, 9]],
    ['a count', { count: 1, limit: 0 }, (body) => [body.count, body.results.length], [3, 0]],
  ];
  for (const [kind, params, answer, expected] of kinds) {
    it(`is planned again from the schema as stored, and answers as the documents say: ${kind}`, async () => {
      const className = unique('Stale');
      const created = await app.post(`/1/schemas/${className}`, { fields: { score: { type: 'Number' } }, indexes: { byScore: { score: -1 } } }, MASTER);
      assert.equal(created.status, 201, created.text);
      for (const score of [1, 4, 6, 9]) assert.equal((await app.post(`/1/classes/${className}`, { score })).status, 201);
      const query = async () => {
        const response = await app.get(`/1/classes/${className}`, { query: { where: { score: { $gte: 4 } }, ...params } });
        assert.equal(response.status, 200, response.text);
        return answer(response.body);
      };
      // Planned with the stored column, which the server knows of.
      assert.deepEqual(await query(), expected);

      const { client, schema } = await postgresApp(className);
      try {
        // What dropping the index does in another process: the columns go with their last index
        // (and the index with its column), and the schema row no longer lists them.
        await client.query(`ALTER TABLE "${schema}"."${className}" DROP COLUMN "f.score", DROP COLUMN "_public"`);
        const row = await client.query(`SELECT "schema" FROM "${schema}"."_SCHEMA" WHERE "className" = $1`, [className]);
        const { storedIndexes: _stored, publicColumn: _public, ...rest } = JSON.parse(String(row.rows[0].schema));
        await client.query(`UPDATE "${schema}"."_SCHEMA" SET "schema" = $1 WHERE "className" = $2`, [JSON.stringify({ ...rest, indexes: {} }), className]);
      } finally {
        await client.end();
      }
      assert.deepEqual(await query(), expected, 'planned first with the dropped column');
      const read = await app.get(`/1/schemas/${className}`, MASTER);
      assert.deepEqual(read.body.indexes, {}, 'the server has read the schema as stored');
    });
  }
});
