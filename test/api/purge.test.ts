import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { postgresApp, sqliteApp } from '../helpers/app-database.ts';
import { eachBackend } from '../helpers/each-backend.ts';
import { http, sdkBody, unique, type AppClient, type Response } from '../helpers/client.ts';
import type { Target } from '../helpers/targets.ts';
import { as, assertError, meStatus, newUserApp, signUp } from '../helpers/users.ts';

/**
 * DELETE /1/purge/<className> (Parse's "delete all rows", what Parse Dashboard sends): every
 * object of the class goes, with the relation rows it owns; the schema stays, so the class can
 * then be dropped with DELETE /1/schemas.
 */

const MASTER = { key: 'master' } as const;

/** The relation rows owned by objects of `owningClass`, read from the app's database. */
async function joinRows(target: Target, markerClass: string, owningClass: string): Promise<number> {
  if (target.backend === 'postgres') {
    const { client, schema } = await postgresApp(markerClass);
    try {
      const rows = await client.query(`SELECT count(*)::int AS n FROM "${schema}"."_Join" WHERE "owningClass" = $1`, [owningClass]);
      return Number(rows.rows[0].n);
    } finally {
      await client.end();
    }
  }
  const db = sqliteApp(markerClass);
  try {
    return Number((db.prepare(`SELECT count(*) AS n FROM "_Join" WHERE "owningClass" = ?`).get(owningClass) as { n: number }).n);
  } finally {
    db.close();
  }
}

function assertEmptied(response: Response): void {
  assert.equal(response.status, 200, response.text);
  assert.deepEqual(response.body, {});
}

