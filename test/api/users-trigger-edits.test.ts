import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { unique, type AppClient } from '../helpers/client.ts';
import { cloudServer } from '../helpers/cloud.ts';
import { as } from '../helpers/users.ts';

/**
 * Sign-up and user updates answer what the `Parse.User` beforeSave of
 * test/fixtures/cloud/parse-app/main.js set or removed, as `/1/classes` does for any class
 * (docs/cloud-code.md): the trigger sets `signupSource` on a sign-up, removes `inviteCode`, and
 * sets `nicknameLength` on an update that has a nickname.
 */

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`user answers carry a beforeSave's changes [${backend}]`, () => {
    const cloud = cloudServer(backend);
    let app: AppClient;

    before(async () => {
      app = await cloud().appWithCode('parse-app');
    });

    it('a password sign-up answers the fields the trigger set and removed, beside its own', async () => {
      for (const path of ['/1/users', '/1/classes/_User']) {
        const created = await app.post(path, { username: unique('edits'), password: 'pw', inviteCode: 'abc', nickname: 'Ann' });
        assert.equal(created.status, 201, `${path}: ${created.text}`);
        assert.deepEqual(Object.keys(created.body).sort(), ['createdAt', 'inviteCode', 'objectId', 'sessionToken', 'signupSource'], path);
        assert.equal(created.body.signupSource, 'cloud');
        assert.deepEqual(created.body.inviteCode, { __op: 'Delete' });
        assert.match(created.body.sessionToken, /^r:/);
        const me = await app.get('/1/users/me', as(created.body.sessionToken));
        assert.equal(me.status, 200, me.text);
        assert.equal(me.body.objectId, created.body.objectId);
        assert.equal(me.body.createdAt, created.body.createdAt);
        assert.equal(me.body.signupSource, 'cloud');
        assert.equal('inviteCode' in me.body, false);
        assert.equal(me.body.nickname, 'Ann');
      }
    });

    it('an authData sign-up answers them too', async () => {
      const created = await app.post('/1/users', { authData: { anonymous: { id: randomUUID() } }, inviteCode: 'abc' });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(Object.keys(created.body).sort(), ['createdAt', 'inviteCode', 'objectId', 'sessionToken', 'signupSource', 'username']);
      assert.equal(created.body.signupSource, 'cloud');
      assert.deepEqual(created.body.inviteCode, { __op: 'Delete' });
      const stored = await app.get(`/1/users/${created.body.objectId}`, { key: 'master' });
      assert.equal(stored.body.username, created.body.username);
      assert.equal('inviteCode' in stored.body, false);
    });

    it('a user update answers the fields the trigger set and removed, with its own updatedAt', async () => {
      const created = await app.post('/1/users', { username: unique('edits'), password: 'pw' });
      assert.equal(created.status, 201, created.text);
      const { objectId, sessionToken } = created.body;
      for (const [path, nickname] of [['/1/users', 'Bo'], ['/1/classes/_User', 'Carla']] as const) {
        const updated = await app.put(`${path}/${objectId}`, { nickname, inviteCode: 'x', visits: { __op: 'Increment', amount: 2 } }, as(sessionToken));
        assert.equal(updated.status, 200, `${path}: ${updated.text}`);
        assert.deepEqual(Object.keys(updated.body).sort(), ['inviteCode', 'nicknameLength', 'updatedAt', 'visits'], path);
        assert.equal(updated.body.nicknameLength, nickname.length);
        assert.deepEqual(updated.body.inviteCode, { __op: 'Delete' });
        const stored = await app.get(`/1/users/${objectId}`, { key: 'master' });
        assert.equal(updated.body.updatedAt, stored.body.updatedAt);
        assert.equal(updated.body.visits, stored.body.visits);
        assert.equal(stored.body.nicknameLength, nickname.length);
        assert.equal('inviteCode' in stored.body, false);
      }
      // An update the trigger leaves alone answers as before.
      const plain = await app.put(`/1/users/${objectId}`, { city: 'Oslo' }, as(sessionToken));
      assert.deepEqual(Object.keys(plain.body), ['updatedAt']);
    });
  });
}
