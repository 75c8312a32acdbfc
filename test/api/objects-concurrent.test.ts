import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { unique, type AppClient } from '../helpers/client.ts';
import { as, assertError, newUserApp, signUp, type TestUser } from '../helpers/users.ts';

/**
 * Many reads and creates at the same moment: the storage may answer them together (one statement
 * for the primary-key reads of a table, one multi-row insert for the creates of a class), and
 * each caller must still get exactly its own answer.
 */
eachBackend('objects read and written at the same moment', (target) => {
  let app: AppClient;
  let alice: TestUser;
  before(async () => {
    app = await newUserApp(target);
    alice = await signUp(app);
  });

  it('parallel reads of public, private and missing objects each get their own answer', async () => {
    const cls = unique('Shelf');
    const objects: { objectId: string; n: number; mine: boolean }[] = [];
    for (let n = 0; n < 24; n++) {
      const mine = n % 3 === 0;
      const ACL = mine ? { [alice.objectId]: { read: true, write: true } } : { '*': { read: true } };
      const created = await app.post(`/1/classes/${cls}`, { n, ACL });
      assert.equal(created.status, 201, created.text);
      objects.push({ objectId: created.body.objectId, n, mine });
    }
    // Every id twice, plus ids that do not exist, all at once, as anonymous and as alice.
    const ids = [...objects.map((o) => o.objectId), ...objects.map((o) => o.objectId), 'nothere001', 'nothere002'];
    const [anonymous, asAlice] = await Promise.all([
      Promise.all(ids.map((id) => app.get(`/1/classes/${cls}/${id}`))),
      Promise.all(ids.map((id) => app.get(`/1/classes/${cls}/${id}`, as(alice.sessionToken)))),
    ]);
    ids.forEach((id, i) => {
      const object = objects.find((o) => o.objectId === id);
      if (!object) {
        assertError(anonymous[i]!, 404, 101, id);
        assertError(asAlice[i]!, 404, 101, id);
        return;
      }
      if (object.mine) assertError(anonymous[i]!, 404, 101, id);
      else assert.deepEqual([anonymous[i]!.status, anonymous[i]!.body.objectId, anonymous[i]!.body.n], [200, id, object.n]);
      assert.deepEqual([asAlice[i]!.status, asAlice[i]!.body.objectId, asAlice[i]!.body.n], [200, id, object.n]);
    });
    // The two answers for one id are separate objects all the way down.
    assert.deepEqual(asAlice[0]!.body, asAlice[24]!.body);
  });

  it('parallel creates of one class are all stored, and a duplicate fails only its own request', async () => {
    const cls = unique('Crowd');
    const created = await Promise.all(Array.from({ length: 40 }, (_, n) => app.post(`/1/classes/${cls}`, { n })));
    for (const response of created) assert.equal(response.status, 201, response.text);
    const listed = await app.get(`/1/classes/${cls}`, { query: { order: 'n', limit: 100 } });
    assert.deepEqual(listed.body.results.map((o: { n: number }) => o.n), Array.from({ length: 40 }, (_, n) => n));
    assert.equal(new Set(created.map((r) => r.body.objectId)).size, 40);

    // Sign-ups share a unique index: ten at once with one username, ten with names of their own.
    const taken = unique('same');
    const signUps = await Promise.all([
      ...Array.from({ length: 10 }, () => app.post('/1/users', { username: taken, password: 'pw-123456' })),
      ...Array.from({ length: 10 }, (_, n) => app.post('/1/users', { username: `${taken}-${n}`, password: 'pw-123456' })),
    ]);
    const sameName = signUps.slice(0, 10);
    assert.equal(sameName.filter((r) => r.status === 201).length, 1);
    for (const response of sameName.filter((r) => r.status !== 201)) assertError(response, 400, 202);
    for (const response of signUps.slice(10)) assert.equal(response.status, 201, response.text);
    const users = await app.get('/1/users', { key: 'master', query: { where: { username: { $regex: `^${taken}` } }, limit: 100 } });
    assert.equal(users.body.results.length, 11);
  });
});
