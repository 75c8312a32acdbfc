import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { ADMIN } from '../helpers/targets.ts';
import { http, newApp, sdkBody, unique, type AppClient, type Response } from '../helpers/client.ts';

/** Spec 4.1 batch rules and spec 8's limit of 50 commands. */

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function assertError(response: Response, status: number, code: number): void {
  assert.equal(response.status, status, `expected ${status}/${code}, got ${response.status} ${response.text}`);
  assert.deepEqual(Object.keys(response.body).sort(), ['code', 'error']);
  assert.equal(response.body.code, code);
}

/** A failed command, answered in place: `{error: {code, error}}` and nothing else. */
function assertCommandError(result: any, code: number, label: string): void {
  assert.deepEqual(Object.keys(result ?? {}), ['error'], `${label}: ${JSON.stringify(result)}`);
  assert.deepEqual(Object.keys(result.error).sort(), ['code', 'error'], label);
  assert.equal(result.error.code, code, `${label}: ${JSON.stringify(result)}`);
  assert.equal(typeof result.error.error, 'string');
}

eachBackend('batch', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newApp(target);
  });

  const names = async (cls: string): Promise<string[]> => {
    const listed = await app.get(`/1/classes/${cls}`, { key: 'master', query: { order: 'name', limit: 1000 } });
    assert.equal(listed.status, 200, listed.text);
    return listed.body.results.map((o: any) => o.name);
  };

  it('runs create, update and delete commands in the given order, each answered in place', async () => {
    const cls = unique('Batch');
    const { body: counter } = await app.post(`/1/classes/${cls}`, { name: 'counter', n: 0 });
    const path = `/1/classes/${cls}/${counter.objectId}`;
    const response = await app.post('/1/batch', {
      requests: [
        { method: 'PUT', path, body: { n: { __op: 'Increment', amount: 1 } } },
        { method: 'PUT', path, body: { n: { __op: 'Increment', amount: 10 } } },
        { method: 'DELETE', path },
        { method: 'PUT', path, body: { n: 5 } },
        { method: 'POST', path: `/1/classes/${cls}`, body: { name: 'created' } },
      ],
    });
    assert.equal(response.status, 200, response.text);
    assert.ok(Array.isArray(response.body));
    assert.equal(response.body.length, 5);
    const [first, second, deleted, updateAfterDelete, created] = response.body;
    assert.deepEqual(Object.keys(first.success).sort(), ['n', 'updatedAt']);
    assert.equal(first.success.n, 1);
    assert.equal(second.success.n, 11);
    assert.match(second.success.updatedAt, ISO);
    assert.deepEqual(deleted, { success: {} });
    assertCommandError(updateAfterDelete, 101, 'update of the deleted object');
    assert.deepEqual(Object.keys(created.success).sort(), ['createdAt', 'objectId']);
    const fetched = await app.get(`/1/classes/${cls}/${created.success.objectId}`);
    assert.equal(fetched.body.name, 'created');
    assert.deepEqual(await names(cls), ['created']);
  });

  it('keeps going after a failed command: successes and errors stay in their places', async () => {
    const cls = unique('Batch');
    const { body: kept } = await app.post(`/1/classes/${cls}`, { name: 'kept', n: 1 });
    const response = await app.post('/1/batch', {
      requests: [
        { method: 'POST', path: `/1/classes/${cls}`, body: { name: 'one' } },
        { method: 'POST', path: `/1/classes/${cls}`, body: { name: 'bad', 'bad-key': 1 } },
        { method: 'DELETE', path: `/1/classes/${cls}/missing0001` },
        { method: 'POST', path: '/1/classes/_Bad', body: { name: 'x' } },
        { method: 'PUT', path: `/1/classes/${cls}/${kept.objectId}`, body: { objectId: 'forged' } },
        { method: 'PUT', path: `/1/classes/${cls}/${kept.objectId}`, body: { n: 'not a number' } },
        { method: 'GET', path: `/1/classes/${cls}/${kept.objectId}` },
        { method: 'POST', path: `/1/classes/${cls}`, body: { name: 'two' } },
      ],
    });
    assert.equal(response.status, 200, response.text);
    const results = response.body;
    assert.equal(results.length, 8);
    assert.deepEqual(Object.keys(results[0].success).sort(), ['createdAt', 'objectId']);
    assertCommandError(results[1], 105, 'invalid field name');
    assertCommandError(results[2], 101, 'delete of a missing object');
    assertCommandError(results[3], 103, 'reserved class name');
    assertCommandError(results[4], 105, 'reserved field');
    assertCommandError(results[5], 111, 'type change');
    assert.equal(results[6].success.name, 'kept');
    assert.equal(results[6].success.n, 1);
    assert.deepEqual(Object.keys(results[7].success).sort(), ['createdAt', 'objectId']);
    assert.deepEqual(await names(cls), ['kept', 'one', 'two']);
  });

  it('runs 50 commands, and refuses 51 as a whole without writing anything', async () => {
    const cls = unique('Batch');
    const commands = (count: number) => Array.from({ length: count }, (_, i) => ({ method: 'POST', path: `/1/classes/${cls}`, body: { name: `n${String(i).padStart(2, '0')}` } }));
    const tooMany = await app.post('/1/batch', { requests: commands(51) });
    assertError(tooMany, 400, 107);
    assert.deepEqual(await names(cls), []);

    const fifty = await app.post('/1/batch', { requests: commands(50) });
    assert.equal(fifty.status, 200, fifty.text);
    assert.equal(fifty.body.length, 50);
    assert.ok(fifty.body.every((result: any) => typeof result.success?.objectId === 'string'));
    assert.equal((await names(cls)).length, 50);
  });

  it('refuses a malformed batch body with 107 before any command runs', async () => {
    const cls = unique('Batch');
    const valid = { method: 'POST', path: `/1/classes/${cls}`, body: { name: 'should not exist' } };
    const bodies: unknown[] = [
      {},
      { requests: {} },
      { requests: 'POST /1/classes/X' },
      { requests: null },
      { requests: [valid, { path: `/1/classes/${cls}`, body: {} }] },
      { requests: [valid, { method: 'POST', body: {} }] },
      { requests: [valid, { method: 7, path: `/1/classes/${cls}` }] },
      { requests: [valid, { method: 'POST', path: ['/1/classes/X'] }] },
      { requests: [valid, 5] },
      { requests: [valid, null] },
      [valid],
    ];
    for (const body of bodies) assertError(await app.post('/1/batch', body), 400, 107);
    assert.deepEqual(await names(cls), []);
  });

  it('answers each command with a path outside /1/ or no endpoint with its own error', async () => {
    const cls = unique('Batch');
    const accounts = await http(`${target.url}/1/apps`, 'GET', { headers: { 'X-Svc-Email': ADMIN.email, 'X-Svc-Password': ADMIN.password } });
    const response = await app.post('/1/batch', {
      requests: [
        { method: 'POST', path: `classes/${cls}`, body: { name: 'relative' } },
        { method: 'POST', path: `/2/classes/${cls}`, body: { name: 'version 2' } },
        { method: 'POST', path: `${target.url}/1/classes/${cls}`, body: { name: 'absolute' } },
        { method: 'GET', path: '/health' },
        { method: 'POST', path: '/1/apps', body: { appName: 'through batch' } },
        { method: 'POST', path: '/1/batch', body: { requests: [{ method: 'POST', path: `/1/classes/${cls}`, body: { name: 'nested' } }] } },
        { method: 'PATCH', path: `/1/classes/${cls}`, body: { name: 'patch' } },
        { method: 'POST', path: '/1/classes/%E0%A4%A', body: { name: 'bad escape' } },
        { method: 'DELETE', path: `/1/classes/${cls}/abc%00` },
        { method: 'post', path: `/1/classes/${cls}`, body: { name: 'lower-case method' } },
      ],
    });
    assert.equal(response.status, 200, response.text);
    const expected = [107, 107, 107, 107, 108, 108, 108, 108, 108];
    for (const [i, code] of expected.entries()) assertCommandError(response.body[i], code, `command ${i}`);
    assert.deepEqual(Object.keys(response.body[9].success).sort(), ['createdAt', 'objectId']);
    assert.deepEqual(await names(cls), ['lower-case method']);
    // the /1/apps command created no app
    const after = await http(`${target.url}/1/apps`, 'GET', { headers: { 'X-Svc-Email': ADMIN.email, 'X-Svc-Password': ADMIN.password } });
    assert.equal(after.body.results.filter((a: any) => a.appName === 'through batch').length, accounts.body.results.filter((a: any) => a.appName === 'through batch').length);
  });

  it('refuses a command body that is not a JSON object, and does not run that command', async () => {
    const cls = unique('Batch');
    const { body: target1 } = await app.post(`/1/classes/${cls}`, { name: 'target' });
    const path = `/1/classes/${cls}/${target1.objectId}`;
    const response = await app.post('/1/batch', {
      requests: [
        { method: 'POST', path: `/1/classes/${cls}`, body: [{ name: 'array' }] },
        { method: 'PUT', path, body: 'name=changed' },
        { method: 'DELETE', path, body: 5 },
        { method: 'POST', path: `/1/classes/${cls}`, body: null },
      ],
    });
    assert.equal(response.status, 200, response.text);
    assertCommandError(response.body[0], 107, 'array body');
    assertCommandError(response.body[1], 107, 'string body');
    assertCommandError(response.body[2], 107, 'number body');
    assert.deepEqual(Object.keys(response.body[3].success).sort(), ['createdAt', 'objectId']);
    const still = await app.get(path);
    assert.equal(still.status, 200);
    assert.equal(still.body.name, 'target');
  });

  it('reads with GET commands, query string included', async () => {
    const cls = unique('Batch');
    for (const [name, n] of [['a', 1], ['b', 2], ['c', 3]] as const) await app.post(`/1/classes/${cls}`, { name, n });
    const where = encodeURIComponent(JSON.stringify({ n: { $gte: 2 } }));
    const response = await app.post('/1/batch', {
      requests: [
        { method: 'GET', path: `/1/classes/${cls}?where=${where}&order=-n` },
        { method: 'GET', path: `/1/classes/${cls}`, body: { where: { n: 1 }, count: 1 } },
        { method: 'GET', path: `/1/classes/${cls}?limit=oops` },
      ],
    });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body[0].success.results.map((o: any) => o.name), ['c', 'b']);
    assert.equal(response.body[1].success.count, 1);
    assert.deepEqual(response.body[1].success.results.map((o: any) => o.name), ['a']);
    assertCommandError(response.body[2], 117, 'bad limit');
  });

  it('answers a too-large object in place with 116 and writes the others', async () => {
    const cls = unique('Batch');
    const response = await app.post('/1/batch', {
      requests: [
        { method: 'POST', path: `/1/classes/${cls}`, body: { name: 'small' } },
        { method: 'POST', path: `/1/classes/${cls}`, body: { name: 'large', blob: 'x'.repeat(140_000) } },
        { method: 'POST', path: `/1/classes/${cls}`, body: { name: 'small too' } },
      ],
    });
    assert.equal(response.status, 200, response.text);
    assertCommandError(response.body[1], 116, 'object over 128 KB');
    assert.deepEqual(await names(cls), ['small', 'small too']);
  });

  it('runs a batch sent in the SDK body form, and refuses it as a whole with a wrong key', async () => {
    const cls = unique('Batch');
    const requests = [
      { method: 'POST', path: `/1/classes/${cls}`, body: { name: 'sdk one' } },
      { method: 'POST', path: `/1/classes/${cls}`, body: { name: 'sdk two' } },
    ];
    const send = (body: Record<string, unknown>) => http(`${target.url}/1/batch`, 'POST', { raw: JSON.stringify(body), headers: { 'Content-Type': 'text/plain' } });

    assertError(await send({ _ApplicationId: app.app.applicationId, _JavaScriptKey: 'wrong', requests }), 401, 903);
    assertError(await send({ requests }), 401, 902);
    assert.deepEqual(await names(cls), []);

    const response = await send(sdkBody(app.app, { _ClientVersion: 'js5.3.0', requests }));
    assert.equal(response.status, 200, response.text);
    assert.ok(response.body.every((result: any) => typeof result.success?.objectId === 'string'));
    assert.deepEqual(await names(cls), ['sdk one', 'sdk two']);
  });

  it('needs app keys like any other endpoint, and the master key for master-only commands', async () => {
    const cls = unique('Batch');
    const requests = [{ method: 'POST', path: `/1/classes/${cls}`, body: { name: 'x' } }];
    assertError(await app.post('/1/batch', { requests }, { key: 'none' }), 401, 903);
    assertError(await http(`${target.url}/1/batch`, 'POST', { body: { requests } }), 401, 902);
    assert.deepEqual(await names(cls), []);

    const schemas = await app.post('/1/batch', { requests: [{ method: 'GET', path: '/1/schemas' }] });
    assert.equal(schemas.status, 200);
    assertCommandError(schemas.body[0], 119, 'schemas with the REST key');
    const asMaster = await app.post('/1/batch', { requests: [{ method: 'GET', path: '/1/schemas' }] }, { key: 'master' });
    assert.ok(Array.isArray(asMaster.body[0].success.results));
  });

  it('answers an empty list of commands with an empty list', async () => {
    const response = await app.post('/1/batch', { requests: [] });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, []);
  });
});
