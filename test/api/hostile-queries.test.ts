import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient, type Response } from '../helpers/client.ts';

/**
 * Queries whose values do not fit their field: each answers as any mismatch does (no match,
 * or 102), the same on both backends, never 500.
 */

function assertError(response: Response, status: number, code: number, label: string): void {
  assert.equal(response.status, status, `${label}: ${response.text.slice(0, 300)}`);
  assert.deepEqual(Object.keys(response.body).sort(), ['code', 'error'], label);
  assert.equal(response.body.code, code, `${label}: ${response.text.slice(0, 300)}`);
}

eachBackend('hostile queries', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newApp(target);
  });

  async function names(cls: string, where: object, label: string): Promise<string[]> {
    const response = await app.get(`/1/classes/${cls}`, { query: { where, order: 'name' } });
    assert.equal(response.status, 200, `${label}: ${response.text.slice(0, 300)}`);
    return response.body.results.map((object: { name: string }) => object.name);
  }

  it('an object or array compared with objectId, createdAt or updatedAt matches nothing, as on a typed field', async () => {
    const cls = unique('Columns');
    for (const name of ['one', 'two']) assert.equal((await app.post(`/1/classes/${cls}`, { name, n: 1 })).status, 201);
    const none = [
      { objectId: { k: 1 } }, { updatedAt: {} }, { createdAt: [1] }, { objectId: [] }, { objectId: { $in: [{}] } }, { createdAt: { $in: [[1], { a: 1 }] } },
      { updatedAt: { $eq: { k: 1 } } }, { objectId: { $in: [{}, []] }, name: 'one' }, { n: { k: 1 } }, { name: {} },
    ];
    for (const where of none) assert.deepEqual(await names(cls, where, JSON.stringify(where)), [], JSON.stringify(where));
    const all = [{ objectId: { $ne: [1] } }, { updatedAt: { $nin: [{}] } }, { createdAt: { $ne: {} } }, { objectId: { $nin: [[], { k: 1 }] } }];
    for (const where of all) assert.deepEqual(await names(cls, where, JSON.stringify(where)), ['one', 'two'], JSON.stringify(where));
    // An operator among other keys is still read as one: an unknown key beside it is refused.
    assertError(await app.get(`/1/classes/${cls}`, { query: { where: { objectId: { k: 1, $ne: 'x' } } } }), 400, 102, 'k beside $ne');
  });

  it('$select and $dontSelect between fields that hold different kinds of values match nothing, and everything', async () => {
    const inner = unique('Inner');
    const outer = unique('Outer');
    const values = {
      n: 1,
      s: '1',
      b: true,
      d: { __type: 'Date', iso: '2020-01-01T00:00:00.000Z' },
      p: { __type: 'Pointer', className: 'Other', objectId: '1' },
      o: { x: 1 },
      a: [1],
    };
    assert.equal((await app.post(`/1/classes/${inner}`, values)).status, 201);
    const created = await app.post(`/1/classes/${outer}`, { ...values, name: 'outer' });
    assert.equal(created.status, 201);
    // Pairs of the same kind, which match: a Pointer and a String are both compared as text.
    const matching = new Set(['n<n', 's<s', 'b<b', 'd<d', 'p<p', 's<p', 'p<s', 'a<n']);
    const keys = [...Object.keys(values), 'objectId'];
    const differing: string[] = [];
    for (const field of keys) {
      for (const key of keys) {
        const query = { query: { className: inner }, key };
        const expected = matching.has(`${field}<${key}`) ? ['outer'] : [];
        const selected = await names(outer, { [field]: { $select: query } }, `${field} $select ${key}`);
        const kept = await names(outer, { [field]: { $dontSelect: query } }, `${field} $dontSelect ${key}`);
        if (JSON.stringify(selected) !== JSON.stringify(expected)) differing.push(`${field} $select ${key}: ${JSON.stringify(selected)}`);
        if (JSON.stringify(kept) !== JSON.stringify(expected.length ? [] : ['outer'])) differing.push(`${field} $dontSelect ${key}: ${JSON.stringify(kept)}`);
      }
    }
    assert.deepEqual(differing, []);
  });

  it('refuses a regex repetition count over 255 (102) on both backends, and runs one of 255', async () => {
    const cls = unique('Counts');
    for (const name of ['a'.repeat(255), 'a'.repeat(256), 'b']) assert.equal((await app.post(`/1/classes/${cls}`, { name })).status, 201);
    for (const $regex of ['a{256}', 'a{1,300}', 'a{256,}', '(ab){0,1000}', 'x{99999999999999999999}']) {
      assertError(await app.get(`/1/classes/${cls}`, { query: { where: { name: { $regex } } } }), 400, 102, $regex);
    }
    assertError(await app.get(`/1/classes/${cls}`, { query: { where: { name: { $regex: 'a{2 56}', $options: 'x' } } } }), 400, 102, 'free spacing');
    const found = await app.get(`/1/classes/${cls}`, { query: { where: { name: { $regex: '^a{255}$' } } } });
    assert.equal(found.status, 200, found.text);
    assert.deepEqual(found.body.results.map((object: { name: string }) => object.name.length), [255]);
    // A { that starts no quantifier is a literal on both backends, whatever number follows.
    assert.deepEqual(await names(cls, { name: { $regex: 'a{,300}' } }, 'literal {'), []);
  });
});
