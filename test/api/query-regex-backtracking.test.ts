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

  it('with the i option too: a read by id is answered while the query runs, and the query answers as the pattern says', { timeout: 60_000 }, async () => {
    const className = unique('BacktrackCase');
    const names = [`${'a'.repeat(40)}!`, `${'A'.repeat(40)}a!`, 'aAaA', 'ÉÉé', 'b'];
    const ids: string[] = [];
    for (const name of names) {
      const created = await app.post(`/1/classes/${className}`, { name });
      assert.equal(created.status, 201);
      ids.push(created.body.objectId);
    }
    const query = (where: object) => app.get(`/1/classes/${className}`, { query: { where, order: 'name' } });
    const hostile = query({ name: { $regex: '^(a+)+$', $options: 'i' } });
    const classed = query({ name: { $regex: '^([a-c]+)+$', $options: 'im' } });
    const accented = query({ name: { $regex: '^(é+)+$', $options: 'i' } });
    const read = await app.get(`/1/classes/${className}/${ids[0]}`);
    assert.equal(read.status, 200);
    assert.equal(read.body.name, names[0]);
    for (const [response, expected] of [[await hostile, ['aAaA']], [await classed, ['aAaA', 'b']], [await accented, ['ÉÉé']]] as const) {
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body.results.map((object: { name: string }) => object.name), expected);
    }
  });

  it('a pattern the linear-time engine cannot take is stopped on SQLite (429/155), and a read by id sent beside it is answered', { timeout: 60_000 }, async () => {
    const className = unique('BacktrackRef');
    const names = [`${'a'.repeat(40)}!`, 'aaaa', 'b'];
    const ids: string[] = [];
    for (const name of names) {
      const created = await app.post(`/1/classes/${className}`, { name });
      assert.equal(created.status, 201);
      ids.push(created.body.objectId);
    }
    // A back-reference, a lookahead, counted repetitions: V8 cannot run these in linear time.
    for (const [$regex, $options] of [['^(a)\\1*(a+)+$', 'i'], ['^(?=(a+)+$)', ''], ['^(a{1,20})+$', '']]) {
      const hostile = app.get(`/1/classes/${className}`, { query: { where: { name: { $regex, $options } } } });
      const read = await app.get(`/1/classes/${className}/${ids[1]}`);
      assert.deepEqual([read.status, read.body.name], [200, 'aaaa']);
      const response = await hostile;
      if (target.backend === 'sqlite') {
        // better-sqlite3 runs the match on the server's main thread: it is stopped after a second.
        assert.equal(response.status, 429, response.text);
        assert.deepEqual([Object.keys(response.body).sort(), response.body.code], [['code', 'error'], 155]);
      } else {
        // PostgreSQL's engine does not backtrack on these, and runs in the database.
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body.results.map((object: { name: string }) => object.name), ['aaaa']);
      }
    }
    const after = await app.get(`/1/classes/${className}`, { query: { where: { name: { $regex: '^(a)\\1+$' } } } });
    assert.deepEqual(after.body.results.map((object: { name: string }) => object.name), ['aaaa']);
  });
});
