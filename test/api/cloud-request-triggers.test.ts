import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AppClient } from '../helpers/client.ts';
import { cloudServer } from '../helpers/cloud.ts';
import { as, assertError, logIn, signUp } from '../helpers/users.ts';

/**
 * Cloud code's triggers of logins, logouts and queries (docs/cloud-code.md), from the unchanged
 * Parse Server code of test/fixtures/cloud/request-triggers/main.js.
 */

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`cloud login and find triggers [${backend}]`, () => {
    const cloud = cloudServer(backend);
    let app: AppClient;

    before(async () => {
      app = await cloud().appWithCode('request-triggers');
    });

    const master = { key: 'master' as const };
    const eventsOf = async (who: string) => (await app.get('/1/classes/Event', { ...master, query: { where: { who }, order: 'createdAt', keys: 'kind,className,username,userId,session' } })).body.results.map(({ objectId, createdAt, updatedAt, ...fields }: any) => fields);
    const sessionsOf = async (userId: string) => (await app.get('/1/classes/_Session', { ...master, query: { where: { user: { __type: 'Pointer', className: '_User', objectId: userId } }, count: 1, limit: 0 } })).body.count;

    it('beforeLogin lets a login through; afterLogin sees the user; afterLogout sees the session', async () => {
      const user = await signUp(app);
      const login = await logIn(app, user.username, user.password);
      assert.equal(login.status, 200, login.text);
      assert.equal(login.body.objectId, user.objectId);
      const session = await app.get('/1/sessions/me', as(login.body.sessionToken));
      assert.equal(session.status, 200, session.text);
      const logout = await app.post('/1/logout', {}, as(login.body.sessionToken));
      assert.equal(logout.status, 200, logout.text);
      const [loginEvent, logoutEvent] = await eventsOf(user.objectId);
      assert.deepEqual(loginEvent, { kind: 'login', className: '_User', username: user.username, userId: user.objectId });
      assert.deepEqual(logoutEvent, { kind: 'logout', className: '_Session', session: session.body.objectId });
      // Sign-up's session only: the login's is gone.
      assert.equal(await sessionsOf(user.objectId), 1);
    });

    it('beforeLogin refuses a login with its Parse.Error, or 141 for any other throw; no session is made', async () => {
      const banned = await signUp(app, { banned: 'parse' });
      const refused = await logIn(app, banned.username, banned.password);
      assertError(refused, 403, 119);
      assert.equal(refused.body.error, `${banned.username} is banned`);
      const plain = await signUp(app, { banned: 'plain' });
      const failed = await logIn(app, plain.username, plain.password);
      assert.deepEqual([failed.status, failed.body], [400, { code: 141, error: 'not today' }]);
      assert.equal(await sessionsOf(banned.objectId), 1);
      assert.equal(await sessionsOf(plain.objectId), 1);
      assert.deepEqual(await eventsOf(banned.objectId), []);
    });

    it('beforeFind changes a find and a count; afterFind changes and drops results', async () => {
      const created = [];
      for (const book of [{ title: 'a', shelved: true }, { title: 'b', hidden: true }, { title: 'dropped', shelved: true }, { title: 'c' }]) created.push((await app.post('/1/classes/Book', book)).body.objectId);
      const found = await app.get('/1/classes/Book', { query: { order: 'title' } });
      assert.equal(found.status, 200, found.text);
      assert.deepEqual(found.body.results.map((book: any) => [book.title, book.seen]), [['a', true], ['c', true]]);
      // The master key sees the hidden book (the trigger leaves its query alone).
      const all = await app.get('/1/classes/Book', { ...master, query: { order: 'title', keys: 'title' } });
      assert.deepEqual(all.body.results.map((book: any) => book.title), ['a', 'b', 'c']);
      const counted = await app.get('/1/classes/Book', { query: { count: 1, limit: 0 } });
      assert.deepEqual(counted.body, { results: [], count: 2 });
      const refused = await app.get('/1/classes/Book', { query: { where: { title: 'forbidden' } } });
      assert.deepEqual([refused.status, refused.body], [403, { code: 119, error: 'no such query' }]);
    });

    it('beforeFind and afterFind run on a get: a hidden object is not found, a dropped one neither', async () => {
      const visible = (await app.post('/1/classes/Book', { title: 'v' })).body.objectId;
      const hidden = (await app.post('/1/classes/Book', { title: 'h', hidden: true })).body.objectId;
      const dropped = (await app.post('/1/classes/Book', { title: 'dropped' })).body.objectId;
      const got = await app.get(`/1/classes/Book/${visible}`);
      assert.equal(got.status, 200, got.text);
      assert.deepEqual([got.body.objectId, got.body.title, got.body.seen], [visible, 'v', true]);
      assertError(await app.get(`/1/classes/Book/${hidden}`), 404, 101);
      assertError(await app.get(`/1/classes/Book/${dropped}`), 404, 101);
      assert.equal((await app.get(`/1/classes/Book/${hidden}`, master)).body.title, 'h');
    });

    it('a query beforeFind answers replaces the one asked', async () => {
      for (const name of ['middle', 'back', 'front']) await app.post('/1/classes/Shelf', { name });
      const found = await app.get('/1/classes/Shelf', { query: { where: { name: 'middle' }, limit: 10 } });
      assert.equal(found.status, 200, found.text);
      assert.deepEqual(found.body.results.map((shelf: any) => shelf.name), ['back']);
    });

    it('beforeFind is told of a get (isGet) and a count; the Session class runs no trigger', async () => {
      const { objectId } = (await app.post('/1/classes/Note', { text: 'n' })).body;
      const asked = async (path: string, query?: Record<string, string | number | object>) => {
        const response = await app.get(path, { query });
        assert.equal(response.status, 400, response.text);
        return response.body.error;
      };
      assert.equal(await asked('/1/classes/Note', { where: { text: 'n' }, limit: 5 }), 'isGet false, count false, where {"text":"n"}, limit 5');
      assert.equal(await asked('/1/classes/Note', { count: 1, limit: 0 }), 'isGet false, count true, where {}, limit 0');
      assert.equal(await asked(`/1/classes/Note/${objectId}`), `isGet true, count false, where {"objectId":"${objectId}"}, limit undefined`);
      const user = await signUp(app);
      const sessions = await app.get('/1/sessions', as(user.sessionToken));
      assert.equal(sessions.status, 200, sessions.text);
      assert.equal(sessions.body.results.length, 1);
    });

    it('beforeSaveFile refuses an upload; afterSaveFile, beforeDeleteFile and afterDeleteFile see the stored file', async () => {
      const refused = await app.post('/1/files/refused.txt', undefined, { raw: 'hello', headers: { 'Content-Type': 'text/plain' } });
      assert.deepEqual([refused.status, refused.body], [400, { code: 130, error: 'no refused.txt of 5 bytes' }]);

      const saved = await app.post('/1/files/note.txt', undefined, { raw: 'hello', headers: { 'Content-Type': 'text/plain' } });
      assert.equal(saved.status, 201, saved.text);
      const savedEvents = (await app.get('/1/classes/Event', { ...master, query: { where: { who: saved.body.name } } })).body.results;
      assert.deepEqual(savedEvents.map((event: any) => [event.kind, event.url, event.size]), [['fileSaved', saved.body.url, 5]]);

      const kept = await app.post('/1/files/keep.txt', undefined, { raw: 'x', headers: { 'Content-Type': 'text/plain' } });
      const notDeleted = await app.delete(`/1/files/${kept.body.name}`, master);
      assert.deepEqual([notDeleted.status, notDeleted.body], [403, { code: 119, error: 'this file is kept' }]);
      assert.equal((await fetch(kept.body.url)).status, 200);

      const deleted = await app.delete(`/1/files/${saved.body.name}`, master);
      assert.deepEqual([deleted.status, deleted.body], [200, {}]);
      const events = (await app.get('/1/classes/Event', { ...master, query: { where: { who: saved.body.name }, order: 'createdAt' } })).body.results;
      assert.deepEqual(events.map((event: any) => [event.kind, event.url]), [['fileSaved', saved.body.url], ['fileDeleted', saved.body.url]]);
    });
  });
}
