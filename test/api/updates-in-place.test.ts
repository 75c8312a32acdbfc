import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient, type Response } from '../helpers/client.ts';

/**
 * Updates made in one statement (docs/architecture.md, "Updates in one statement") answer and
 * store exactly what the path that reads the row does. Each update is sent twice to twin objects:
 * as it is, which takes the one statement, and with `"ACL"` set to the public ACL the object
 * already has, which changes nothing but takes the path that reads the row.
 */
const PUBLIC_ACL = { '*': { read: true, write: true } };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

eachBackend('updates in one statement', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newApp(target);
  });

  async function create(cls: string, body: Record<string, unknown>): Promise<string> {
    const created = await app.post(`/1/classes/${cls}`, body);
    assert.equal(created.status, 201, created.text);
    return created.body.objectId;
  }

  async function fields(cls: string, id: string): Promise<Record<string, unknown>> {
    const fetched = await app.get(`/1/classes/${cls}/${id}`, { key: 'master' });
    assert.equal(fetched.status, 200, fetched.text);
    const { createdAt: _c, objectId: _o, ...rest } = fetched.body;
    return rest;
  }

  /** The fields without the ACL, which the twin sent the long way stores explicitly. */
  function withoutAcl(stored: Record<string, unknown>): Record<string, unknown> {
    const { ACL: _acl, ...rest } = stored;
    return rest;
  }

  /** The answer without its time, which the two paths take a moment apart. */
  function answer(response: Response): unknown {
    if (response.status !== 200) return { status: response.status, code: response.body.code };
    assert.match(response.body.updatedAt, ISO);
    const { updatedAt: _u, ...rest } = response.body;
    return { status: 200, ...rest };
  }

  /** Sends `body` to twin objects by both paths; both answers and both stored objects must agree. */
  async function twins(initial: Record<string, unknown>, body: Record<string, unknown>, expected: unknown, options: { key?: 'master' } = {}) {
    const cls = unique('Twin');
    const fast = await create(cls, initial);
    const slow = await create(cls, initial);
    const a = await app.put(`/1/classes/${cls}/${fast}`, body, options);
    const b = await app.put(`/1/classes/${cls}/${slow}`, { ...body, ACL: PUBLIC_ACL }, options);
    assert.deepEqual(answer(a), expected, a.text);
    assert.deepEqual(answer(b), expected, b.text);
    const [storedA, storedB] = [await fields(cls, fast), await fields(cls, slow)];
    assert.equal(storedA.ACL, undefined);
    assert.deepEqual({ ...storedA, updatedAt: undefined }, { ...withoutAcl(storedB), updatedAt: undefined });
    if (a.status === 200) assert.equal(storedA.updatedAt, a.body.updatedAt);
    return storedA;
  }

  it('sets fields of every type, removes fields, and increments, answering {updatedAt} plus the new values', async () => {
    const when = { __type: 'Date', iso: '2025-06-01T10:00:00.000Z' };
    const stored = await twins(
      { score: 5, ratio: 0.2, old: 'x', tags: ['a'], profile: { level: 1 } },
      {
        score: { __op: 'Increment', amount: 1 },
        ratio: { __op: 'Increment', amount: 0.1 },
        fresh: { __op: 'Increment', amount: 2.5 },
        old: { __op: 'Delete' },
        missing: { __op: 'Delete' },
        name: 'zoë',
        when,
        tags: ['b', { n: 1 }],
        profile: { level: 2, items: [null, true] },
        flag: false,
        nothing: null,
      },
      { status: 200, score: 6, ratio: 0.2 + 0.1, fresh: 2.5 },
    );
    assert.deepEqual(
      { ...stored, updatedAt: undefined },
      { updatedAt: undefined, score: 6, ratio: 0.30000000000000004, fresh: 2.5, name: 'zoë', when, tags: ['b', { n: 1 }], profile: { level: 2, items: [null, true] }, flag: false, nothing: null },
    );
  });

  it('appends with Add, to a missing, null or existing array, answering the whole array', async () => {
    const stored = await twins(
      { tags: ['a', 1], nothing: null },
      { tags: { __op: 'Add', objects: ['a', { n: [true] }, null] }, nothing: { __op: 'Add', objects: [2] }, fresh: { __op: 'Add', objects: [[1, 2]] } },
      { status: 200, tags: ['a', 1, 'a', { n: [true] }, null], nothing: [2], fresh: [[1, 2]] },
    );
    assert.deepEqual(stored.tags, ['a', 1, 'a', { n: [true] }, null]);
    const cls = unique('NotArray');
    const id = await create(cls, { label: 'x' });
    const response = await app.put(`/1/classes/${cls}/${id}`, { label: { __op: 'Add', objects: [1] } });
    assert.deepEqual(answer(response), { status: 400, code: 111 }, response.text);
  });

  it('increments a null field from zero and whole sums stay whole numbers', async () => {
    const stored = await twins({ n: null, big: 9007199254740000, neg: -3.5 }, { n: { __op: 'Increment', amount: 3 }, big: { __op: 'Increment', amount: 1 }, neg: { __op: 'Increment', amount: 3.5 } }, { status: 200, n: 3, big: 9007199254740001, neg: 0 });
    assert.equal(stored.neg, 0);
  });

  it('answers 111 for a value of another type, and changes nothing', async () => {
    const cls = unique('Typed');
    const id = await create(cls, { score: 1, label: 'a' });
    const before_ = await fields(cls, id);
    for (const body of [{ score: 'ten' }, { label: { __op: 'Increment', amount: 1 } }, { score: [1] }]) {
      const response = await app.put(`/1/classes/${cls}/${id}`, body);
      assert.deepEqual(answer(response), { status: 400, code: 111 }, response.text);
    }
    assert.deepEqual(await fields(cls, id), before_);
  });

  it('answers 101 for a missing object and for one the caller may not write, and changes nothing', async () => {
    const cls = unique('Guarded');
    const readOnly = await create(cls, { score: 1, ACL: { '*': { read: true } } });
    const ownerOnly = await create(cls, { score: 1, ACL: { someUser: { read: true, write: true } } });
    await create(cls, { score: 1 });
    for (const id of ['nosuchobject', readOnly, ownerOnly]) {
      for (const body of [{ score: { __op: 'Increment', amount: 1 } }, { label: 'x' }, { score: { __op: 'Delete' } }]) {
        const response = await app.put(`/1/classes/${cls}/${id}`, body);
        assert.deepEqual(answer(response), { status: 404, code: 101 }, response.text);
      }
    }
    assert.equal((await fields(cls, readOnly)).score, 1);
    assert.equal((await fields(cls, ownerOnly)).score, 1);
    // The master key writes any object.
    assert.deepEqual(answer(await app.put(`/1/classes/${cls}/${ownerOnly}`, { score: { __op: 'Increment', amount: 1 } }, { key: 'master' })), { status: 200, score: 2 });
  });

  it('keeps the object size limit: 413/116 past it, and an increment of an object near it still succeeds', async () => {
    const cls = unique('Sized');
    const id = await create(cls, { a: 'a'.repeat(70_000), n: 1 });
    const response = await app.put(`/1/classes/${cls}/${id}`, { b: 'b'.repeat(70_000) });
    assert.deepEqual(answer(response), { status: 413, code: 116 }, response.text);
    assert.equal((await fields(cls, id)).b, undefined);
    // 131,072 bytes at most: this object is a few bytes under, where the one statement leaves it
    // to the path that measures the object exactly.
    const near = await create(cls, { a: 'a'.repeat(131_072 - 40), n: 1 });
    assert.deepEqual(answer(await app.put(`/1/classes/${cls}/${near}`, { n: { __op: 'Increment', amount: 1 } })), { status: 200, n: 2 });
    assert.deepEqual(answer(await app.put(`/1/classes/${cls}/${near}`, { c: 'c'.repeat(40) })), { status: 413, code: 116 });
    assert.equal((await fields(cls, near)).n, 2);
  });

  it('keeps 50 concurrent increments exact, with every answer a distinct count', async () => {
    const cls = unique('Counter');
    const id = await create(cls, { score: 0 });
    const responses = await Promise.all(Array.from({ length: 50 }, () => app.put(`/1/classes/${cls}/${id}`, { score: { __op: 'Increment', amount: 1 } })));
    for (const response of responses) assert.equal(response.status, 200, response.text);
    assert.deepEqual(responses.map((response) => response.body.score).sort((x, y) => x - y), Array.from({ length: 50 }, (_, i) => i + 1));
    assert.equal((await fields(cls, id)).score, 50);
  });
});
