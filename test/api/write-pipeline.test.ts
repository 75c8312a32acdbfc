import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppClient, newApp, unique } from '../helpers/client.ts';
import { start, stop, tempDatabase, tempDir, type Started } from '../helpers/process.ts';
import { ADMIN } from '../helpers/targets.ts';
import { as, assertError, signUp } from '../helpers/users.ts';

/**
 * The one write pipeline (docs/architecture.md "The write pipeline"): every entry point reaches
 * the observers of its named points with one request shape, internal writes included; a
 * before-observer may change the object or refuse the write. The server under test loads
 * test/helpers/write-observer.ts with --test-write-observer, so each backend gets a process of
 * its own here.
 */

type Logged = Record<string, any>;

const OBSERVER = 'test/helpers/write-observer.ts';
const INSTALLATION = 'a1b2c3d4-0000-4000-8000-00000000cafe';

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`write pipeline [${backend}]`, () => {
    let server: Started;
    let app: AppClient;
    let logFile: string;
    const cleanup: (() => Promise<void> | void)[] = [];

    before(async () => {
      const dir = tempDir();
      cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
      logFile = join(dir, 'observed.jsonl');
      writeFileSync(logFile, '');
      const env: Record<string, string> = { BASALT_DATA_DIR: dir, BASALT_ADMIN_EMAIL: ADMIN.email, BASALT_ADMIN_PASSWORD: ADMIN.password, WRITE_OBSERVER_LOG: logFile };
      if (backend === 'postgres') {
        const db = await tempDatabase();
        cleanup.push(() => db.drop());
        env.BASALT_DATABASE_URL = db.url;
      }
      server = await start(env, ['--test-write-observer', OBSERVER]);
      app = await newApp({ backend, url: server.url }, { rateLimits: { authRequestsPerMinute: 0 }, accountLockout: { threshold: 3, duration: 5 } });
    });

    after(async () => {
      if (server) await stop(server);
      for (const step of cleanup.reverse()) await step();
    });

    /** What the observer received, in order, for one class (and, for users, one object). */
    const observed = (className: string, objectId?: string): Logged[] =>
      readFileSync(logFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Logged)
        .filter((request) => request.className === className && (objectId === undefined || request.object.objectId === objectId));

    const shape = (request: Logged) => ({ triggerName: request.triggerName, user: request.user, master: request.master, installationId: request.installationId });

    it('a create, an update and a delete of /1/classes reach both points with the same request shape', async () => {
      const cls = unique('Obs');
      const created = await app.post(`/1/classes/${cls}`, { name: 'a', n: 1 }, { headers: { 'X-Svc-Installation-Id': INSTALLATION } });
      assert.equal(created.status, 201, created.text);
      const { objectId } = created.body;
      const updated = await app.put(`/1/classes/${cls}/${objectId}`, { n: { __op: 'Increment', amount: 2 } });
      assert.equal(updated.status, 200, updated.text);
      assert.equal((await app.delete(`/1/classes/${cls}/${objectId}`, { key: 'master' })).status, 200);

      const seen = observed(cls);
      assert.deepEqual(seen.map((request) => request.triggerName), ['beforeSave', 'afterSave', 'beforeSave', 'afterSave', 'beforeDelete', 'afterDelete']);
      for (const request of seen) {
        assert.deepEqual(Object.keys(request).sort(), ['className', 'context', 'installationId', 'master', 'object', 'original', 'triggerName', 'user']);
      }
      assert.deepEqual(shape(seen[0]!), { triggerName: 'beforeSave', user: null, master: false, installationId: INSTALLATION });
      assert.equal(seen[0]!.original, null);
      assert.equal(seen[0]!.object.name, 'a');
      assert.equal(seen[0]!.object.objectId, objectId);
      // The update: the planned object (n after the increment) and the original as read.
      assert.equal(seen[2]!.object.n, 3);
      assert.equal(seen[2]!.original.n, 1);
      assert.equal(seen[3]!.object.n, 3);
      assert.deepEqual(shape(seen[4]!), { triggerName: 'beforeDelete', user: null, master: true, installationId: null });
      assert.equal(seen[4]!.original.objectId, objectId);
      assert.equal(seen[5]!.object.n, 3);
    });

    it('a before-observer changes the stored object: its field is set and the one it removed is gone', async () => {
      const cls = unique('Stamped');
      const created = await app.post(`/1/classes/${cls}`, { name: 'first', scratch: 'temporary' });
      assert.equal(created.status, 201, created.text);
      const stored = await app.get(`/1/classes/${cls}/${created.body.objectId}`);
      assert.equal(stored.status, 200, stored.text);
      assert.equal(stored.body.stamp, 'stamped first');
      assert.equal(stored.body.scratch, undefined);
      // On an update the observer's change lies over the planned one, operators kept.
      const updated = await app.put(`/1/classes/${cls}/${created.body.objectId}`, { name: 'second', n: { __op: 'Increment', amount: 4 } });
      assert.equal(updated.status, 200, updated.text);
      assert.equal(updated.body.n, 4);
      const again = await app.get(`/1/classes/${cls}/${created.body.objectId}`);
      assert.equal(again.body.stamp, 'stamped second');
      assert.equal(again.body.n, 4);
    });

    it('a before-observer that throws refuses the write with 141 and nothing is written', async () => {
      const cls = unique('Refused');
      // The class exists (made by the master key while the observer refuses), and stays empty.
      assertError(await app.post(`/1/classes/${cls}`, { name: 'x' }), 400, 141, 'create');
      const refused = await app.post(`/1/classes/${cls}`, { name: 'y' }, { key: 'master' });
      assert.equal(refused.body.error, 'refused by the observer');
      const listed = await app.get(`/1/classes/${cls}`, { key: 'master' });
      assert.deepEqual(listed.body.results ?? [], []);
      // Within a batch, the refused command is answered in place.
      const batch = await app.post('/1/batch', { requests: [{ method: 'POST', path: `/1/classes/${cls}`, body: { name: 'z' } }] });
      assert.equal(batch.status, 200, batch.text);
      assert.equal(batch.body[0].error.code, 141);
      assert.equal(observed(cls).filter((request) => request.triggerName === 'afterSave').length, 0);

      const kept = unique('Kept');
      const object = await app.post(`/1/classes/${kept}`, { name: 'k' });
      assertError(await app.delete(`/1/classes/${kept}/${object.body.objectId}`), 400, 141, 'delete');
      assert.equal((await app.get(`/1/classes/${kept}/${object.body.objectId}`)).status, 200);
    });

    it('in a transactional batch, after-observers run once it commits, and never for a batch rolled back', async () => {
      const cls = unique('Obs');
      const failed = await app.post('/1/batch', {
        transaction: true,
        requests: [
          { method: 'POST', path: `/1/classes/${cls}`, body: { name: 'first', n: 1 } },
          { method: 'POST', path: `/1/classes/${cls}`, body: { name: 'second', n: 'not a number' } },
        ],
      });
      assertError(failed, 400, 111, 'the failed transaction');
      assert.deepEqual(observed(cls).map((request) => [request.triggerName, request.object.name]), [['beforeSave', 'first']]);

      const done = await app.post('/1/batch', { transaction: true, requests: [{ method: 'POST', path: `/1/classes/${cls}`, body: { name: 'third', n: 3 } }] });
      assert.equal(done.status, 200, done.text);
      assert.deepEqual(observed(cls).slice(1).map((request) => [request.triggerName, request.object.name]), [['beforeSave', 'third'], ['afterSave', 'third']]);
    });

    it('users: sign-up, update, password change, authData link, the _User path and delete are observed; sessions never are', async () => {
      const user = await signUp(app, {}, { 'X-Svc-Installation-Id': INSTALLATION });
      let seen = observed('_User', user.objectId);
      assert.deepEqual(seen.map(shape), [
        { triggerName: 'beforeSave', user: null, master: false, installationId: INSTALLATION },
        { triggerName: 'afterSave', user: null, master: false, installationId: INSTALLATION },
      ]);
      assert.equal(seen[0]!.object.username, user.username);
      assert.equal(seen[0]!.object._hashed_password, undefined);

      assert.equal((await app.put(`/1/users/${user.objectId}`, { nickname: 'n' }, as(user.sessionToken))).status, 200);
      assert.equal((await app.put(`/1/users/${user.objectId}`, { password: 'another' }, as(user.sessionToken))).status, 200);
      assert.equal((await app.put(`/1/classes/_User/${user.objectId}`, { level: 2 }, as(user.sessionToken))).status, 200);
      seen = observed('_User', user.objectId).slice(2);
      assert.deepEqual(seen.map((request) => [request.triggerName, request.user, request.master]), [
        ['beforeSave', user.objectId, false], ['afterSave', user.objectId, false],
        ['beforeSave', user.objectId, false], ['afterSave', user.objectId, false],
        ['beforeSave', user.objectId, false], ['afterSave', user.objectId, false],
      ]);
      assert.equal(seen[0]!.object.nickname, 'n');
      assert.equal(seen[0]!.original.nickname, undefined);
      assert.equal(seen[4]!.object.level, 2);

      // Sign-up, login and logout write sessions: the Session class has no triggers (spec 2.7).
      assert.equal((await app.get('/1/login', { query: { username: user.username, password: 'another' } })).status, 200);
      assert.equal((await app.post('/1/logout', {}, as(user.sessionToken))).status, 200);
      assert.deepEqual(observed('_Session'), []);

      assert.equal((await app.delete(`/1/users/${user.objectId}`, { key: 'master' })).status, 200);
      assert.deepEqual(observed('_User', user.objectId).slice(8).map(shape), [
        { triggerName: 'beforeDelete', user: null, master: true, installationId: null },
        { triggerName: 'afterDelete', user: null, master: true, installationId: null },
      ]);
    });

    it('internal writes: a failed login counts under the lockout as a write of the server itself (master, no user)', async () => {
      const user = await signUp(app);
      const before = observed('_User', user.objectId).length;
      assertError(await app.get('/1/login', { query: { username: user.username, password: 'wrong' } }), 404, 101, 'wrong password');
      const seen = observed('_User', user.objectId).slice(before);
      assert.deepEqual(seen.map(shape), [
        { triggerName: 'beforeSave', user: null, master: true, installationId: null },
        { triggerName: 'afterSave', user: null, master: true, installationId: null },
      ]);
      assert.equal(seen[0]!.original.objectId, user.objectId);
    });

    it('roles, installations and batch commands reach the observer; session updates do not', async () => {
      const role = await app.post('/1/roles', { name: unique('role'), ACL: { '*': { read: true } } }, { key: 'master' });
      assert.equal(role.status, 201, role.text);
      assert.deepEqual(observed('_Role', role.body.objectId).map((request) => [request.triggerName, request.master]), [['beforeSave', true], ['afterSave', true]]);

      const installation = await app.post('/1/installations', { deviceType: 'ios', installationId: INSTALLATION, deviceToken: unique('token') });
      assert.equal(installation.status, 201, installation.text);
      assert.deepEqual(observed('_Installation', installation.body.objectId).map((request) => request.triggerName), ['beforeSave', 'afterSave']);

      const cls = unique('Batched');
      const batch = await app.post('/1/batch', { requests: [{ method: 'POST', path: `/1/classes/${cls}`, body: { name: 'b' } }] });
      assert.equal(batch.status, 200, batch.text);
      assert.deepEqual(observed(cls).map((request) => [request.triggerName, request.object.name]), [['beforeSave', 'b'], ['afterSave', 'b']]);

      const user = await signUp(app);
      const me = await app.get('/1/sessions/me', as(user.sessionToken));
      assert.equal((await app.put(`/1/sessions/${me.body.objectId}`, { device: 'phone' }, as(user.sessionToken))).status, 200);
      assert.deepEqual(observed('_Session'), []);
    });
  });
}
