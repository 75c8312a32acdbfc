import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient, type Response } from '../helpers/client.ts';

/** Spec 2.3: update operators, their results in the PUT response, and their atomicity. */

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function assertError(response: Response, status: number, code: number): void {
  assert.equal(response.status, status, response.text);
  assert.deepEqual(Object.keys(response.body).sort(), ['code', 'error']);
  assert.equal(response.body.code, code, response.text);
  assert.equal(typeof response.body.error, 'string');
}

/** JSON with sorted keys: PostgreSQL's jsonb does not keep the key order of a document. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Arrays whose order the spec leaves open, in a fixed order for comparison. */
const sorted = (values: unknown[]) => [...values].sort((a, b) => (canonical(a) < canonical(b) ? -1 : canonical(a) > canonical(b) ? 1 : 0));

eachBackend('update operators', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newApp(target);
  });

  async function create(cls: string, body: Record<string, unknown>): Promise<string> {
    const created = await app.post(`/1/classes/${cls}`, body);
    assert.equal(created.status, 201, created.text);
    return created.body.objectId;
  }

  /** The object's stored fields, without the three built-in ones. */
  async function fields(cls: string, id: string): Promise<Record<string, unknown>> {
    const fetched = await app.get(`/1/classes/${cls}/${id}`);
    assert.equal(fetched.status, 200, fetched.text);
    const { objectId: _id, createdAt: _c, updatedAt: _u, ...rest } = fetched.body;
    return rest;
  }

  /** A PUT that must succeed; returns its body after checking updatedAt. */
  async function update(cls: string, id: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const updated = await app.put(`/1/classes/${cls}/${id}`, body);
    assert.equal(updated.status, 200, updated.text);
    assert.match(updated.body.updatedAt, ISO);
    return updated.body;
  }

  async function schemaFields(cls: string): Promise<Record<string, unknown>> {
    const schema = await app.get(`/1/schemas/${cls}`, { key: 'master' });
    assert.equal(schema.status, 200, schema.text);
    return schema.body.fields;
  }

  it('Increment adds the amount and reports the new value: {updatedAt, score: 6}', async () => {
    const cls = unique('Game');
    const id = await create(cls, { score: 5, name: 'x' });
    const body = await update(cls, id, { score: { __op: 'Increment', amount: 1 } });
    assert.deepEqual(body, { updatedAt: body.updatedAt, score: 6 });
    assert.deepEqual(await fields(cls, id), { score: 6, name: 'x' });
    assert.deepEqual(await update(cls, id, { score: { __op: 'Increment', amount: -10 } }).then((b) => b.score), -4);
    assert.deepEqual(await update(cls, id, { score: { __op: 'Increment', amount: 0.25 } }).then((b) => b.score), -3.75);
    assert.deepEqual(await fields(cls, id), { score: -3.75, name: 'x' });
  });

  it('Increment on a missing or null field starts from the amount', async () => {
    const cls = unique('Game');
    const id = await create(cls, { name: 'x', empty: null });
    const body = await update(cls, id, { lives: { __op: 'Increment', amount: 3 }, empty: { __op: 'Increment', amount: -2 } });
    assert.deepEqual(body, { updatedAt: body.updatedAt, lives: 3, empty: -2 });
    assert.deepEqual(await fields(cls, id), { name: 'x', lives: 3, empty: -2 });
    assert.deepEqual((await schemaFields(cls)).lives, { type: 'Number' });
  });

  it('Increment on a create stores the amount and reports it beside objectId and createdAt', async () => {
    const cls = unique('Game');
    const created = await app.post(`/1/classes/${cls}`, { score: { __op: 'Increment', amount: 7 } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body, { objectId: created.body.objectId, createdAt: created.body.createdAt, score: 7 });
    assert.deepEqual(await fields(cls, created.body.objectId), { score: 7 });
  });

  it('Increment on a non-number field fails with 111 and changes nothing', async () => {
    const cls = unique('Game');
    const id = await create(cls, { name: 'text', when: { __type: 'Date', iso: '2024-01-01T00:00:00.000Z' }, tags: ['a'] });
    const before_ = await app.get(`/1/classes/${cls}/${id}`);
    for (const field of ['name', 'when', 'tags']) {
      assertError(await app.put(`/1/classes/${cls}/${id}`, { [field]: { __op: 'Increment', amount: 1 }, other: 1 }), 400, 111);
    }
    const after = await app.get(`/1/classes/${cls}/${id}`);
    assert.deepEqual(after.body, before_.body);
  });

  it('Increment without a numeric amount fails with 107', async () => {
    const cls = unique('Game');
    const id = await create(cls, { score: 1 });
    for (const op of [{ __op: 'Increment' }, { __op: 'Increment', amount: '5' }, { __op: 'Increment', amount: null }, { __op: 'Increment', amount: [1] }]) {
      assertError(await app.put(`/1/classes/${cls}/${id}`, { score: op }), 400, 107);
    }
    assert.deepEqual(await fields(cls, id), { score: 1 });
  });

  it('Add appends every given value, duplicates included, and reports the array', async () => {
    const cls = unique('List');
    const id = await create(cls, { tags: ['a', 'b'] });
    const body = await update(cls, id, { tags: { __op: 'Add', objects: ['c', 'a', 1, { x: 1 }] } });
    assert.deepEqual(body, { updatedAt: body.updatedAt, tags: ['a', 'b', 'c', 'a', 1, { x: 1 }] });
    assert.deepEqual(await fields(cls, id), { tags: ['a', 'b', 'c', 'a', 1, { x: 1 }] });
    // On a missing field, Add starts from an empty array; typed values inside are normalised.
    const added = await update(cls, id, { dates: { __op: 'Add', objects: [{ __type: 'Date', iso: '2024-01-01T01:00:00+01:00' }] } });
    assert.deepEqual(added.dates, [{ __type: 'Date', iso: '2024-01-01T00:00:00.000Z' }]);
    assert.deepEqual((await fields(cls, id)).dates, [{ __type: 'Date', iso: '2024-01-01T00:00:00.000Z' }]);
    assert.deepEqual((await schemaFields(cls)).dates, { type: 'Array' });
  });

  it('AddUnique adds only values not present, comparing pointers by class and id and objects by content', async () => {
    const cls = unique('List');
    const other = unique('Other');
    const p1 = { __type: 'Pointer', className: other, objectId: 'p1' };
    const p2 = { __type: 'Pointer', className: other, objectId: 'p2' };
    const id = await create(cls, { tags: ['a', 'b'], refs: [p1], shapes: [{ x: 1, y: [1, 2] }], dates: [{ __type: 'Date', iso: '2024-01-01T00:00:00.000Z' }] });
    const body = await update(cls, id, {
      tags: { __op: 'AddUnique', objects: ['b', 'c', 'c', 'a', 'd'] },
      refs: { __op: 'AddUnique', objects: [{ objectId: 'p1', className: other, __type: 'Pointer' }, p2, p2] },
      shapes: { __op: 'AddUnique', objects: [{ y: [1, 2], x: 1 }, { x: 2 }, { x: 1, y: [2, 1] }] },
      dates: { __op: 'AddUnique', objects: [{ __type: 'Date', iso: '2024-01-01T01:00:00+01:00' }] },
    });
    const expected = {
      tags: ['a', 'b', 'c', 'd'],
      refs: [p1, p2],
      shapes: [{ x: 1, y: [1, 2] }, { x: 2 }, { x: 1, y: [2, 1] }],
      dates: [{ __type: 'Date', iso: '2024-01-01T00:00:00.000Z' }],
    };
    // The spec leaves the insertion position open, so the arrays are compared as sets.
    const stored = await fields(cls, id);
    for (const [name, values] of Object.entries(expected)) {
      assert.deepEqual(sorted(body[name] as unknown[]), sorted(values), name);
      assert.deepEqual(sorted(stored[name] as unknown[]), sorted(values), name);
      assert.equal((stored[name] as unknown[]).length, values.length, name);
    }
    const fresh = await update(cls, id, { more: { __op: 'AddUnique', objects: [1, 1, 2] } });
    assert.deepEqual(sorted(fresh.more as unknown[]), [1, 2]);
  });

  it('Remove deletes every instance of each given value', async () => {
    const cls = unique('List');
    const other = unique('Other');
    const p1 = { __type: 'Pointer', className: other, objectId: 'p1' };
    const p2 = { __type: 'Pointer', className: other, objectId: 'p2' };
    const id = await create(cls, { tags: ['a', 'b', 'a', 'c', 'a', 1, '1'], refs: [p1, p2, p1], shapes: [{ x: 1, y: 2 }, { x: 2 }, { x: 1, y: 2 }] });
    const body = await update(cls, id, {
      tags: { __op: 'Remove', objects: ['a', 1, 'not there'] },
      refs: { __op: 'Remove', objects: [{ objectId: 'p1', className: other, __type: 'Pointer' }] },
      shapes: { __op: 'Remove', objects: [{ y: 2, x: 1 }] },
      missing: { __op: 'Remove', objects: ['x'] },
    });
    assert.deepEqual(body, { updatedAt: body.updatedAt, tags: ['b', 'c', '1'], refs: [p2], shapes: [{ x: 2 }], missing: [] });
    assert.deepEqual(await fields(cls, id), { tags: ['b', 'c', '1'], refs: [p2], shapes: [{ x: 2 }], missing: [] });
  });

  it('array operators on a non-array field fail with 111 and change nothing', async () => {
    const cls = unique('List');
    const id = await create(cls, { name: 'x', count: 1, meta: { a: 1 } });
    for (const __op of ['Add', 'AddUnique', 'Remove']) {
      for (const field of ['name', 'count', 'meta']) {
        assertError(await app.put(`/1/classes/${cls}/${id}`, { [field]: { __op, objects: ['y'] } }), 400, 111);
      }
    }
    assertError(await app.put(`/1/classes/${cls}/${id}`, { tags: { __op: 'Add', objects: 'not an array' } }), 400, 107);
    assertError(await app.put(`/1/classes/${cls}/${id}`, { tags: { __op: 'AddUnique' } }), 400, 107);
    assertError(await app.put(`/1/classes/${cls}/${id}`, { tags: { __op: 'Add', objects: [{ 'a.b': 1 }] } }), 400, 121);
    assert.deepEqual(await fields(cls, id), { name: 'x', count: 1, meta: { a: 1 } });
  });

  it('Delete removes the field; the field keeps its type in the schema', async () => {
    const cls = unique('Del');
    const id = await create(cls, { gone: 'x', kept: 1, alsoGone: [1] });
    const body = await update(cls, id, { gone: { __op: 'Delete' }, alsoGone: { __op: 'Delete' }, neverSet: { __op: 'Delete' } });
    assert.deepEqual(body, { updatedAt: body.updatedAt });
    assert.deepEqual(await fields(cls, id), { kept: 1 });
    assert.deepEqual((await schemaFields(cls)).gone, { type: 'String' });
    assertError(await app.put(`/1/classes/${cls}/${id}`, { gone: 5 }), 400, 111);
    await update(cls, id, { gone: 'back' });
    assert.deepEqual(await fields(cls, id), { kept: 1, gone: 'back' });
  });

  it('reports the results of every operator of one PUT, and only those', async () => {
    const cls = unique('Mixed');
    const id = await create(cls, { score: 5, tags: ['a'], name: 'n', old: true });
    const body = await update(cls, id, {
      score: { __op: 'Increment', amount: 2 },
      tags: { __op: 'Add', objects: ['b'] },
      old: { __op: 'Delete' },
      name: 'plain set',
    });
    assert.deepEqual(body, { updatedAt: body.updatedAt, score: 7, tags: ['a', 'b'] });
    assert.deepEqual(await fields(cls, id), { score: 7, tags: ['a', 'b'], name: 'plain set' });
  });

  it('refuses an unknown __op with 108, writing nothing', async () => {
    const cls = unique('Op');
    const id = await create(cls, { score: 1 });
    for (const op of [{ __op: 'Multiply', amount: 2 }, { __op: 'increment', amount: 1 }, { __op: 5 }, { __op: null }, { __op: 'SetOnInsert' }]) {
      assertError(await app.put(`/1/classes/${cls}/${id}`, { score: op, other: 'x' }), 400, 108);
      assertError(await app.post(`/1/classes/${cls}`, { score: op }), 400, 108);
    }
    assert.deepEqual(await fields(cls, id), { score: 1 });
    const listed = await app.get(`/1/classes/${cls}`);
    assert.equal(listed.body.results.length, 1);
  });

  it('refuses operators nested inside values with 111', async () => {
    const cls = unique('Op');
    const id = await create(cls, { meta: { n: 1 } });
    assertError(await app.put(`/1/classes/${cls}/${id}`, { meta: { n: { __op: 'Increment', amount: 1 } } }), 400, 111);
    assertError(await app.put(`/1/classes/${cls}/${id}`, { list: [{ __op: 'Delete' }] }), 400, 111);
    assert.deepEqual(await fields(cls, id), { meta: { n: 1 } });
  });

  it('AddRelation and RemoveRelation type the field as a Relation and show it on read', async () => {
    const cls = unique('Team');
    const member = unique('Member');
    const ids = await Promise.all(['ann', 'bob', 'cy'].map((name) => create(member, { name })));
    const pointers = ids.map((objectId) => ({ __type: 'Pointer', className: member, objectId }));
    const id = await create(cls, { name: 'red' });

    const added = await update(cls, id, { members: { __op: 'AddRelation', objects: [pointers[0], pointers[1]] } });
    assert.deepEqual(added, { updatedAt: added.updatedAt });
    assert.deepEqual(await fields(cls, id), { name: 'red', members: { __type: 'Relation', className: member } });
    assert.deepEqual((await schemaFields(cls)).members, { type: 'Relation', targetClass: member });

    const removed = await update(cls, id, { members: { __op: 'RemoveRelation', objects: [pointers[0]] } });
    assert.deepEqual(removed, { updatedAt: removed.updatedAt });
    // Adding the same member twice, or removing one that is absent, is not an error.
    await update(cls, id, { members: { __op: 'AddRelation', objects: [pointers[1], pointers[1]] } });
    await update(cls, id, { members: { __op: 'RemoveRelation', objects: [{ __type: 'Pointer', className: member, objectId: 'absent' }] } });

    // Member lists become readable with $relatedTo (queries); until then the schema and the
    // object show the relation, and these tests check every write the API accepts or refuses.
    assert.deepEqual(await fields(cls, id), { name: 'red', members: { __type: 'Relation', className: member } });
    const listed = await app.get(`/1/classes/${cls}`);
    assert.deepEqual(listed.body.results[0].members, { __type: 'Relation', className: member });
  });

  it('AddRelation on a create stores the object and types the field', async () => {
    const cls = unique('Team');
    const member = unique('Member');
    const memberId = await create(member, { name: 'ann' });
    const created = await app.post(`/1/classes/${cls}`, { name: 'blue', members: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: member, objectId: memberId }] } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(Object.keys(created.body).sort(), ['createdAt', 'objectId']);
    assert.deepEqual(await fields(cls, created.body.objectId), { name: 'blue', members: { __type: 'Relation', className: member } });
  });

  it('a Batch of AddRelation and RemoveRelation is accepted as one operation', async () => {
    const cls = unique('Team');
    const member = unique('Member');
    const pointer = (objectId: string) => ({ __type: 'Pointer', className: member, objectId });
    const id = await create(cls, { name: 'green' });
    const body = await update(cls, id, {
      members: { __op: 'Batch', ops: [{ __op: 'AddRelation', objects: [pointer('m1'), pointer('m2')] }, { __op: 'RemoveRelation', objects: [pointer('m3')] }] },
    });
    assert.deepEqual(body, { updatedAt: body.updatedAt });
    assert.deepEqual(await fields(cls, id), { name: 'green', members: { __type: 'Relation', className: member } });
    assert.deepEqual((await schemaFields(cls)).members, { type: 'Relation', targetClass: member });
    // A Batch may hold only relation operators, all on the same target class.
    assertError(await app.put(`/1/classes/${cls}/${id}`, { members: { __op: 'Batch', ops: [{ __op: 'AddRelation', objects: [pointer('m1')] }, { __op: 'Increment', amount: 1 }] } }), 400, 107);
    assertError(await app.put(`/1/classes/${cls}/${id}`, { members: { __op: 'Batch', ops: [] } }), 400, 107);
    assertError(
      await app.put(`/1/classes/${cls}/${id}`, {
        members: { __op: 'Batch', ops: [{ __op: 'AddRelation', objects: [pointer('m1')] }, { __op: 'RemoveRelation', objects: [{ __type: 'Pointer', className: unique('Else'), objectId: 'x' }] }] },
      }),
      400,
      106,
    );
  });

  it('refuses malformed relation operations and a relation to another class', async () => {
    const cls = unique('Team');
    const member = unique('Member');
    const stranger = unique('Stranger');
    const id = await create(cls, { name: 'x', title: 's', members: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: member, objectId: 'm1' }] } });
    const put = (body: Record<string, unknown>) => app.put(`/1/classes/${cls}/${id}`, body);
    // Another target class, or a relation operator on a field of another type: 111.
    assertError(await put({ members: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: stranger, objectId: 'x' }] } }), 400, 111);
    assertError(await put({ title: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: member, objectId: 'x' }] } }), 400, 111);
    assertError(await put({ members: 'plain value' }), 400, 111);
    assertError(await put({ members: { __op: 'Add', objects: [1] } }), 400, 111);
    // Objects that are not Pointers, or Pointers of two classes in one operation: 106.
    assertError(await put({ others: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: member }] } }), 400, 106);
    assertError(await put({ others: { __op: 'AddRelation', objects: ['m1'] } }), 400, 106);
    assertError(await put({ others: { __op: 'RemoveRelation', objects: [{ __type: 'Pointer', className: member, objectId: 'a' }, { __type: 'Pointer', className: stranger, objectId: 'b' }] } }), 400, 106);
    // No objects at all: 107.
    assertError(await put({ others: { __op: 'AddRelation', objects: [] } }), 400, 107);
    assertError(await put({ others: { __op: 'AddRelation' } }), 400, 107);
    const fieldsNow = await schemaFields(cls);
    assert.equal(fieldsNow.others, undefined);
    assert.deepEqual(fieldsNow.members, { type: 'Relation', targetClass: member });
    assert.deepEqual(await fields(cls, id), { name: 'x', title: 's', members: { __type: 'Relation', className: member } });
  });

  it('50 concurrent Increments on one object all count', async () => {
    const cls = unique('Counter');
    const id = await create(cls, { name: 'c' });
    // The field is new, so the first writers also race to add it to the schema.
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => app.put(`/1/classes/${cls}/${id}`, { hits: { __op: 'Increment', amount: 1 } })));
    for (const response of responses) assert.equal(response.status, 200, response.text);
    assert.deepEqual(await fields(cls, id), { name: 'c', hits: 50 });
    // Each writer saw its own step: the reported results are exactly 1 to 50.
    const reported = responses.map((response) => response.body.hits as number).sort((a, b) => a - b);
    assert.deepEqual(reported, Array.from({ length: 50 }, (_, i) => i + 1));
    const down = await Promise.all(Array.from({ length: 50 }, () => app.put(`/1/classes/${cls}/${id}`, { hits: { __op: 'Increment', amount: -2 } })));
    for (const response of down) assert.equal(response.status, 200, response.text);
    assert.deepEqual(await fields(cls, id), { name: 'c', hits: -50 });
  });

  it('50 concurrent AddUniques of distinct values keep every value exactly once', async () => {
    const cls = unique('Set');
    const id = await create(cls, { tags: ['start'] });
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => app.put(`/1/classes/${cls}/${id}`, { tags: { __op: 'AddUnique', objects: [`v${i}`, 'shared', 'start'] } })));
    for (const response of responses) assert.equal(response.status, 200, response.text);
    const stored = (await fields(cls, id)).tags as string[];
    assert.deepEqual([...stored].sort(), ['shared', 'start', ...Array.from({ length: 50 }, (_, i) => `v${i}`)].sort());
  });

  it('50 concurrent Adds keep every value', async () => {
    const cls = unique('Log');
    const id = await create(cls, { entries: [] });
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => app.put(`/1/classes/${cls}/${id}`, { entries: { __op: 'Add', objects: [i, 'dup'] } })));
    for (const response of responses) assert.equal(response.status, 200, response.text);
    const stored = (await fields(cls, id)).entries as unknown[];
    assert.equal(stored.length, 100);
    assert.deepEqual(stored.filter((value) => typeof value === 'number').sort((a, b) => (a as number) - (b as number)), Array.from({ length: 50 }, (_, i) => i));
    assert.equal(stored.filter((value) => value === 'dup').length, 50);
    // Each Add appended its pair together: no writer saw another's half-applied array.
    for (let i = 0; i < stored.length; i += 2) {
      assert.equal(typeof stored[i], 'number');
      assert.equal(stored[i + 1], 'dup');
    }
  });
});
