import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient, type RequestOptions, type Response } from '../helpers/client.ts';
import { as, assertError, logIn, signUp, type TestUser } from '../helpers/users.ts';

/**
 * Class-level permissions (decisions.md), set through /1/schemas and enforced on every path: the
 * seven operations, user fields, protected fields, inner queries, and the built-in classes. A
 * refusal by class-level permission is 403/119; the master key bypasses them all.
 */

const MASTER = { key: 'master' } as const;
const OPERATIONS = ['get', 'find', 'count', 'create', 'update', 'delete', 'addField'] as const;
type Operation = (typeof OPERATIONS)[number];
const PUBLIC_CLP = Object.fromEntries(OPERATIONS.map((operation) => [operation, { '*': true }]));
const CLOSED_CLP = Object.fromEntries(OPERATIONS.map((operation) => [operation, {}]));

type Caller = 'anonymous' | 'alice' | 'bob' | 'carol' | 'dave' | 'master';
const CALLERS: readonly Caller[] = ['anonymous', 'alice', 'bob', 'carol', 'dave', 'master'];

const userPointer = (objectId: string) => ({ __type: 'Pointer', className: '_User', objectId });

eachBackend('class-level permissions', (target) => {
  let app: AppClient;
  const users = {} as Record<'alice' | 'bob' | 'carol' | 'dave', TestUser>;
  /** carol is in `role`; dave is in `childRole`, which `role` contains, so dave has role's permissions too. */
  let role = '';

  function optionsOf(caller: Caller): RequestOptions {
    if (caller === 'master') return MASTER;
    if (caller === 'anonymous') return {};
    return as(users[caller].sessionToken);
  }

  before(async () => {
    app = await newApp(target, { rateLimits: { authRequestsPerMinute: 0 } });
    const [alice, bob, carol, dave] = await Promise.all([signUp(app), signUp(app), signUp(app), signUp(app)]);
    Object.assign(users, { alice, bob, carol, dave });
    role = unique('Staff');
    const child = await app.post('/1/roles', { name: unique('Juniors'), ACL: {}, users: { __op: 'AddRelation', objects: [userPointer(dave.objectId)] } }, MASTER);
    assert.equal(child.status, 201, child.text);
    const parent = await app.post('/1/roles', {
      name: role,
      ACL: {},
      users: { __op: 'AddRelation', objects: [userPointer(carol.objectId)] },
      roles: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: '_Role', objectId: child.body.objectId }] },
    }, MASTER);
    assert.equal(parent.status, 201, parent.text);
  });

  async function defineClass(fields: Record<string, unknown>, classLevelPermissions: Record<string, unknown>): Promise<string> {
    const cls = unique('Clp');
    const response = await app.post(`/1/schemas/${cls}`, { fields, classLevelPermissions }, MASTER);
    assert.equal(response.status, 201, response.text);
    return cls;
  }

  async function create(cls: string, body: Record<string, unknown>): Promise<string> {
    const response = await app.post(`/1/classes/${cls}`, body, MASTER);
    assert.equal(response.status, 201, response.text);
    return response.body.objectId;
  }

  const ids = (response: Response): string[] => response.body.results.map((object: { objectId: string }) => object.objectId).sort();

  /** Runs one operation as a caller on a class whose objects have a String field `title`. */
  async function attempt(cls: string, operation: Operation, caller: Caller): Promise<Response> {
    const options = optionsOf(caller);
    switch (operation) {
      case 'get':
        return app.get(`/1/classes/${cls}/${await create(cls, { title: 'x' })}`, options);
      case 'find':
        return app.get(`/1/classes/${cls}`, options);
      case 'count':
        return app.get(`/1/classes/${cls}`, { ...options, query: { count: 1, limit: 0 } });
      case 'create':
        return app.post(`/1/classes/${cls}`, { title: 'new' }, options);
      case 'update':
        return app.put(`/1/classes/${cls}/${await create(cls, { title: 'x' })}`, { title: 'changed' }, options);
      case 'delete':
        return app.delete(`/1/classes/${cls}/${await create(cls, { title: 'x' })}`, options);
      case 'addField':
        return app.put(`/1/classes/${cls}/${await create(cls, { title: 'x' })}`, { [unique('extra')]: 1 }, options);
    }
  }

  it('each operation answers 403/119 to callers its rule leaves out: *, a user id, a role, an inherited role, requiresAuthentication, nobody', async () => {
    const rules: [string, () => Record<string, true>, readonly Caller[]][] = [
      ['everyone', () => ({ '*': true }), CALLERS],
      ['one user', () => ({ [users.alice.objectId]: true }), ['alice', 'master']],
      ['a role (and the roles it contains)', () => ({ [`role:${role}`]: true }), ['carol', 'dave', 'master']],
      ['a user and a role', () => ({ [users.bob.objectId]: true, [`role:${role}`]: true }), ['bob', 'carol', 'dave', 'master']],
      ['requiresAuthentication', () => ({ requiresAuthentication: true }), ['alice', 'bob', 'carol', 'dave', 'master']],
      ['nobody', () => ({}), ['master']],
    ];
    for (const [ruleName, rule, allowed] of rules) {
      for (const operation of OPERATIONS) {
        const cls = await defineClass({ title: { type: 'String' } }, { ...PUBLIC_CLP, [operation]: rule() });
        for (const caller of CALLERS) {
          const label = `${operation} for ${ruleName}, as ${caller}`;
          const response = await attempt(cls, operation, caller);
          if (allowed.includes(caller)) assert.ok(response.status === 200 || response.status === 201, `${label}: ${response.status} ${response.text}`);
          else assertError(response, 403, 119, label);
        }
        if (operation === 'addField') {
          const fields = Object.keys((await app.get(`/1/schemas/${cls}`, MASTER)).body.fields);
          assert.equal(fields.filter((field) => field.startsWith('extra')).length, allowed.length, `fields added for ${ruleName}`);
        }
      }
    }
  });

  it('refuses before looking at the object, so a refusal tells nothing about what exists', async () => {
    const cls = await defineClass({ title: { type: 'String' } }, CLOSED_CLP);
    const id = await create(cls, { title: 'x' });
    for (const objectId of [id, 'missing0000']) {
      assertError(await app.get(`/1/classes/${cls}/${objectId}`, optionsOf('alice')), 403, 119);
      assertError(await app.put(`/1/classes/${cls}/${objectId}`, { title: 'y' }, optionsOf('alice')), 403, 119);
      assertError(await app.delete(`/1/classes/${cls}/${objectId}`, optionsOf('alice')), 403, 119);
    }
    // A create that would also add a field is refused without adding it.
    assertError(await app.post(`/1/classes/${cls}`, { title: 'x', extra: 1 }, optionsOf('alice')), 403, 119);
    assert.equal('extra' in (await app.get(`/1/schemas/${cls}`, MASTER)).body.fields, false);
    assert.equal((await app.get(`/1/classes/${cls}/${id}`, MASTER)).body.title, 'x');
  });

  it('the master key bypasses every class-level permission, protected fields included', async () => {
    const cls = await defineClass({ title: { type: 'String' }, secret: { type: 'String' } }, { ...CLOSED_CLP, protectedFields: { '*': ['secret'] } });
    for (const operation of OPERATIONS) {
      const response = await attempt(cls, operation, 'master');
      assert.ok(response.status === 200 || response.status === 201, `${operation}: ${response.text}`);
    }
    const id = await create(cls, { title: 't', secret: 's' });
    assert.equal((await app.get(`/1/classes/${cls}/${id}`, MASTER)).body.secret, 's');
    assert.equal((await app.get(`/1/classes/${cls}`, { ...MASTER, query: { where: { secret: 's' } } })).body.results.length, 1);
  });

  it('readUserFields and writeUserFields limit reads and writes to the users those fields name, within the ACL', async () => {
    const { alice, bob, carol } = users;
    const cls = await defineClass(
      { owner: { type: 'Pointer', targetClass: '_User' }, editors: { type: 'Array' }, title: { type: 'String' } },
      { ...CLOSED_CLP, create: { '*': true }, addField: { '*': true }, readUserFields: ['owner', 'editors'], writeUserFields: ['editors'] },
    );
    const d1 = await create(cls, { title: 'd1', owner: userPointer(alice.objectId), editors: [userPointer(bob.objectId)] });
    const d2 = await create(cls, { title: 'd2', owner: userPointer(bob.objectId), editors: [] });
    // alice owns d3, but its ACL lets only carol in: user fields narrow the ACL, they never widen it.
    const d3 = await create(cls, { title: 'd3', owner: userPointer(alice.objectId), editors: [userPointer(carol.objectId)], ACL: { [carol.objectId]: { read: true, write: true } } });
    const sees: [Caller, string[]][] = [
      ['anonymous', []],
      ['alice', [d1]],
      ['bob', [d1, d2]],
      ['carol', [d3]],
      ['dave', []],
      ['master', [d1, d2, d3]],
    ];
    for (const [caller, visible] of sees) {
      const found = await app.get(`/1/classes/${cls}`, { ...optionsOf(caller), query: { count: 1 } });
      assert.equal(found.status, 200, `${caller}: ${found.text}`);
      assert.deepEqual(ids(found), [...visible].sort(), `find as ${caller}`);
      assert.equal(found.body.count, visible.length, `count as ${caller}`);
      for (const id of [d1, d2, d3]) {
        const got = await app.get(`/1/classes/${cls}/${id}`, optionsOf(caller));
        if (visible.includes(id)) assert.equal(got.status, 200, `get ${id} as ${caller}`);
        else assertError(got, 404, 101, `get ${id} as ${caller}`);
      }
    }
    // Writes: only the editors (writeUserFields); the owner only reads.
    assertError(await app.put(`/1/classes/${cls}/${d1}`, { title: 'by alice' }, optionsOf('alice')), 404, 101);
    assertError(await app.put(`/1/classes/${cls}/${d1}`, { fresh: 'field' }, optionsOf('alice')), 404, 101);
    assert.equal('fresh' in (await app.get(`/1/schemas/${cls}`, MASTER)).body.fields, false);
    assert.equal((await app.put(`/1/classes/${cls}/${d1}`, { title: 'by bob' }, optionsOf('bob'))).status, 200);
    assertError(await app.delete(`/1/classes/${cls}/${d2}`, optionsOf('bob')), 404, 101);
    assertError(await app.delete(`/1/classes/${cls}/${d1}`, optionsOf('anonymous')), 404, 101);
    assert.equal((await app.delete(`/1/classes/${cls}/${d3}`, optionsOf('carol'))).status, 200);
    assert.equal((await app.delete(`/1/classes/${cls}/${d1}`, optionsOf('bob'))).status, 200);
    assert.deepEqual(ids(await app.get(`/1/classes/${cls}`, MASTER)), [d2]);

    // A create is never granted by user fields: there is no object yet to name the user.
    const locked = await defineClass({ editors: { type: 'Array' } }, { ...PUBLIC_CLP, create: {}, writeUserFields: ['editors'] });
    assertError(await app.post(`/1/classes/${locked}`, { editors: [userPointer(alice.objectId)] }, optionsOf('alice')), 403, 119);
  });

  it("an operation's pointerFields grant that operation only", async () => {
    const { alice } = users;
    const cls = await defineClass({ owner: { type: 'Pointer', targetClass: '_User' }, title: { type: 'String' } }, { ...PUBLIC_CLP, update: { pointerFields: ['owner'] }, delete: {} });
    const id = await create(cls, { owner: userPointer(alice.objectId), title: 'a' });
    for (const caller of ['anonymous', 'bob', 'carol'] as const) assertError(await app.put(`/1/classes/${cls}/${id}`, { title: caller }, optionsOf(caller)), 404, 101, caller);
    assert.equal((await app.put(`/1/classes/${cls}/${id}`, { title: 'mine' }, optionsOf('alice'))).status, 200);
    assertError(await app.delete(`/1/classes/${cls}/${id}`, optionsOf('alice')), 403, 119);
    assert.equal((await app.get(`/1/classes/${cls}/${id}`, optionsOf('bob'))).body.title, 'mine');
  });

  it('a page and its count read together keep their own grants: find for the results, count for the count', async () => {
    const { alice, bob } = users;
    // find open to all, count limited to the owner; and the reverse.
    const countMine = await defineClass({ owner: { type: 'Pointer', targetClass: '_User' }, n: { type: 'Number' } }, { ...PUBLIC_CLP, count: { pointerFields: ['owner'] } });
    const findMine = await defineClass({ owner: { type: 'Pointer', targetClass: '_User' }, n: { type: 'Number' } }, { ...PUBLIC_CLP, find: { pointerFields: ['owner'] } });
    for (const cls of [countMine, findMine]) {
      for (const [n, owner] of [[1, alice], [2, bob], [3, alice], [4, bob], [5, bob]] as const) await create(cls, { n, owner: userPointer(owner.objectId) });
    }
    const page = async (cls: string, query: Record<string, unknown>) => {
      const found = await app.get(`/1/classes/${cls}`, { ...optionsOf('alice'), query: { order: 'n', count: 1, ...query } });
      assert.equal(found.status, 200, found.text);
      return { ns: (found.body.results as { n: number }[]).map((object) => object.n), count: found.body.count as number };
    };
    assert.deepEqual(await page(countMine, { limit: 2 }), { ns: [1, 2], count: 2 });
    assert.deepEqual(await page(countMine, { limit: 2, skip: 10 }), { ns: [], count: 2 });
    assert.deepEqual(await page(countMine, { limit: 0 }), { ns: [], count: 2 });
    assert.deepEqual(await page(countMine, { where: JSON.stringify({ n: { $gte: 2 } }), limit: 1 }), { ns: [2], count: 1 });
    assert.deepEqual(await page(findMine, { limit: 1 }), { ns: [1], count: 5 });
    assert.deepEqual(await page(findMine, { limit: 5, skip: 2 }), { ns: [], count: 5 });
    assert.deepEqual(await page(findMine, { where: JSON.stringify({ n: { $gte: 2 } }) }), { ns: [3], count: 4 });
  });

  it('protectedFields hide fields per audience: the most open audience the caller belongs to wins', async () => {
    const { alice, bob } = users;
    const hidden = { '*': ['email', 'phone', 'owner'], authenticated: ['phone', 'owner'], [`role:${role}`]: [], 'userField:owner': ['owner'], [bob.objectId]: ['email', 'owner'] };
    const cls = await defineClass(
      { email: { type: 'String' }, phone: { type: 'String' }, owner: { type: 'Pointer', targetClass: '_User' }, note: { type: 'String' } },
      { ...PUBLIC_CLP, protectedFields: hidden },
    );
    const mine = await create(cls, { email: 'a@x.io', phone: '1', owner: userPointer(alice.objectId), note: 'alice' });
    const theirs = await create(cls, { email: 'b@x.io', phone: '2', owner: userPointer(bob.objectId), note: 'bob' });
    const shown = (object: Record<string, unknown>) => ['email', 'phone', 'owner', 'note'].filter((field) => field in object);
    const expectations: [Caller, string, string[]][] = [
      ['anonymous', mine, ['note']],
      ['alice', theirs, ['email', 'note']],
      // The object's own user (userField:owner) sees what `authenticated` hides, except the owner field.
      ['alice', mine, ['email', 'phone', 'note']],
      // bob's own rule and `authenticated` intersect: only the owner stays hidden.
      ['bob', mine, ['email', 'phone', 'note']],
      ['carol', mine, ['email', 'phone', 'owner', 'note']],
      ['dave', theirs, ['email', 'phone', 'owner', 'note']],
      ['master', mine, ['email', 'phone', 'owner', 'note']],
    ];
    for (const [caller, id, fields] of expectations) {
      const got = await app.get(`/1/classes/${cls}/${id}`, optionsOf(caller));
      assert.deepEqual(shown(got.body), fields, `get as ${caller}`);
      const found = await app.get(`/1/classes/${cls}`, { ...optionsOf(caller), query: { where: { objectId: id }, keys: 'email,phone,owner,note' } });
      assert.deepEqual(shown(found.body.results[0]), fields, `find as ${caller}`);
    }
    // Filtering or sorting on a hidden field would tell its value: 119, as Parse answers.
    assertError(await app.get(`/1/classes/${cls}`, { query: { where: { email: 'a@x.io' } } }), 403, 119, 'where');
    assertError(await app.get(`/1/classes/${cls}`, { query: { where: { $or: [{ note: 'x' }, { phone: { $exists: true } }] } } }), 403, 119, 'where inside $or');
    assertError(await app.get(`/1/classes/${cls}`, { query: { order: '-phone' } }), 403, 119, 'order');
    assertError(await app.get(`/1/classes/${cls}`, { ...optionsOf('alice'), query: { where: { phone: '1' } } }), 403, 119, 'a field hidden from the authenticated');
    assert.deepEqual(ids(await app.get(`/1/classes/${cls}`, { ...optionsOf('alice'), query: { where: { email: 'a@x.io' } } })), [mine]);
    assert.deepEqual(ids(await app.get(`/1/classes/${cls}`, { ...optionsOf('carol'), query: { where: { phone: '2' } } })), [theirs]);
    // An inner query may not select or filter on a hidden field of its class either.
    const other = await defineClass({ code: { type: 'String' } }, PUBLIC_CLP);
    await create(other, { code: 'a@x.io' });
    assertError(await app.get(`/1/classes/${other}`, { query: { where: { code: { $select: { query: { className: cls, where: {} }, key: 'email' } } } } }), 403, 119, '$select key');
    assertError(await app.get(`/1/classes/${other}`, { query: { where: { code: { $select: { query: { className: cls, where: { email: 'a@x.io' } }, key: 'note' } } } } }), 403, 119, 'inner where');
    assert.equal(ids(await app.get(`/1/classes/${other}`, { ...MASTER, query: { where: { code: { $select: { query: { className: cls, where: {} }, key: 'email' } } } } })).length, 1);

    // Included objects hide the same fields.
    const holder = await defineClass({ item: { type: 'Pointer', targetClass: cls } }, PUBLIC_CLP);
    const holderId = await create(holder, { item: { __type: 'Pointer', className: cls, objectId: mine } });
    const included = await app.get(`/1/classes/${holder}/${holderId}`, { query: { include: 'item' } });
    assert.equal(included.body.item.__type, 'Object');
    assert.deepEqual(shown(included.body.item), ['note']);
  });

  it('inner queries need find on their class, $relatedTo owners need get, and include leaves a refused class as pointers', async () => {
    const { alice } = users;
    const secret = await defineClass({ tag: { type: 'String' } }, { ...PUBLIC_CLP, find: {}, get: {} });
    const secretId = await create(secret, { tag: 't' });
    const post = await defineClass({ ref: { type: 'Pointer', targetClass: secret }, tag: { type: 'String' } }, PUBLIC_CLP);
    const postId = await create(post, { ref: { __type: 'Pointer', className: secret, objectId: secretId }, tag: 't' });
    const inner = { className: secret, where: {} };
    for (const where of [{ ref: { $inQuery: inner } }, { ref: { $notInQuery: inner } }, { tag: { $select: { query: inner, key: 'tag' } } }]) {
      assertError(await app.get(`/1/classes/${post}`, { ...optionsOf('alice'), query: { where } }), 403, 119, JSON.stringify(where));
      assert.equal((await app.get(`/1/classes/${post}`, { ...MASTER, query: { where } })).status, 200);
    }
    const included = await app.get(`/1/classes/${post}/${postId}`, { ...optionsOf('alice'), query: { include: 'ref' } });
    assert.equal(included.status, 200);
    assert.deepEqual(included.body.ref, { __type: 'Pointer', className: secret, objectId: secretId });

    // A box whose objects only their owner may get: $relatedTo lists the items of her own box only.
    const item = await defineClass({ n: { type: 'Number' } }, PUBLIC_CLP);
    const itemId = await create(item, { n: 1 });
    const box = await defineClass({ owner: { type: 'Pointer', targetClass: '_User' }, items: { type: 'Relation', targetClass: item } }, { ...PUBLIC_CLP, get: {}, readUserFields: ['owner'] });
    const boxId = await create(box, { owner: userPointer(alice.objectId), items: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: item, objectId: itemId }] } });
    const related = (caller: Caller) => app.get(`/1/classes/${item}`, { ...optionsOf(caller), query: { where: { $relatedTo: { object: { __type: 'Pointer', className: box, objectId: boxId }, key: 'items' } } } });
    assert.deepEqual(ids(await related('alice')), [itemId]);
    assert.deepEqual(ids(await related('bob')), []);
    assert.deepEqual(ids(await related('master')), [itemId]);
    const closedBox = await defineClass({ items: { type: 'Relation', targetClass: item } }, { ...PUBLIC_CLP, get: {} });
    const closedId = await create(closedBox, { items: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: item, objectId: itemId }] } });
    assertError(await app.get(`/1/classes/${item}`, { ...optionsOf('alice'), query: { where: { $relatedTo: { object: { __type: 'Pointer', className: closedBox, objectId: closedId }, key: 'items' } } } }), 403, 119);
  });

  it('applies to roles: the _Role class permissions govern /1/roles', async () => {
    const name = unique('Guarded');
    const created = await app.post('/1/roles', { name, ACL: { '*': { read: true, write: true } } }, optionsOf('alice'));
    assert.equal(created.status, 201, created.text);
    const before = (await app.get('/1/schemas/_Role', MASTER)).body.classLevelPermissions;
    try {
      const changed = await app.put('/1/schemas/_Role', { classLevelPermissions: { ...PUBLIC_CLP, create: {}, find: { requiresAuthentication: true }, delete: { [users.bob.objectId]: true } } }, MASTER);
      assert.equal(changed.status, 200, changed.text);
      assertError(await app.post('/1/roles', { name: unique('Refused'), ACL: {} }, optionsOf('alice')), 403, 119, 'create');
      // A refused create does not even say whether the name is taken.
      assertError(await app.post('/1/roles', { name, ACL: {} }, optionsOf('alice')), 403, 119, 'create with a taken name');
      assert.equal((await app.post('/1/roles', { name: unique('Allowed'), ACL: {} }, MASTER)).status, 201);
      assertError(await app.get('/1/roles', optionsOf('anonymous')), 403, 119, 'find');
      assert.equal((await app.get('/1/roles', optionsOf('alice'))).status, 200);
      assertError(await app.delete(`/1/roles/${created.body.objectId}`, optionsOf('alice')), 403, 119, 'delete');
      assert.equal((await app.delete(`/1/roles/${created.body.objectId}`, optionsOf('bob'))).status, 200);
    } finally {
      assert.equal((await app.put('/1/schemas/_Role', { classLevelPermissions: before }, MASTER)).status, 200);
    }
  });

  it('applies to users: the _User class permissions govern /1/users, and a user sees all of its own fields', async () => {
    const withMail = await signUp(app, { email: `${unique('m')}@example.com`, city: 'Oslo' });
    const before = (await app.get('/1/schemas/_User', MASTER)).body.classLevelPermissions;
    try {
      const clp = { ...PUBLIC_CLP, find: { requiresAuthentication: true }, count: {}, get: { requiresAuthentication: true }, update: {}, delete: {}, protectedFields: { '*': ['email', 'city'] } };
      assert.equal((await app.put('/1/schemas/_User', { classLevelPermissions: clp }, MASTER)).status, 200);
      assertError(await app.get('/1/users', optionsOf('anonymous')), 403, 119, 'find');
      assertError(await app.get('/1/users', { ...optionsOf('alice'), query: { count: 1 } }), 403, 119, 'count');
      assertError(await app.get(`/1/users/${withMail.objectId}`, optionsOf('anonymous')), 403, 119, 'get');
      const listed = await app.get('/1/users', { ...optionsOf('alice'), query: { where: { objectId: withMail.objectId } } });
      assert.deepEqual([listed.body.results[0].email, listed.body.results[0].city], [undefined, undefined]);
      const other = await app.get(`/1/users/${withMail.objectId}`, optionsOf('alice'));
      assert.deepEqual([other.status, other.body.email, other.body.city], [200, undefined, undefined]);
      const self = await app.get(`/1/users/${withMail.objectId}`, as(withMail.sessionToken));
      assert.equal(self.body.city, 'Oslo');
      assert.match(self.body.email, /@example\.com$/);
      assertError(await app.put(`/1/users/${withMail.objectId}`, { city: 'Bergen' }, as(withMail.sessionToken)), 403, 119, 'update');
      assertError(await app.delete(`/1/users/${withMail.objectId}`, as(withMail.sessionToken)), 403, 119, 'delete');
      assert.equal((await app.get(`/1/users/${withMail.objectId}`, MASTER)).body.city, 'Oslo');
    } finally {
      assert.equal((await app.put('/1/schemas/_User', { classLevelPermissions: before }, MASTER)).status, 200);
    }
  });

  it('restricts /1/sessions by the _Session class permissions, but not the sessions of sign-up, login and logout (spec 2.7)', async () => {
    const before = (await app.get('/1/schemas/_Session', MASTER)).body.classLevelPermissions;
    try {
      assert.equal((await app.put('/1/schemas/_Session', { classLevelPermissions: CLOSED_CLP }, MASTER)).status, 200);
      const user = await signUp(app);
      const login = await logIn(app, user.username, user.password);
      assert.equal(login.status, 200, login.text);
      const options = as(login.body.sessionToken);
      assert.equal((await app.get('/1/users/me', options)).status, 200);
      const mine = await app.get('/1/sessions', { ...MASTER, query: { where: { user: userPointer(user.objectId) } } });
      assert.equal(mine.body.results.length, 2);
      const refused: [string, Promise<Response>][] = [
        ['find', app.get('/1/sessions', options)],
        ['get me', app.get('/1/sessions/me', options)],
        ['get', app.get(`/1/sessions/${mine.body.results[0].objectId}`, options)],
        ['create', app.post('/1/sessions', {}, options)],
        ['update', app.put(`/1/sessions/${mine.body.results[0].objectId}`, { note: 'x' }, options)],
        ['delete', app.delete(`/1/sessions/${mine.body.results[0].objectId}`, options)],
      ];
      for (const [label, response] of refused) assertError(await response, 403, 119, label);
      assert.equal((await app.post('/1/logout', {}, options)).status, 200);
      assertError(await app.get('/1/users/me', options), 400, 209);
      assert.equal((await app.get('/1/users/me', as(user.sessionToken))).status, 200);
    } finally {
      assert.equal((await app.put('/1/schemas/_Session', { classLevelPermissions: before }, MASTER)).status, 200);
    }
  });
});
