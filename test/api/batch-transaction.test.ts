import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import { assertError } from '../helpers/users.ts';

/**
 * POST /1/batch with `"transaction": true` (what the Parse SDKs' saveAll sends with the
 * transaction option): one database transaction for every command, all or nothing.
 */
eachBackend('batch transaction', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newApp(target);
  });

  const all = async (cls: string) => {
    const listed = await app.get(`/1/classes/${cls}`, { key: 'master', query: { order: 'i', limit: 1000 } });
    assert.equal(listed.status, 200, listed.text);
    return listed.body.results as Record<string, any>[];
  };

  it('answers every command in place, as a batch without it, once all succeed', async () => {
    const cls = unique('Tx');
    const { body: counter } = await app.post(`/1/classes/${cls}`, { i: 0, n: 0 });
    const path = `/1/classes/${cls}/${counter.objectId}`;
    const response = await app.post('/1/batch', {
      transaction: true,
      requests: [
        { method: 'POST', path: `/1/classes/${cls}`, body: { i: 1 } },
        { method: 'PUT', path, body: { n: { __op: 'Increment', amount: 5 } } },
        { method: 'GET', path },
      ],
    });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.length, 3);
    assert.deepEqual(Object.keys(response.body[0].success).sort(), ['createdAt', 'objectId']);
    assert.equal(response.body[1].success.n, 5);
    // A read inside the transaction sees the writes before it.
    assert.equal(response.body[2].success.n, 5);
    assert.equal((await all(cls)).length, 2);
  });

  it('a failing 30th command leaves nothing of the 29 before it, and answers with its own error', async () => {
    const cls = unique('Tx');
    const { body: counter } = await app.post(`/1/classes/${cls}`, { i: 0, n: 0, label: 'text' });
    const requests: unknown[] = [];
    for (let i = 1; i <= 28; i++) requests.push({ method: 'POST', path: `/1/classes/${cls}`, body: { i, extra: `field ${i}` } });
    requests.push({ method: 'PUT', path: `/1/classes/${cls}/${counter.objectId}`, body: { n: { __op: 'Increment', amount: 1 } } });
    // label is a String: a Number is refused with 111.
    requests.push({ method: 'POST', path: `/1/classes/${cls}`, body: { i: 30, label: 5 } });
    const response = await app.post('/1/batch', { transaction: true, requests });
    assertError(response, 400, 111, 'the failed transaction');
    const stored = await all(cls);
    assert.equal(stored.length, 1);
    assert.equal(stored[0]!.n, 0);
    // A field first written inside the rolled-back transaction can be written with another type.
    const again = await app.post(`/1/classes/${cls}`, { i: 31, extra: 7 });
    assert.equal(again.status, 201, again.text);
  });

  it('a missing object fails the whole transaction with 101', async () => {
    const cls = unique('Tx');
    await app.post(`/1/classes/${cls}`, { i: 0 });
    const response = await app.post('/1/batch', {
      transaction: true,
      requests: [
        { method: 'POST', path: `/1/classes/${cls}`, body: { i: 1 } },
        { method: 'DELETE', path: `/1/classes/${cls}/nosuchobject` },
      ],
    });
    assertError(response, 404, 101, 'delete of a missing object');
    assert.equal((await all(cls)).length, 1);
  });

  it('two transactional batches incrementing the same counters lose no update', async () => {
    const cls = unique('Tx');
    const a = (await app.post(`/1/classes/${cls}`, { i: 1, n: 0 })).body.objectId;
    const b = (await app.post(`/1/classes/${cls}`, { i: 2, n: 0 })).body.objectId;
    const batch = () =>
      app.post('/1/batch', {
        transaction: true,
        requests: [a, b, a, b].map((id) => ({ method: 'PUT', path: `/1/classes/${cls}/${id}`, body: { n: { __op: 'Increment', amount: 1 } } })),
      });
    const responses = await Promise.all(Array.from({ length: 6 }, batch));
    for (const response of responses) assert.equal(response.status, 200, response.text);
    const stored = await all(cls);
    assert.deepEqual(stored.map((object) => object.n), [12, 12]);
  });

  it('batches that lock the same objects in opposite orders all complete, and lose no update', async () => {
    const cls = unique('Tx');
    const a = (await app.post(`/1/classes/${cls}`, { i: 1, n: 0 })).body.objectId;
    const b = (await app.post(`/1/classes/${cls}`, { i: 2, n: 0 })).body.objectId;
    const batch = (ids: string[]) =>
      app.post('/1/batch', {
        transaction: true,
        requests: ids.map((id) => ({ method: 'PUT', path: `/1/classes/${cls}/${id}`, body: { n: { __op: 'Increment', amount: 1 } } })),
      });
    const responses = await Promise.all(Array.from({ length: 4 }, (_, i) => batch(i % 2 === 0 ? [a, b] : [b, a])));
    for (const response of responses) assert.equal(response.status, 200, response.text);
    assert.deepEqual((await all(cls)).map((object) => object.n), [4, 4]);
  });

  it('without transaction, a failing command leaves the others written, as before', async () => {
    const cls = unique('Tx');
    await app.post(`/1/classes/${cls}`, { i: 0, label: 'text' });
    const response = await app.post('/1/batch', {
      requests: [
        { method: 'POST', path: `/1/classes/${cls}`, body: { i: 1 } },
        { method: 'POST', path: `/1/classes/${cls}`, body: { i: 2, label: 5 } },
      ],
    });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body[1].error.code, 111);
    assert.equal((await all(cls)).length, 2);
  });
});
