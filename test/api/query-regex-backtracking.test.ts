import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { http, newApp, unique, type AppClient } from '../helpers/client.ts';
import { eachBackend } from '../helpers/each-backend.ts';

/**
 * A `$regex` that backtracks without end on the values it meets (docs/api.md, "Regular
 * expressions"): on SQLite the pattern runs in the server's own JavaScript engine, where it would
 * hold the process, and every app on it, for days.
 */
eachBackend('a $regex that backtracks without end', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newApp(target);
  });

  it('answers as the pattern says, and the server keeps answering meanwhile', async () => {
    const className = unique('Backtrack');
    const names = [`${'a'.repeat(40)}!`, 'aaaa', 'b'];
    for (const name of names) assert.equal((await app.post(`/1/classes/${className}`, { name })).status, 201);
    const query = app.get(`/1/classes/${className}`, { query: { where: { name: { $regex: '^(a+)+$' } } } });
    const health = await http(`${target.url}/health`, 'GET');
    assert.equal(health.status, 200);
    const response = await query;
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.results.map((object: { name: string }) => object.name), ['aaaa']);
  });
});
