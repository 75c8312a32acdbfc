import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient, type Response } from '../helpers/client.ts';

/**
 * Spec 4.1 and 4.2: `include` expands Pointers into `{__type: "Object", className, …fields}` with
 * the caller's read permissions, and `keys` selects fields, also inside objects and included
 * pointers. Both on a single object and on lists.
 */

type Json = Record<string, any>;

function assertError(response: Response, status: number, code: number, label = ''): void {
  assert.equal(response.status, status, `${label}: status (body ${response.text})`);
  assert.deepEqual(Object.keys(response.body ?? {}).sort(), ['code', 'error'], `${label}: body ${response.text}`);
  assert.equal(response.body.code, code, `${label}: code (${response.body.error})`);
  assert.equal(typeof response.body.error, 'string');
}

function pointer(className: string, objectId: string) {
  return { __type: 'Pointer', className, objectId };
}

/** What an included pointer must become: the object as a direct read returns it, typed. */
function included(className: string, object: Json): Json {
  return { __type: 'Object', className, ...object };
}

eachBackend('query include and keys', (target) => {
  let app: AppClient;
  const cls = { author: unique('Author'), post: unique('Post'), comment: unique('Comment'), like: unique('Like') };
  /** Every seeded object as GET /1/classes/<class>/<id> with the master key returns it. */
  const seen: Record<string, Json> = {};

  async function create(className: string, body: Json, key: 'rest' | 'master' = 'rest'): Promise<string> {
    const created = await app.post(`/1/classes/${className}`, body, { key });
    assert.equal(created.status, 201, created.text);
    const read = await app.get(`/1/classes/${className}/${created.body.objectId}`, { key: 'master' });
    assert.equal(read.status, 200, read.text);
    seen[created.body.objectId] = read.body;
    return created.body.objectId;
  }

  let alice: string, hidden: string, p1: string, p2: string, p3: string, c1: string, c2: string, like: string;

  before(async () => {
    app = await newApp(target);
    alice = await create(cls.author, { name: 'alice', bio: { city: 'Oslo', zip: '0150' } });
    // Readable by nobody but the master key.
    hidden = await create(cls.author, { name: 'hidden', ACL: {} }, 'master');
    p1 = await create(cls.post, { title: 'first', author: pointer(cls.author, alice), tags: ['a', 'b'] });
    p2 = await create(cls.post, { title: 'second', author: pointer(cls.author, hidden) });
    p3 = await create(cls.post, { title: 'third', author: pointer(cls.author, 'gone000001') });
    c1 = await create(cls.comment, {
      text: 'hi',
      post: pointer(cls.post, p1),
      related: [pointer(cls.post, p1), pointer(cls.post, p2), pointer(cls.post, p3), pointer(cls.post, 'missing123')],
      meta: { ref: pointer(cls.post, p2), note: 'n' },
      elsewhere: pointer(unique('NoSuchClass'), 'abc'),
      items: [{ x: 1, y: 2 }, { x: 3 }, 5],
      className: 'shadow',
    });
    c2 = await create(cls.comment, { text: 'yo', post: pointer(cls.post, p1) });
    like = await create(cls.like, { comment: pointer(cls.comment, c1) });
  });

  const getOne = (className: string, id: string, query: Json, key: 'rest' | 'master' = 'rest') => app.get(`/1/classes/${className}/${id}`, { query, key });

  it('include expands a pointer into a typed Object with every field, on a single object', async () => {
    const response = await getOne(cls.comment, c2, { include: 'post' });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, { ...seen[c2], post: included(cls.post, seen[p1]!) });
    assert.equal(response.body.post.author.__type, 'Pointer', 'one level only');
  });

  it('dot notation expands several levels, down to any depth', async () => {
    const two = await getOne(cls.comment, c2, { include: 'post.author' });
    assert.equal(two.status, 200, two.text);
    const post = included(cls.post, { ...seen[p1], author: included(cls.author, seen[alice]!) });
    assert.deepEqual(two.body, { ...seen[c2], post });

    const three = await getOne(cls.like, like, { include: 'comment.post.author' });
    assert.equal(three.status, 200, three.text);
    assert.deepEqual(three.body.comment.post, post);
    assert.equal(three.body.comment.__type, 'Object');
    assert.equal(three.body.comment.text, 'hi');
    // Only the path asked for: the comment's other pointers stay pointers.
    assert.deepEqual(three.body.comment.meta, seen[c1]!.meta);
    assert.deepEqual(three.body.comment.related, seen[c1]!.related);
  });

  it('arrays of pointers are expanded element by element; unreadable and missing targets stay Pointers', async () => {
    const response = await getOne(cls.comment, c1, { include: 'related.author' });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.related, [
      included(cls.post, { ...seen[p1], author: included(cls.author, seen[alice]!) }),
      // The author was created by the master key with ACL {}: this caller may not read it.
      included(cls.post, { ...seen[p2], author: pointer(cls.author, hidden) }),
      included(cls.post, { ...seen[p3], author: pointer(cls.author, 'gone000001') }),
      pointer(cls.post, 'missing123'),
    ]);
  });

  it('the master key reads every target, so it sees the pointer others may not expand', async () => {
    const response = await getOne(cls.comment, c1, { include: 'related.author' }, 'master');
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.related[1], included(cls.post, { ...seen[p2], author: included(cls.author, seen[hidden]!) }));
    assert.deepEqual(response.body.related[3], pointer(cls.post, 'missing123'));
  });

  it('include reaches pointers inside Object fields, and leaves pointers to unknown classes alone', async () => {
    const response = await getOne(cls.comment, c1, { include: 'meta.ref,elsewhere' });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.meta, { ref: included(cls.post, seen[p2]!), note: 'n' });
    assert.deepEqual(response.body.elsewhere, seen[c1]!.elsewhere);
  });

  it('include on lists expands every result, and comma-separated paths are all expanded', async () => {
    const response = await app.get(`/1/classes/${cls.comment}`, { query: { include: 'post , related', order: 'text' } });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(
      response.body.results.map((comment: Json) => comment.text),
      ['hi', 'yo'],
    );
    const [first, second] = response.body.results;
    assert.deepEqual(first.post, included(cls.post, seen[p1]!));
    assert.deepEqual(second.post, included(cls.post, seen[p1]!));
    assert.deepEqual(first.related.map((post: Json) => post.__type), ['Object', 'Object', 'Object', 'Pointer']);
    assert.deepEqual(first.related[1], included(cls.post, seen[p2]!));
    assert.equal(second.related, undefined);
  });

  it('including fields that are not pointers, or that the object lacks, changes nothing', async () => {
    const response = await getOne(cls.comment, c1, { include: 'text,items,nope,post.nope,meta.note' });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, { ...seen[c1], post: included(cls.post, seen[p1]!) });
  });

  it('include=* expands every Pointer and Array field of the class (the SDKs\' includeAll)', async () => {
    const response = await getOne(cls.comment, c1, { include: '*' });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.post, included(cls.post, seen[p1]!));
    assert.deepEqual(response.body.related.map((post: Json) => post.__type), ['Object', 'Object', 'Object', 'Pointer']);
    // An Object field is not a pointer field: what is inside it stays as it is.
    assert.deepEqual(response.body.meta, seen[c1]!.meta);
    const deeper = await getOne(cls.comment, c1, { include: '*,post.author' });
    assert.deepEqual(deeper.body.post.author, included(cls.author, seen[alice]!));
  });

  it('include=* as the JS SDK sends it (includeAll): on lists, in the body form, beside other paths, with keys', async () => {
    // query.includeAll().find(): a POST with `_method: "GET"` and `include: "*"`.
    const posts = await app.post(`/1/classes/${cls.post}`, { _method: 'GET', where: { objectId: { $in: [p1, p2, p3] } }, include: '*', order: 'title' });
    assert.equal(posts.status, 200, posts.text);
    assert.deepEqual(posts.body.results, [
      { ...seen[p1], author: included(cls.author, seen[alice]!) },
      // Its author may not be read by this caller, and the third's is gone: both stay Pointers.
      seen[p2],
      seen[p3],
    ]);
    // query.include('post.author').includeAll(): the SDK joins its paths in the order given.
    const comments = await app.get(`/1/classes/${cls.comment}`, { query: { include: 'post.author,*', order: 'text' } });
    assert.equal(comments.status, 200, comments.text);
    const post = included(cls.post, { ...seen[p1], author: included(cls.author, seen[alice]!) });
    const [first, second] = comments.body.results;
    assert.deepEqual(second, { ...seen[c2], post });
    assert.deepEqual(first.post, post);
    assert.deepEqual(first.related.map((item: Json) => item.__type), ['Object', 'Object', 'Object', 'Pointer']);
    // query.select('text').includeAll(): `*` also selects the fields it expands.
    const selected = await getOne(cls.comment, c2, { keys: 'text', include: '*' });
    assert.deepEqual(selected.body, { objectId: c2, createdAt: seen[c2]!.createdAt, updatedAt: seen[c2]!.updatedAt, text: 'yo', post: included(cls.post, seen[p1]!) });
  });

  it('a malformed include path answers 400/105; a non-string include 400/102', async () => {
    for (const include of ['a-b', 'post..author', '.post', 'post.', '$post', 'post.*', 'po st']) {
      assertError(await app.get(`/1/classes/${cls.comment}`, { query: { include } }), 400, 105, `list include=${include}`);
      assertError(await getOne(cls.comment, c1, { include }), 400, 105, `get include=${include}`);
    }
    // The SDK body form carries parameters as JSON values.
    const sdk = await app.post(`/1/classes/${cls.comment}`, { _method: 'GET', include: 5 });
    assertError(sdk, 400, 102, 'include: 5');
  });

  it('keys returns the selected fields and the built-in ones, on lists and on a single object', async () => {
    const list = await app.get(`/1/classes/${cls.post}`, { query: { keys: 'title,nope', order: 'title' } });
    assert.equal(list.status, 200, list.text);
    const expected = [p1, p2, p3].map((id) => ({ objectId: id, createdAt: seen[id]!.createdAt, updatedAt: seen[id]!.updatedAt, title: seen[id]!.title }));
    assert.deepEqual(list.body.results, expected);
    const one = await getOne(cls.post, p1, { keys: 'tags' });
    assert.deepEqual(one.body, { objectId: p1, createdAt: seen[p1]!.createdAt, updatedAt: seen[p1]!.updatedAt, tags: ['a', 'b'] });
    for (const keys of ['objectId', '', 'createdAt,updatedAt']) {
      const builtIn = await getOne(cls.post, p1, { keys });
      assert.deepEqual(builtIn.body, { objectId: p1, createdAt: seen[p1]!.createdAt, updatedAt: seen[p1]!.updatedAt }, `keys=${keys}`);
    }
  });

  it('keys keeps the ACL, as Parse does, but no other field: not even one named className', async () => {
    const id = await create(cls.post, { title: 'acl', className: 'x', ACL: { '*': { read: true, write: true } } });
    const response = await getOne(cls.post, id, { keys: 'title' });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, { objectId: id, createdAt: seen[id]!.createdAt, updatedAt: seen[id]!.updatedAt, title: 'acl', ACL: { '*': { read: true, write: true } } });
  });

  it('dot notation in keys selects inside Object fields and arrays of objects', async () => {
    const bio = await getOne(cls.author, alice, { keys: 'bio.city' });
    assert.deepEqual(bio.body, { objectId: alice, createdAt: seen[alice]!.createdAt, updatedAt: seen[alice]!.updatedAt, bio: { city: 'Oslo' } });
    const items = await getOne(cls.comment, c1, { keys: 'items.x,meta.note' });
    assert.deepEqual(items.body.items, [{ x: 1 }, { x: 3 }, 5]);
    assert.deepEqual(items.body.meta, { note: 'n' });
    // A whole field and a part of it: the whole field, and nothing else.
    const whole = await getOne(cls.comment, c1, { keys: 'meta,meta.text' });
    assert.deepEqual(Object.keys(whole.body).sort(), ['createdAt', 'meta', 'objectId', 'updatedAt']);
    assert.deepEqual(whole.body.meta, seen[c1]!.meta);
    const other = await getOne(cls.comment, c1, { keys: 'text,text.items' });
    assert.deepEqual(Object.keys(other.body).sort(), ['createdAt', 'objectId', 'text', 'updatedAt']);
  });

  it('keys select inside included pointers, which keep their type, class and built-in fields', async () => {
    const response = await getOne(cls.comment, c2, { include: 'post.author', keys: 'text,post.title,post.author.name' });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, {
      objectId: c2,
      createdAt: seen[c2]!.createdAt,
      updatedAt: seen[c2]!.updatedAt,
      text: 'yo',
      post: {
        __type: 'Object',
        className: cls.post,
        objectId: p1,
        createdAt: seen[p1]!.createdAt,
        updatedAt: seen[p1]!.updatedAt,
        title: 'first',
        author: { __type: 'Object', className: cls.author, objectId: alice, createdAt: seen[alice]!.createdAt, updatedAt: seen[alice]!.updatedAt, name: 'alice' },
      },
    });
    // As in Parse Server, a dotted key includes its parent pointer without being asked to.
    const implied = await app.get(`/1/classes/${cls.comment}`, { query: { keys: 'post.title', order: 'text' } });
    assert.equal(implied.status, 200, implied.text);
    for (const comment of implied.body.results) {
      assert.deepEqual(comment.post, { __type: 'Object', className: cls.post, objectId: p1, createdAt: seen[p1]!.createdAt, updatedAt: seen[p1]!.updatedAt, title: 'first' });
      assert.equal(comment.text, undefined);
    }
  });

  it('an included field that keys does not select is not returned', async () => {
    const response = await getOne(cls.comment, c2, { include: 'post', keys: 'text' });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, { objectId: c2, createdAt: seen[c2]!.createdAt, updatedAt: seen[c2]!.updatedAt, text: 'yo' });
  });

  it('a malformed key answers 400/105; keys that are not a string 400/102', async () => {
    for (const keys of ['a-b', 'title..x', '.title', 'title.', '$title', 'ti tle', 'title,a/b']) {
      assertError(await app.get(`/1/classes/${cls.post}`, { query: { keys } }), 400, 105, `list keys=${keys}`);
      assertError(await getOne(cls.post, p1, { keys }), 400, 105, `get keys=${keys}`);
    }
    assertError(await app.post(`/1/classes/${cls.post}`, { _method: 'GET', keys: ['title'] }), 400, 102, 'keys: [title]');
  });
});
