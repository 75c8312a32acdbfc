import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient, type RequestOptions } from '../helpers/client.ts';
import { as, assertError, signUp, type TestUser } from '../helpers/users.ts';

/**
 * Spec 2.6 and 5 rule 4: who may read and write an object, for every form an ACL takes, every
 * operation and every kind of caller; then every other path a read can take (include, inner
 * queries, $relatedTo, batch). Unreadable objects answer exactly like missing ones.
 */

const MASTER = { key: 'master' } as const;
const RW = { read: true, write: true };

type Caller = 'anonymous' | 'owner' | 'other' | 'member' | 'childMember' | 'master';
const CALLERS: readonly Caller[] = ['anonymous', 'owner', 'other', 'member', 'childMember', 'master'];

/**
 * The role `Parent` holds `member`; its child role `Child` (listed in Parent's `roles`) holds
 * `childMember`, who therefore also has Parent's permissions. Parent's members do not get Child's.
 */
interface Form {
  readonly name: string;
  readonly acl: (ids: Record<Caller, string>, roles: { parent: string; child: string }) => Record<string, unknown> | undefined;
  readonly readers: readonly Caller[];
  readonly writers: readonly Caller[];
}

const FORMS: readonly Form[] = [
  { name: 'no ACL (public)', acl: () => undefined, readers: CALLERS, writers: CALLERS },
  { name: 'public read only', acl: () => ({ '*': { read: true } }), readers: CALLERS, writers: ['master'] },
  { name: 'the owner', acl: (ids) => ({ [ids.owner]: RW }), readers: ['owner', 'master'], writers: ['owner', 'master'] },
  { name: 'the owner, read only', acl: (ids) => ({ [ids.owner]: { read: true } }), readers: ['owner', 'master'], writers: ['master'] },
  { name: 'the owner writes, everyone reads', acl: (ids) => ({ '*': { read: true }, [ids.owner]: { write: true } }), readers: CALLERS, writers: ['owner', 'master'] },
  { name: 'the parent role', acl: (_ids, roles) => ({ [`role:${roles.parent}`]: RW }), readers: ['member', 'childMember', 'master'], writers: ['member', 'childMember', 'master'] },
  { name: 'the child role', acl: (_ids, roles) => ({ [`role:${roles.child}`]: RW }), readers: ['childMember', 'master'], writers: ['childMember', 'master'] },
  { name: 'the parent role reads, the owner writes', acl: (ids, roles) => ({ [`role:${roles.parent}`]: { read: true }, [ids.owner]: { write: true } }), readers: ['member', 'childMember', 'master'], writers: ['owner', 'master'] },
  { name: 'nobody ({})', acl: () => ({}), readers: ['master'], writers: ['master'] },
];

