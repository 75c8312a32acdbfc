import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import { assertError, as, signUp, type TestUser } from '../helpers/users.ts';

/**
 * `{"ACL": {"__op": "Delete"}}`, what the Parse SDKs send for `unset("ACL")` and `clear()`,
 * removes the ACL as `"ACL": null` does: the object is public and has no ACL field. A role must
 * keep an ACL, so there it is refused (123) like `null`.
 */
const MASTER = { key: 'master' } as const;
const DELETE = { __op: 'Delete' };

eachBackend('ACL removed with the Delete operator', (target) => {
  let app: AppClient;
  let owner: TestUser;

  before(async () => {
    app = await newApp(target, { rateLimits: { authRequestsPerMinute: 0 } });
    owner = await signUp(app);
  });

  it('an update with ACL Delete makes a private object public, without an ACL field', async () => {
    const cls = unique('Private');
    const created = await app.post(`/1/classes/${cls}`, { text: 'x', ACL: { [owner.objectId]: { read: true, write: true } } }, as(owner.sessionToken));
    assert.equal(created.status, 201, created.text);
    const path = `/1/classes/${cls}/${created.body.objectId}`;
    assertError(await app.get(path), 404, 101);

    const updated = await app.put(path, { ACL: DELETE }, as(owner.sessionToken));
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(Object.keys(updated.body), ['updatedAt']);
    const read = await app.get(path);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(Object.keys(read.body).sort(), ['createdAt', 'objectId', 'text', 'updatedAt']);
    // Public for writing too.
    assert.equal((await app.put(path, { text: 'y' })).status, 200);
    assert.deepEqual((await app.get(`/1/classes/${cls}`, { query: { where: { text: 'y' } } })).body.results.length, 1);
  });

  it('a create with ACL Delete makes a public object', async () => {
    const cls = unique('Open');
    const created = await app.post(`/1/classes/${cls}`, { text: 'x', ACL: DELETE });
    assert.equal(created.status, 201, created.text);
    const read = await app.get(`/1/classes/${cls}/${created.body.objectId}`);
    assert.equal(read.status, 200, read.text);
    assert.equal('ACL' in read.body, false);
  });

  it('a caller that may not write the object cannot remove its ACL (101), and nothing changes', async () => {
    const cls = unique('Private');
    const acl = { '*': { read: true }, [owner.objectId]: { read: true, write: true } };
    const created = await app.post(`/1/classes/${cls}`, { ACL: acl }, as(owner.sessionToken));
    const path = `/1/classes/${cls}/${created.body.objectId}`;
    assertError(await app.put(path, { ACL: DELETE }), 404, 101);
    assert.deepEqual((await app.get(path, MASTER)).body.ACL, acl);
  });

  it('another operator on the ACL, or Delete with other keys, is still 123', async () => {
    const cls = unique('Bad');
    assertError(await app.post(`/1/classes/${cls}`, { ACL: { __op: 'Increment', amount: 1 } }), 400, 123);
    assertError(await app.post(`/1/classes/${cls}`, { ACL: { __op: 'Delete', '*': { read: true } } }), 400, 123);
  });

  it('a role refuses ACL Delete with 123 on create and update, and keeps its ACL', async () => {
    assertError(await app.post('/1/roles', { name: unique('Role'), ACL: DELETE }, MASTER), 400, 123);
    const created = await app.post('/1/roles', { name: unique('Role'), ACL: { '*': { read: true } } }, MASTER);
    assert.equal(created.status, 201, created.text);
    assertError(await app.put(`/1/roles/${created.body.objectId}`, { ACL: DELETE }, MASTER), 400, 123);
    assert.deepEqual((await app.get(`/1/roles/${created.body.objectId}`, MASTER)).body.ACL, { '*': { read: true } });
  });
});
