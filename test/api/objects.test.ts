import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

eachBackend('objects', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newApp(target);
  });

  it('creates an object: 201, Location and {objectId, createdAt}', async () => {
    const cls = unique('Game');
    const created = await app.post(`/1/classes/${cls}`, { score: 1337, playerName: 'Sean Plott', cheatMode: false });
    assert.equal(created.status, 201);
    assert.deepEqual(Object.keys(created.body).sort(), ['createdAt', 'objectId']);
    assert.match(created.body.objectId, /^[A-Za-z0-9]{15}$/);
    assert.match(created.body.createdAt, ISO);
    assert.equal(created.headers.get('location'), `${target.url}/1/classes/${cls}/${created.body.objectId}`);

    const fetched = await app.get(`/1/classes/${cls}/${created.body.objectId}`);
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.body, {
      score: 1337,
      playerName: 'Sean Plott',
      cheatMode: false,
      objectId: created.body.objectId,
      createdAt: created.body.createdAt,
      updatedAt: created.body.createdAt,
    });
  });

  it('updates only the given keys and answers {updatedAt}', async () => {
    const cls = unique('Game');
    const { body: created } = await app.post(`/1/classes/${cls}`, { score: 1, name: 'a' });
    const updated = await app.put(`/1/classes/${cls}/${created.objectId}`, { score: 2 });
    assert.equal(updated.status, 200);
    assert.deepEqual(Object.keys(updated.body), ['updatedAt']);
    assert.match(updated.body.updatedAt, ISO);
    const { body } = await app.get(`/1/classes/${cls}/${created.objectId}`);
    assert.equal(body.score, 2);
    assert.equal(body.name, 'a');
    assert.equal(body.updatedAt, updated.body.updatedAt);
    assert.ok(body.updatedAt >= body.createdAt);
  });

  it('deletes an object: 200 {} and then 404/101', async () => {
    const cls = unique('Game');
    const { body: created } = await app.post(`/1/classes/${cls}`, { a: 1 });
    const deleted = await app.delete(`/1/classes/${cls}/${created.objectId}`);
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.body, {});
    const again = await app.get(`/1/classes/${cls}/${created.objectId}`);
    assert.equal(again.status, 404);
    assert.equal(again.body.code, 101);
    const deleteAgain = await app.delete(`/1/classes/${cls}/${created.objectId}`);
    assert.equal(deleteAgain.status, 404);
    assert.equal(deleteAgain.body.code, 101);
  });

  it('answers 404/101 for a missing object, a missing class and an update of either', async () => {
    const cls = unique('Game');
    await app.post(`/1/classes/${cls}`, { a: 1 });
    for (const path of [`/1/classes/${cls}/nope123456`, `/1/classes/${unique('Missing')}/nope123456`]) {
      const got = await app.get(path);
      assert.equal(got.status, 404);
      assert.deepEqual(Object.keys(got.body).sort(), ['code', 'error']);
      assert.equal(got.body.code, 101);
      const put = await app.put(path, { a: 2 });
      assert.equal(put.status, 404);
      assert.equal(put.body.code, 101);
    }
  });

  it('lists objects with equality where, order, limit and skip', async () => {
    const cls = unique('Score');
    for (const [name, score] of [['a', 5], ['b', 3], ['c', 9], ['d', 3], ['e', 7]] as const) {
      assert.equal((await app.post(`/1/classes/${cls}`, { name, score, even: score % 2 === 0 })).status, 201);
    }
    const all = await app.get(`/1/classes/${cls}`, { query: { order: 'score,name' } });
    assert.equal(all.status, 200);
    assert.deepEqual(all.body.results.map((o: any) => o.name), ['b', 'd', 'a', 'e', 'c']);
    const desc = await app.get(`/1/classes/${cls}`, { query: { order: '-score', limit: 2 } });
    assert.deepEqual(desc.body.results.map((o: any) => o.name), ['c', 'e']);
    const paged = await app.get(`/1/classes/${cls}`, { query: { order: 'score,name', limit: 2, skip: 2 } });
    assert.deepEqual(paged.body.results.map((o: any) => o.name), ['a', 'e']);
    const eq = await app.get(`/1/classes/${cls}`, { query: { where: { score: 3 }, order: 'name' } });
    assert.deepEqual(eq.body.results.map((o: any) => o.name), ['b', 'd']);
    const byName = await app.get(`/1/classes/${cls}`, { query: { where: { name: 'e', score: 7 } } });
    assert.deepEqual(byName.body.results.map((o: any) => o.name), ['e']);
    const none = await app.get(`/1/classes/${cls}`, { query: { where: { name: 'e', score: 3 } } });
    assert.deepEqual(none.body, { results: [] });
    const count = await app.get(`/1/classes/${cls}`, { query: { where: { score: 3 }, count: 1, limit: 0 } });
    assert.deepEqual(count.body, { results: [], count: 2 });
    const countWithResults = await app.get(`/1/classes/${cls}`, { query: { count: 1, limit: 1, order: 'name' } });
    assert.equal(countWithResults.body.count, 5);
    assert.equal(countWithResults.body.results.length, 1);
  });

  it('lists an unknown class as empty', async () => {
    const listed = await app.get(`/1/classes/${unique('Nothing')}`);
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body, { results: [] });
  });

  it('refuses bad limit and skip values with 117 and 118', async () => {
    const cls = unique('Score');
    await app.post(`/1/classes/${cls}`, { a: 1 });
    for (const limit of ['-1', '1.5', 'ten']) {
      const response = await app.get(`/1/classes/${cls}`, { query: { limit } });
      assert.equal(response.status, 400);
      assert.equal(response.body.code, 117);
    }
    for (const skip of ['-3', 'x']) {
      const response = await app.get(`/1/classes/${cls}`, { query: { skip } });
      assert.equal(response.status, 400);
      assert.equal(response.body.code, 118);
    }
    const clamped = await app.get(`/1/classes/${cls}`, { query: { limit: 5000 } });
    assert.equal(clamped.status, 200);
    assert.equal(clamped.body.results.length, 1);
  });

  it('keeps app data apart: app B cannot read, change, delete or list app A objects', async () => {
    const other = await newApp(target);
    const cls = unique('Secret');
    const { body: created } = await app.post(`/1/classes/${cls}`, { secret: 'a' });
    const path = `/1/classes/${cls}/${created.objectId}`;
    assert.equal((await other.get(path)).status, 404);
    assert.equal((await other.put(path, { secret: 'b' })).status, 404);
    assert.equal((await other.delete(path)).status, 404);
    assert.deepEqual((await other.get(`/1/classes/${cls}`)).body, { results: [] });
    assert.deepEqual((await other.get(path, { key: 'master' })).body.code, 101);
    // app A's keys do not open app B
    const crossKey = await other.get(path, { headers: { 'X-Svc-Application-Id': other.app.applicationId, 'X-Svc-Master-Key': app.app.masterKey } });
    assert.equal(crossKey.status, 401);
    assert.equal(crossKey.body.code, 903);
    const { body: still } = await app.get(path);
    assert.equal(still.secret, 'a');
  });
});
