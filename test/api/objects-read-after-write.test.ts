import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import { sqliteApp } from '../helpers/app-database.ts';
import { eachBackend } from '../helpers/each-backend.ts';
import { targets } from '../helpers/targets.ts';
import { as, newUserApp, signUp } from '../helpers/users.ts';

/**
 * Every change shows in the next read by id: through the API, and on SQLite also one made to the
 * file by another connection, as another process or a tool would. A read path that keeps rows
 * (one was tried and measured: docs/benchmarks.md) must keep these passing.
 */

const MASTER = { key: 'master' } as const;

eachBackend('reads by id after a change', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newApp(target);
  });

  const read = async (className: string, objectId: string, options = {}) => {
    const response = await app.get(`/1/classes/${className}/${objectId}`, options);
    return { status: response.status, body: response.body, code: response.body.code };
  };

  it('show every write made through the API, each right after it', async () => {
    const className = unique('Kept');
    const created = await app.post(`/1/classes/${className}`, { n: 1 });
    assert.equal(created.status, 201, created.text);
    const id = created.body.objectId;
    for (let n = 2; n <= 4; n++) {
      assert.equal((await read(className, id)).body.n, n - 1);
      assert.equal((await app.put(`/1/classes/${className}/${id}`, { n: { __op: 'Increment', amount: 1 } })).status, 200);
      assert.equal((await read(className, id)).body.n, n);
    }
    assert.equal((await app.put(`/1/classes/${className}/${id}`, { ACL: {} })).status, 200);
    assert.deepEqual(await read(className, id).then(({ status, code }) => [status, code]), [404, 101], 'an ACL that shuts everyone out');
    assert.equal((await read(className, id, MASTER)).body.n, 4);
    assert.equal((await app.delete(`/1/classes/${className}/${id}`, MASTER)).status, 200);
    assert.deepEqual(await read(className, id, MASTER).then(({ status, code }) => [status, code]), [404, 101]);
  });

  it('show a batch of writes, and each caller only what it may read', async () => {
    const userApp = await newUserApp(target);
    const user = await signUp(userApp);
    const className = unique('KeptAcl');
    const created = await userApp.post(`/1/classes/${className}`, { n: 1, ACL: { [user.objectId]: { read: true, write: true } } }, as(user.sessionToken));
    assert.equal(created.status, 201, created.text);
    const id = created.body.objectId;
    const get = (options = {}) => userApp.get(`/1/classes/${className}/${id}`, options);
    assert.equal((await get(as(user.sessionToken))).body.n, 1);
    assert.equal((await get()).status, 404, 'kept for the user, still refused to anyone');
    const batch = await userApp.post('/1/batch', { requests: [{ method: 'PUT', path: `/1/classes/${className}/${id}`, body: { n: 2, ACL: { '*': { read: true } } } }] }, as(user.sessionToken));
    assert.equal(batch.status, 200, batch.text);
    assert.deepEqual(batch.body.map((item: { success?: unknown }) => Object.keys(item)), [['success']]);
    assert.equal((await get()).body.n, 2, 'public once the batch made it so');
  });
});

describe('reads by id on SQLite after another connection writes to the file', () => {
  const sqlite = targets().find((candidate) => candidate.backend === 'sqlite');
  let app: AppClient;
  before(async () => {
    assert.ok(sqlite, 'a SQLite server under test');
    app = await newApp(sqlite);
  });

  it('show the write', async () => {
    const className = unique('Outside');
    const created = await app.post(`/1/classes/${className}`, { n: 1 });
    assert.equal(created.status, 201, created.text);
    const id = created.body.objectId;
    const n = async () => (await app.get(`/1/classes/${className}/${id}`)).body.n;
    assert.equal(await n(), 1);
    assert.equal(await n(), 1);
    const db = sqliteApp(className, { writable: true });
    try {
      db.pragma('busy_timeout = 5000');
      const changed = db.prepare(`UPDATE "${className}" SET "data" = jsonb_set("data", '$.n', 2) WHERE "objectId" = ?`).run(id);
      assert.equal(changed.changes, 1);
    } finally {
      db.close();
    }
    assert.equal(await n(), 2);
    const deleted = sqliteApp(className, { writable: true });
    try {
      deleted.pragma('busy_timeout = 5000');
      deleted.prepare(`DELETE FROM "${className}" WHERE "objectId" = ?`).run(id);
    } finally {
      deleted.close();
    }
    const gone = await app.get(`/1/classes/${className}/${id}`);
    assert.deepEqual([gone.status, gone.body.code], [404, 101]);
  });
});
