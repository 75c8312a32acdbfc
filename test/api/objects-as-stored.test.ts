import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient, type Response } from '../helpers/client.ts';

/**
 * Gets and finds of an app's own classes are answered from the stored JSON text, spliced; with
 * `include` they are rendered field by field. Both must give the same keys, in the same order,
 * with the same values, whatever the document holds.
 */
eachBackend('objects sent as stored', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newApp(target);
  });

  function ok(response: Response): Record<string, unknown> {
    assert.equal(response.status, 200, response.text);
    return response.body;
  }

  /** GET and find as stored, and both again rendered (an include of a plain field forces that). */
  async function readAllWays(cls: string, id: string): Promise<Record<string, unknown>[]> {
    const rendered = { include: 'plain' };
    const where = { objectId: id };
    return [
      ok(await app.get(`/1/classes/${cls}/${id}`)),
      ok(await app.get(`/1/classes/${cls}/${id}`, { query: rendered })),
      (ok(await app.get(`/1/classes/${cls}`, { query: { where } })).results as Record<string, unknown>[])[0]!,
      (ok(await app.get(`/1/classes/${cls}`, { query: { where, ...rendered } })).results as Record<string, unknown>[])[0]!,
    ];
  }

  /** The same keys in the same order every way (PostgreSQL's jsonb keeps its own key order), the built-in ones last. */
  function assertAllAlike(answers: Record<string, unknown>[], expected: Record<string, unknown>): void {
    const order = Object.keys(answers[0]!);
    assert.deepEqual(order.slice(-3), ['objectId', 'createdAt', 'updatedAt']);
    for (const answer of answers) {
      assert.deepEqual(Object.keys(answer), order);
      assert.deepEqual(answer, expected);
    }
  }

  it('an object without fields holds only its built-in fields', async () => {
    const cls = unique('Bare');
    const created = await app.post(`/1/classes/${cls}`, {});
    assert.equal(created.status, 201, created.text);
    const id = created.body.objectId as string;
    assertAllAlike(await readAllWays(cls, id), { objectId: id, createdAt: created.body.createdAt, updatedAt: created.body.createdAt });
  });

  it('keeps strings with quotes, escapes and characters outside ASCII exactly', async () => {
    const cls = unique('Texts');
    const tricky = 'a"b\\c/d\u2028e\u00e9\u{1F600}\n\t"File"';
    const body = { plain: tricky, list: [tricky, { inner: tricky }], nested: { deeper: { name: 'File' } }, n: 1.5e300, small: -0.000001 };
    const created = await app.post(`/1/classes/${cls}`, body);
    assert.equal(created.status, 201, created.text);
    const id = created.body.objectId as string;
    assertAllAlike(await readAllWays(cls, id), { ...body, objectId: id, createdAt: created.body.createdAt, updatedAt: created.body.createdAt });
  });

  it('adds the class Relation fields before the built-in fields', async () => {
    const cls = unique('Related');
    const target = await app.post(`/1/classes/${cls}`, { plain: 'target' });
    const created = await app.post(`/1/classes/${cls}`, {
      plain: 'owner',
      friends: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: cls, objectId: target.body.objectId }] },
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.objectId as string;
    assertAllAlike(await readAllWays(cls, id), {
      plain: 'owner',
      friends: { __type: 'Relation', className: cls },
      objectId: id,
      createdAt: created.body.createdAt,
      updatedAt: created.body.createdAt,
    });
  });

  it('gives a File its URL wherever it sits', async () => {
    const cls = unique('Filed');
    const file = { __type: 'File', name: 'abc_photo.png' };
    const created = await app.post(`/1/classes/${cls}`, { plain: 'x', files: [file], meta: { cover: file } });
    assert.equal(created.status, 201, created.text);
    const id = created.body.objectId as string;
    for (const answer of await readAllWays(cls, id)) {
      const files = answer.files as { url?: string }[];
      const cover = (answer.meta as { cover: { url?: string } }).cover;
      assert.match(files[0]!.url ?? '', /\/files\/.+\/abc_photo\.png$/);
      assert.equal(cover.url, files[0]!.url);
    }
  });

  it('sends an updated object as it now is', async () => {
    const cls = unique('Changed');
    const created = await app.post(`/1/classes/${cls}`, { plain: 'before', n: 1 });
    const id = created.body.objectId as string;
    const updated = await app.put(`/1/classes/${cls}/${id}`, { plain: 'after', n: { __op: 'Increment', amount: 2 } });
    assert.equal(updated.status, 200, updated.text);
    assertAllAlike(await readAllWays(cls, id), { plain: 'after', n: 3, objectId: id, createdAt: created.body.createdAt, updatedAt: updated.body.updatedAt });
  });
});