eachBackend('purge', (target) => {
  let app: AppClient;

  before(async () => {
    app = await newUserApp(target);
  });

  async function createMany(className: string, count: number, fields: (i: number) => Record<string, unknown> = (i) => ({ n: i })): Promise<string[]> {
    const ids: string[] = [];
    for (let start = 0; start < count; start += 50) {
      const requests = Array.from({ length: Math.min(50, count - start) }, (_, i) => ({ method: 'POST', path: `/1/classes/${className}`, body: fields(start + i) }));
      const response = await app.post('/1/batch', { requests }, MASTER);
      assert.equal(response.status, 200, response.text);
      for (const item of response.body) ids.push(item.success.objectId);
    }
    return ids;
  }

  async function count(className: string): Promise<number> {
    const response = await app.get(`/1/classes/${className}`, { ...MASTER, query: { count: 1, limit: 0 } });
    assert.equal(response.status, 200, response.text);
    return response.body.count;
  }

  it('deletes every object of a class and the relation rows they own, keeps the schema, and lets the class be dropped', async () => {
    const item = unique('Item');
    const owner = unique('Owner');
    const items = await createMany(item, 3);
    const pointers = items.map((objectId) => ({ __type: 'Pointer', className: item, objectId }));
    await createMany(owner, 120, (i) => ({ n: i, members: { __op: 'AddRelation', objects: pointers } }));
    // A class relating to the purged one keeps its own relation rows.
    const other = unique('Other');
    const kept = await app.post(`/1/classes/${other}`, { links: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: owner, objectId: (await app.get(`/1/classes/${owner}`, { ...MASTER, query: { limit: 1 } })).body.results[0].objectId }] } }, MASTER);
    assert.equal(kept.status, 201, kept.text);
    const schemaBefore = (await app.get(`/1/schemas/${owner}`, MASTER)).body;
    assert.equal(await joinRows(target, owner, owner), 360);

    assertError(await app.delete(`/1/schemas/${owner}`, MASTER), 400, 255, 'a class with objects');
    assertEmptied(await app.delete(`/1/purge/${owner}`, MASTER));

    assert.equal(await count(owner), 0);
    assert.deepEqual((await app.get(`/1/classes/${owner}`, MASTER)).body, { results: [] });
    assert.deepEqual((await app.get(`/1/schemas/${owner}`, MASTER)).body, schemaBefore);
    assert.equal(await joinRows(target, owner, owner), 0);
    assert.equal(await joinRows(target, owner, other), 1);
    assert.equal(await count(item), 3);

    // New objects go in as before, and an emptied class can be dropped.
    const again = await app.post(`/1/classes/${owner}`, { n: 1 });
    assert.equal(again.status, 201, again.text);
    assertEmptied(await app.delete(`/1/purge/${owner}`, MASTER));
    assertEmptied(await app.delete(`/1/schemas/${owner}`, MASTER));
    assertError(await app.get(`/1/schemas/${owner}`, MASTER), 400, 103);
  });

  it('answers {} for an empty class and for a class that does not exist, creating nothing', async () => {
    const empty = unique('Empty');
    assert.equal((await app.post('/1/schemas', { className: empty }, MASTER)).status, 201);
    assertEmptied(await app.delete(`/1/purge/${empty}`, MASTER));
    const missing = unique('Missing');
    assertEmptied(await app.delete(`/1/purge/${missing}`, MASTER));
    assertError(await app.get(`/1/schemas/${missing}`, MASTER), 400, 103);
  });

  it('refuses other keys (403/119) and deletes nothing', async () => {
    const className = unique('Guarded');
    await createMany(className, 2);
    const user = await signUp(app);
    for (const options of [{}, { key: 'client' }, as(user.sessionToken)] as const) assertError(await app.delete(`/1/purge/${className}`, options), 403, 119);
    assertError(await http(`${target.url}/1/purge/${className}`, 'POST', { body: sdkBody(app.app, { _method: 'DELETE' }) }), 403, 119);
    assert.equal(await count(className), 2);
  });

  it('refuses class names that name no class (400/103)', async () => {
    for (const name of ['_Nothing', '1abc', 'a-b']) assertError(await app.delete(`/1/purge/${name}`, MASTER), 400, 103, name);
  });

  it('runs in the SDK body form and in a batch', async () => {
    const className = unique('Sdk');
    await createMany(className, 2);
    assertEmptied(await http(`${target.url}/1/purge/${className}`, 'POST', { body: sdkBody(app.app, { _method: 'DELETE', _MasterKey: app.app.masterKey }) }));
    assert.equal(await count(className), 0);
    await createMany(className, 2);
    const batch = await app.post('/1/batch', { requests: [{ method: 'DELETE', path: `/1/purge/${className}` }] }, MASTER);
    assert.equal(batch.status, 200, batch.text);
    assert.deepEqual(batch.body, [{ success: {} }]);
    assert.equal(await count(className), 0);
  });

  it('purging _User removes every user and ends every session, keeping the class', async () => {
    const users = await newUserApp(target);
    const first = await signUp(users);
    const second = await signUp(users);
    assert.equal(await meStatus(users, first.sessionToken), 200);
    assertEmptied(await users.delete('/1/purge/_User', MASTER));
    const listed = await users.get('/1/users', MASTER);
    assert.deepEqual(listed.body, { results: [] });
    const sessions = await users.get('/1/sessions', MASTER);
    assert.deepEqual(sessions.body, { results: [] });
    for (const user of [first, second]) assertError(await users.get('/1/users/me', as(user.sessionToken)), 400, 209);
    assert.equal((await users.get('/1/schemas/_User', MASTER)).status, 200);
    // The names are free again.
    const reused = await users.post('/1/users', { username: first.username, password: 'pw' });
    assert.equal(reused.status, 201, reused.text);
  });

  it('purging _Session logs every user out', async () => {
    const users = await newUserApp(target);
    const user = await signUp(users);
    assert.equal(await meStatus(users, user.sessionToken), 200);
    assertEmptied(await users.delete('/1/purge/_Session', MASTER));
    assertError(await users.get('/1/users/me', as(user.sessionToken)), 400, 209);
    assert.equal((await users.get('/1/users', MASTER)).body.results.length, 1);
  });

  it('purging _Role takes away what the roles granted, at once', async () => {
    const roles = await newUserApp(target);
    const user = await signUp(roles);
    const role = await roles.post('/1/roles', { name: unique('staff'), ACL: { '*': { read: true } }, users: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: '_User', objectId: user.objectId }] } }, MASTER);
    assert.equal(role.status, 201, role.text);
    const name = (await roles.get(`/1/roles/${role.body.objectId}`, MASTER)).body.name;
    const className = unique('Secret');
    const secret = await roles.post(`/1/classes/${className}`, { ACL: { [`role:${name}`]: { read: true } } }, MASTER);
    assert.equal((await roles.get(`/1/classes/${className}/${secret.body.objectId}`, as(user.sessionToken))).status, 200);
    assertEmptied(await roles.delete('/1/purge/_Role', MASTER));
    assert.deepEqual((await roles.get('/1/roles', MASTER)).body, { results: [] });
    assertError(await roles.get(`/1/classes/${className}/${secret.body.objectId}`, as(user.sessionToken)), 404, 101);
    assert.equal(await joinRows(target, className, '_Role'), 0);
  });
});
