import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';

eachBackend('X-Svc-Request-Id', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newApp(target);
  });

  const count = async (cls: string) => (await app.get(`/1/classes/${cls}`, { query: { count: 1, limit: 0 } })).body.count;

  it('answers a repeated create with the first result and writes once', async () => {
    const cls = unique('Order');
    const id = unique('req');
    const first = await app.post(`/1/classes/${cls}`, { item: 'tea' }, { headers: { 'X-Svc-Request-Id': id } });
    assert.equal(first.status, 201);
    const again = await app.post(`/1/classes/${cls}`, { item: 'tea' }, { headers: { 'X-Parse-Request-Id': id } });
    assert.equal(again.status, 201);
    assert.deepEqual(again.body, first.body);
    assert.equal(again.headers.get('location'), first.headers.get('location'));
    assert.match(String(again.headers.get('location')), new RegExp(`/1/classes/${cls}/${first.body.objectId}$`));
    assert.equal(await count(cls), 1);
    const other = await app.post(`/1/classes/${cls}`, { item: 'tea' }, { headers: { 'X-Svc-Request-Id': unique('req') } });
    assert.notEqual(other.body.objectId, first.body.objectId);
    assert.equal(await count(cls), 2);
  });

  it('replays a refused request as refused, and applies an increment once', async () => {
    const cls = unique('Order');
    const id = unique('req');
    for (let i = 0; i < 2; i++) {
      const refused = await app.post(`/1/classes/${cls}`, { 'bad key': 1 }, { headers: { 'X-Svc-Request-Id': id } });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.code, 105);
    }
    const { body: created } = await app.post(`/1/classes/${cls}`, { n: 0 });
    const bump = unique('req');
    for (let i = 0; i < 3; i++) {
      const response = await app.put(`/1/classes/${cls}/${created.objectId}`, { n: { __op: 'Increment', amount: 1 } }, { headers: { 'X-Svc-Request-Id': bump } });
      assert.equal(response.status, 200);
      assert.equal(response.body.n, 1);
    }
    assert.equal((await app.get(`/1/classes/${cls}/${created.objectId}`)).body.n, 1);
  });

  it('writes once when the same id arrives twice at the same time', async () => {
    const cls = unique('Order');
    const id = unique('req');
    const answers = await Promise.all([1, 2, 3].map(() => app.post(`/1/classes/${cls}`, { item: 'x' }, { headers: { 'X-Svc-Request-Id': id } })));
    for (const answer of answers) assert.ok(answer.status === 201 || (answer.status === 400 && answer.body.code === 159), answer.text);
    assert.ok(answers.some((answer) => answer.status === 201));
    assert.equal(await count(cls), 1);
  });

  it('refuses a malformed request id with 107 and writes nothing', async () => {
    const cls = unique('Order');
    const refused = await app.post(`/1/classes/${cls}`, { item: 'x' }, { headers: { 'X-Svc-Request-Id': 'x'.repeat(129) } });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.code, 107);
    assert.deepEqual((await app.get(`/1/classes/${cls}`)).body, { results: [] });
  });
});