eachBackend('ACL enforcement', (target) => {
  let app: AppClient;
  const users = {} as Record<Exclude<Caller, 'anonymous' | 'master'>, TestUser>;
  const ids = {} as Record<Caller, string>;
  const roles = { parent: '', child: '' };

  function optionsOf(caller: Caller): RequestOptions {
    if (caller === 'master') return MASTER;
    if (caller === 'anonymous') return {};
    return as(users[caller].sessionToken);
  }

  before(async () => {
    app = await newApp(target, { rateLimits: { authRequestsPerMinute: 0 } });
    const [owner, other, member, childMember] = await Promise.all([signUp(app), signUp(app), signUp(app), signUp(app)]);
    Object.assign(users, { owner, other, member, childMember });
    Object.assign(ids, { anonymous: '', master: '', owner: owner.objectId, other: other.objectId, member: member.objectId, childMember: childMember.objectId });
    roles.parent = unique('Parent');
    roles.child = unique('Child');
    const pointer = (className: string, objectId: string) => ({ __type: 'Pointer', className, objectId });
    const child = await app.post('/1/roles', { name: roles.child, ACL: {}, users: { __op: 'AddRelation', objects: [pointer('_User', childMember.objectId)] } }, MASTER);
    assert.equal(child.status, 201, child.text);
    const parent = await app.post('/1/roles', {
      name: roles.parent,
      ACL: {},
      users: { __op: 'AddRelation', objects: [pointer('_User', member.objectId)] },
      roles: { __op: 'AddRelation', objects: [pointer('_Role', child.body.objectId)] },
    }, MASTER);
    assert.equal(parent.status, 201, parent.text);
  });

  /** Creates objects with the master key, in batches; returns their ids in order. */
  async function createAll(cls: string, bodies: Record<string, unknown>[]): Promise<string[]> {
    const out: string[] = [];
    for (let i = 0; i < bodies.length; i += 50) {
      const requests = bodies.slice(i, i + 50).map((body) => ({ method: 'POST', path: `/1/classes/${cls}`, body }));
      const response = await app.post('/1/batch', { requests }, MASTER);
      assert.equal(response.status, 200, response.text);
      for (const entry of response.body) {
        assert.ok(entry.success, JSON.stringify(entry));
        out.push(entry.success.objectId);
      }
    }
    return out;
  }

  const bodyOf = (form: Form, fields: Record<string, unknown>) => {
    const acl = form.acl(ids, roles);
    return acl === undefined ? fields : { ...fields, ACL: acl };
  };

  it('get, find and count show an object to exactly the callers its ACL lets read it', async () => {
    const cls = unique('Read');
    const objectIds = await createAll(cls, FORMS.map((form, i) => bodyOf(form, { form: i })));
    for (const [i, form] of FORMS.entries()) {
      for (const caller of CALLERS) {
        const label = `${form.name}, ${caller}`;
        const allowed = form.readers.includes(caller);
        const get = await app.get(`/1/classes/${cls}/${objectIds[i]}`, optionsOf(caller));
        if (allowed) {
          assert.equal(get.status, 200, `get: ${label}: ${get.text}`);
          assert.equal(get.body.form, i);
        } else {
          assertError(get, 404, 101, `get: ${label}`);
        }
        const find = await app.get(`/1/classes/${cls}`, { ...optionsOf(caller), query: { where: { form: i } } });
        assert.deepEqual(find.body.results.map((object: { objectId: string }) => object.objectId), allowed ? [objectIds[i]] : [], `find: ${label}`);
        const count = await app.get(`/1/classes/${cls}`, { ...optionsOf(caller), query: { where: { form: i }, count: 1, limit: 0 } });
        assert.deepEqual(count.body, { results: [], count: allowed ? 1 : 0 }, `count: ${label}`);
      }
    }
    // A whole-class listing and count agree with the table.
    for (const caller of CALLERS) {
      const visible = FORMS.flatMap((form, i) => (form.readers.includes(caller) ? [objectIds[i]] : [])).sort();
      const all = await app.get(`/1/classes/${cls}`, { ...optionsOf(caller), query: { count: 1, order: 'objectId' } });
      assert.deepEqual(all.body.results.map((object: { objectId: string }) => object.objectId), visible, `list: ${caller}`);
      assert.equal(all.body.count, visible.length, `list count: ${caller}`);
    }
  });

  it('update and delete succeed for exactly the callers its ACL lets write, and leave other objects untouched', async () => {
    const cls = unique('Write');
    const cells = FORMS.flatMap((form) => CALLERS.map((caller) => ({ form, caller })));
    const forUpdate = await createAll(cls, cells.map(({ form }) => bodyOf(form, { value: 'original' })));
    const forDelete = await createAll(cls, cells.map(({ form }) => bodyOf(form, { value: 'original' })));
    for (const [i, { form, caller }] of cells.entries()) {
      const label = `${form.name}, ${caller}`;
      const allowed = form.writers.includes(caller);
      const update = await app.put(`/1/classes/${cls}/${forUpdate[i]}`, { value: caller }, optionsOf(caller));
      if (allowed) assert.equal(update.status, 200, `update: ${label}: ${update.text}`);
      else assertError(update, 404, 101, `update: ${label}`);
      assert.equal((await app.get(`/1/classes/${cls}/${forUpdate[i]}`, MASTER)).body.value, allowed ? caller : 'original', `update stored: ${label}`);

      const remove = await app.delete(`/1/classes/${cls}/${forDelete[i]}`, optionsOf(caller));
      if (allowed) assert.deepEqual([remove.status, remove.body], [200, {}], `delete: ${label}: ${remove.text}`);
      else assertError(remove, 404, 101, `delete: ${label}`);
      assert.equal((await app.get(`/1/classes/${cls}/${forDelete[i]}`, MASTER)).status, allowed ? 404 : 200, `delete stored: ${label}`);
    }
  });

  it('answers an object the caller may not read or write exactly as a missing one', async () => {
    const cls = unique('Same');
    const [hidden] = await createAll(cls, [{ ACL: { [ids.owner]: RW }, secret: 1 }]);
    const missing = 'missing0000';
    const options = optionsOf('other');
    const pairs = [
      [await app.get(`/1/classes/${cls}/${hidden}`, options), await app.get(`/1/classes/${cls}/${missing}`, options)],
      [await app.put(`/1/classes/${cls}/${hidden}`, { secret: 2 }, options), await app.put(`/1/classes/${cls}/${missing}`, { secret: 2 }, options)],
      [await app.delete(`/1/classes/${cls}/${hidden}`, options), await app.delete(`/1/classes/${cls}/${missing}`, options)],
    ];
    for (const [unreadable, absent] of pairs) {
      assertError(unreadable!, 404, 101);
      assert.equal(unreadable!.body.error.replace(hidden!, missing), absent!.body.error);
    }
    // A write the caller may not make adds no field to the class either.
    assertError(await app.put(`/1/classes/${cls}/${hidden}`, { sneaky: 'x' }, options), 404, 101);
    const schema = await app.get(`/1/schemas/${cls}`, MASTER);
    assert.equal('sneaky' in schema.body.fields, false);
  });

  it('include expands only the pointers the caller may read, by user or by inherited role', async () => {
    const [post, secret] = [unique('Post'), unique('Secret')];
    const [own, parentOnly] = await createAll(secret, [{ ACL: { [ids.owner]: RW }, text: 'own' }, { ACL: { [`role:${roles.parent}`]: { read: true } }, text: 'parent' }]);
    const pointer = (objectId: string) => ({ __type: 'Pointer', className: secret, objectId });
    const [postId] = await createAll(post, [{ first: pointer(own!), second: pointer(parentOnly!), list: [pointer(own!), pointer(parentOnly!)] }]);
    const expanded = (value: { __type: string; text?: string }) => (value.__type === 'Object' ? value.text : 'pointer');
    const expectations: [Caller, string[]][] = [
      ['anonymous', ['pointer', 'pointer']],
      ['owner', ['own', 'pointer']],
      ['other', ['pointer', 'pointer']],
      ['member', ['pointer', 'parent']],
      ['childMember', ['pointer', 'parent']],
      ['master', ['own', 'parent']],
    ];
    for (const [caller, expected] of expectations) {
      const got = await app.get(`/1/classes/${post}/${postId}`, { ...optionsOf(caller), query: { include: 'first,second,list' } });
      assert.deepEqual([expanded(got.body.first), expanded(got.body.second)], expected, `get: ${caller}`);
      assert.deepEqual(got.body.list.map(expanded), expected, `array: ${caller}`);
      const found = await app.get(`/1/classes/${post}`, { ...optionsOf(caller), query: { include: '*' } });
      assert.deepEqual([expanded(found.body.results[0].first), expanded(found.body.results[0].second)], expected, `find: ${caller}`);
    }
  });

  it('inner queries ($inQuery, $notInQuery, $select, $dontSelect, relation $inQuery) see only readable objects', async () => {
    const [post, secret] = [unique('Post'), unique('Secret')];
    const [own, publicOne] = await createAll(secret, [{ ACL: { [ids.owner]: RW }, tag: 'a' }, { tag: 'b' }]);
    const pointer = (objectId: string) => ({ __type: 'Pointer', className: secret, objectId });
    const [toOwn, toPublic] = await createAll(post, [
      { ref: pointer(own!), tag: 'a', refs: { __op: 'AddRelation', objects: [pointer(own!)] } },
      { ref: pointer(publicOne!), tag: 'b', refs: { __op: 'AddRelation', objects: [pointer(publicOne!)] } },
    ]);
    const inner = { className: secret, where: {} };
    const queries: [string, object][] = [
      ['$inQuery', { ref: { $inQuery: inner } }],
      ['$notInQuery', { ref: { $notInQuery: inner } }],
      ['$select', { tag: { $select: { query: inner, key: 'tag' } } }],
      ['$dontSelect', { tag: { $dontSelect: { query: inner, key: 'tag' } } }],
      ['relation $inQuery', { refs: { $inQuery: inner } }],
    ];
    for (const [caller, sees] of [['owner', [toOwn, toPublic]], ['other', [toPublic]], ['master', [toOwn, toPublic]]] as const) {
      for (const [label, where] of queries) {
        const found = await app.get(`/1/classes/${post}`, { ...optionsOf(caller), query: { where, order: 'tag' } });
        assert.equal(found.status, 200, found.text);
        const got = found.body.results.map((object: { objectId: string }) => object.objectId);
        const positive = !label.includes('not') && !label.includes('dont');
        const expected = positive ? sees : [toOwn, toPublic].filter((id) => !sees.includes(id!));
        assert.deepEqual(got, expected, `${label}, ${caller}`);
        const counted = await app.get(`/1/classes/${post}`, { ...optionsOf(caller), query: { where, count: 1, limit: 0 } });
        assert.equal(counted.body.count, expected.length, `${label} count, ${caller}`);
      }
    }
  });

  it('$relatedTo lists members only to callers who may read the object holding the relation', async () => {
    const [box, item] = [unique('Box'), unique('Item')];
    const itemIds = await createAll(item, [{ n: 1 }, { n: 2, ACL: { [ids.owner]: RW } }]);
    const objects = itemIds.map((objectId) => ({ __type: 'Pointer', className: item, objectId }));
    const [privateBox, roleBox] = await createAll(box, [
      { ACL: { [ids.owner]: RW }, items: { __op: 'AddRelation', objects } },
      { ACL: { [`role:${roles.parent}`]: { read: true } }, items: { __op: 'AddRelation', objects } },
    ]);
    const related = async (caller: Caller, boxId: string) => {
      const response = await app.get(`/1/classes/${item}`, { ...optionsOf(caller), query: { where: { $relatedTo: { object: { __type: 'Pointer', className: box, objectId: boxId }, key: 'items' } }, order: 'n' } });
      assert.equal(response.status, 200, response.text);
      return response.body.results.map((object: { n: number }) => object.n);
    };
    // The members themselves are filtered by their own ACLs too (item 2 is the owner's).
    const expectations: [Caller, number[], number[]][] = [
      ['anonymous', [], []],
      ['owner', [1, 2], []],
      ['other', [], []],
      ['member', [], [1]],
      ['childMember', [], [1]],
      ['master', [1, 2], [1, 2]],
    ];
    for (const [caller, fromPrivate, fromRole] of expectations) {
      assert.deepEqual(await related(caller, privateBox!), fromPrivate, `private box, ${caller}`);
      assert.deepEqual(await related(caller, roleBox!), fromRole, `role box, ${caller}`);
    }
  });

  it('applies the ACL to every command of a batch, with the batch credentials', async () => {
    const cls = unique('Batch');
    const [mine, theirs] = await createAll(cls, [{ ACL: { [ids.owner]: RW }, v: 0 }, { ACL: { [ids.other]: RW }, v: 0 }]);
    const response = await app.post('/1/batch', {
      requests: [
        { method: 'PUT', path: `/1/classes/${cls}/${mine}`, body: { v: 1 } },
        { method: 'PUT', path: `/1/classes/${cls}/${theirs}`, body: { v: 1 } },
        { method: 'GET', path: `/1/classes/${cls}/${theirs}` },
        { method: 'DELETE', path: `/1/classes/${cls}/${theirs}` },
        { method: 'DELETE', path: `/1/classes/${cls}/${mine}` },
      ],
    }, optionsOf('owner'));
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.map((entry: { success?: unknown; error?: { code: number } }) => (entry.success ? 'ok' : entry.error!.code)), ['ok', 101, 101, 101, 'ok']);
    assert.equal((await app.get(`/1/classes/${cls}/${mine}`, MASTER)).status, 404);
    assert.equal((await app.get(`/1/classes/${cls}/${theirs}`, MASTER)).body.v, 0);
  });
});
