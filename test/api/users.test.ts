import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { unique, type AppClient } from '../helpers/client.ts';
import { openStorage, type Storage } from '../helpers/storage.ts';
import { as, assertError, newUserApp, REVOCABLE_TOKEN, sessionOf, signUp, TIMESTAMP } from '../helpers/users.ts';

/** Spec 2.4 and 4.3, decisions.md "Errors": sign-up, and what is stored and shown of a password. */

eachBackend('users: sign-up', (target) => {
  let app: AppClient;
  let storage: Storage;

  before(async () => {
    app = await newUserApp(target);
    // The storage helper finds this app's database by a class only it has.
    const marker = unique('Mark');
    assert.equal((await app.post(`/1/classes/${marker}`, {})).status, 201);
    storage = await openStorage(target, marker);
  });
  after(() => storage.close());

  const usersNamed = async (username: string) => (await app.get('/1/users', { key: 'master', query: { where: { username } } })).body.results as Record<string, unknown>[];

  it('signs up with 201, Location and exactly {objectId, createdAt, sessionToken}', async () => {
    const username = unique('user');
    const password = unique('secret');
    const response = await app.post('/1/users', { username, password, email: 'Mixed.Case@Example.COM', score: 7 });
    assert.equal(response.status, 201, response.text);
    assert.deepEqual(Object.keys(response.body).sort(), ['createdAt', 'objectId', 'sessionToken']);
    const { objectId, createdAt, sessionToken } = response.body;
    assert.match(sessionToken, REVOCABLE_TOKEN);
    assert.match(createdAt, TIMESTAMP);
    assert.equal(response.headers.get('location'), `${target.url}/1/users/${objectId}`);

    const read = await app.get(`/1/users/${objectId}`, as(sessionToken));
    assert.equal(read.status, 200);
    // Parse's default for a new user: public read, write by the user only.
    const ACL = { '*': { read: true }, [objectId]: { read: true, write: true } };
    assert.deepEqual(read.body, { username, email: 'mixed.case@example.com', score: 7, ACL, objectId, createdAt, updatedAt: createdAt });

    // The session is a real one: signup, password, the user's, unrestricted.
    const session = await sessionOf(app, sessionToken);
    assert.deepEqual(session.createdWith, { action: 'signup', authProvider: 'password' });
    assert.deepEqual(session.user, { __type: 'Pointer', className: '_User', objectId });
    assert.equal(session.restricted, false);
    assert.equal(session.sessionToken, sessionToken);

    // Only an argon2id hash is kept: no clear text anywhere in the document.
    const stored = (await storage.documents('_User')).find((doc) => doc.objectId === objectId)!;
    assert.match(stored.data._hashed_password, /^\$argon2id\$/);
    assert.equal('password' in stored.data, false);
    assert.equal(JSON.stringify(stored.data).includes(password), false);
  });

  it('refuses a sign-up without a username (200) or a password (201), and stores nothing', async () => {
    const username = unique('user');
    const cases: [Record<string, unknown>, number][] = [
      [{ password: 'pw' }, 200],
      [{ username: '', password: 'pw' }, 200],
      [{ username: '   ', password: 'pw' }, 200],
      [{ username: 42, password: 'pw' }, 200],
      [{ username: null, password: 'pw' }, 200],
      [{ username }, 201],
      [{ username, password: '' }, 201],
      [{ username, password: 42 }, 201],
      [{ username, password: null }, 201],
    ];
    for (const [body, code] of cases) assertError(await app.post('/1/users', body), 400, code, JSON.stringify(body));
    assert.deepEqual(await usersNamed(username), []);
  });

  it('refuses a malformed email with 125', async () => {
    const username = unique('user');
    for (const email of ['plain', 'no-domain@', '@no-local.com', 'a@b', 'two@@example.com', 'sp ace@example.com', '', 42, true, { a: 1 }]) {
      assertError(await app.post('/1/users', { username, password: 'pw', email }), 400, 125, JSON.stringify(email));
    }
    assert.deepEqual(await usersNamed(username), []);
  });

  it('answers 202 for a taken username and 203 for a taken email, whatever the email\'s case', async () => {
    const first = await signUp(app, { email: `${unique('Ann')}@Example.com` });
    const email = (await app.get(`/1/users/${first.objectId}`, { key: 'master' })).body.email as string;
    assertError(await app.post('/1/users', { username: first.username, password: 'other' }), 400, 202, 'same username');
    assertError(await app.post('/1/users', { username: first.username, password: 'other', email: `${unique('x')}@example.com` }), 400, 202, 'same username, new email');
    for (const variant of [email, email.toUpperCase(), ` ${email} `]) {
      assertError(await app.post('/1/users', { username: unique('user'), password: 'pw', email: variant }), 400, 203, variant);
    }
    assert.equal((await usersNamed(first.username)).length, 1);
    const sameEmail = await app.get('/1/users', { key: 'master', query: { where: { email }, count: 1 } });
    assert.equal(sameEmail.body.count, 1);
  });

  it('of 20 parallel sign-ups with one username, exactly one succeeds and 19 get 202', async () => {
    // A fresh app, so the user and session classes are created under the same race.
    const fresh = await newUserApp(target);
    const username = unique('race');
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => fresh.post('/1/users', { username, password: `pw${i}` })));
    const created = responses.filter((response) => response.status === 201);
    assert.equal(created.length, 1, responses.map((response) => response.text).join('\n'));
    for (const response of responses.filter((r) => r.status !== 201)) assertError(response, 400, 202);
    const stored = await fresh.get('/1/users', { key: 'master', query: { count: 1 } });
    assert.equal(stored.body.count, 1);
    assert.equal(stored.body.results[0].objectId, created[0]!.body.objectId);
    // The winner's session works, and no loser left a session behind.
    assert.equal((await fresh.get('/1/users/me', as(created[0]!.body.sessionToken))).status, 200);
    const sessions = await fresh.get('/1/sessions', { key: 'master', query: { count: 1 } });
    assert.equal(sessions.body.count, 1);
  });

  it('of 20 parallel sign-ups with one email in different cases, exactly one succeeds and 19 get 203', async () => {
    const local = unique('race');
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => app.post('/1/users', { username: unique('user'), password: 'pw', email: `${i % 2 ? local.toUpperCase() : local}@example.com` })),
    );
    assert.equal(responses.filter((response) => response.status === 201).length, 1, responses.map((response) => response.text).join('\n'));
    for (const response of responses.filter((r) => r.status !== 201)) assertError(response, 400, 203);
    const stored = await app.get('/1/users', { key: 'master', query: { where: { email: `${local.toLowerCase()}@example.com` }, count: 1 } });
    assert.equal(stored.body.count, 1);
  });

  it('never returns the password or its hash, and cannot query, sort or select by them', async () => {
    const password = unique('secret');
    const user = await signUp(app, { password });
    const hidden = (body: Record<string, unknown>, context: string) => {
      for (const field of ['password', '_hashed_password']) assert.equal(field in body, false, `${context}: ${JSON.stringify(body)}`);
      assert.equal(JSON.stringify(body).includes(password), false, context);
    };
    hidden((await app.get(`/1/users/${user.objectId}`, as(user.sessionToken))).body, 'own read');
    hidden((await app.get(`/1/users/${user.objectId}`, { key: 'master' })).body, 'master read');
    hidden((await app.get('/1/users/me', as(user.sessionToken))).body, 'me');
    const projected = await app.get('/1/users', { key: 'master', query: { where: { username: user.username }, keys: 'password,_hashed_password' } });
    assert.equal(projected.status, 200);
    assert.deepEqual(Object.keys(projected.body.results[0]).sort(), ['ACL', 'createdAt', 'objectId', 'updatedAt']);

    // The clear-text password is stored nowhere, so a where on it matches no user.
    for (const where of [{ password }, { username: user.username, password: { $exists: true } }, { password: { $regex: '^' } }]) {
      const found = await app.get('/1/users', { key: 'master', query: { where } });
      assert.equal(found.status, 200);
      assert.deepEqual(found.body.results, [], JSON.stringify(where));
    }
    // The hash is the server's own field: no where, order or sub-query may name it.
    const refused: Record<string, unknown>[] = [
      { where: { _hashed_password: { $exists: true } } },
      { where: { _hashed_password: { $regex: '^\\$argon2' } } },
      { where: { $or: [{ _hashed_password: { $gt: '' } }] } },
      { order: '_hashed_password' },
      { order: '-_hashed_password' },
    ];
    for (const query of refused) assertError(await app.get('/1/users', { key: 'master', query: query as Record<string, object> }), 400, 105, JSON.stringify(query));
    const probe = unique('Probe');
    assert.equal((await app.post(`/1/classes/${probe}`, { owner: { __type: 'Pointer', className: '_User', objectId: user.objectId } })).status, 201);
    assertError(
      await app.get(`/1/classes/${probe}`, { query: { where: { owner: { $inQuery: { className: '_User', where: { _hashed_password: { $exists: true } } } } } } }),
      400,
      105,
      '$inQuery on the hash',
    );
    // A user reached through include is rendered like a user read directly.
    const included = await app.get(`/1/classes/${probe}`, { key: 'master', query: { include: 'owner' } });
    assert.equal(included.status, 200, included.text);
    assert.equal(included.body.results[0].owner.username, user.username);
    hidden(included.body.results[0].owner, 'include');
  });

  it('the password and its hash cannot be written as fields: a sign-up or update cannot plant a hash', async () => {
    const user = await signUp(app);
    const before = (await storage.documents('_User')).find((doc) => doc.objectId === user.objectId)!.data._hashed_password;
    assertError(await app.put(`/1/users/${user.objectId}`, { _hashed_password: 'planted' }, as(user.sessionToken)), 400, 105, 'update');
    assertError(await app.put(`/1/users/${user.objectId}`, { _hashed_password: 'planted' }, { key: 'master' }), 400, 105, 'update, master key');
    const planted = await app.post('/1/users', { username: unique('user'), password: 'pw', _hashed_password: 'planted' });
    assertError(planted, 400, 105, 'sign-up');
    assert.equal((await storage.documents('_User')).find((doc) => doc.objectId === user.objectId)!.data._hashed_password, before);
    assert.equal((await storage.documents('_User')).some((doc) => doc.data._hashed_password === 'planted'), false);
  });

  it('a $select on the hash matches nothing, even a value equal to the stored hash', async () => {
    const user = await signUp(app);
    const hash = (await storage.documents('_User')).find((doc) => doc.objectId === user.objectId)!.data._hashed_password as string;
    const probe = unique('Probe');
    assert.equal((await app.post(`/1/classes/${probe}`, { h: hash, name: user.username })).status, 201);
    const query = { className: '_User', where: { objectId: user.objectId } };
    const selected = await app.get(`/1/classes/${probe}`, { key: 'master', query: { where: { h: { $select: { query, key: '_hashed_password' } } } } });
    assert.equal(selected.status, 200);
    assert.deepEqual(selected.body.results, []);
    // The same sub-query selecting a public field does match: only the hash is out of reach.
    const control = await app.get(`/1/classes/${probe}`, { key: 'master', query: { where: { name: { $select: { query, key: 'username' } } } } });
    assert.equal(control.body.results.length, 1);
  });
});
