import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { http, newApp, sdkBody, type AppClient, type RequestOptions } from '../helpers/client.ts';
import { as, assertError, signUp } from '../helpers/users.ts';

/** Spec 2.9 and 4.10: the app's config, read with any key and changed with the master key. */

const MASTER = { key: 'master' } as const;

eachBackend('config', (target) => {
  let app: AppClient;

  before(async () => {
    app = await newApp(target, { rateLimits: { authRequestsPerMinute: 0 } });
  });

  async function params(options: RequestOptions = {}): Promise<Record<string, unknown>> {
    const response = await app.get('/1/config', options);
    assert.equal(response.status, 200, response.text);
    return response.body.params;
  }

  async function put(body: unknown): Promise<void> {
    const response = await app.put('/1/config', body, MASTER);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, { result: true });
  }

  it('answers {params: {}} before anything is set, to every key', async () => {
    const fresh = await newApp(target);
    for (const key of ['rest', 'client', 'windows'] as const) {
      const response = await fresh.get('/1/config', { key });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body, { params: {} });
    }
    assert.deepEqual((await fresh.get('/1/config', MASTER)).body, { params: {}, masterKeyOnly: {} });
  });

  it('lets only the master key change the config (403/119), and a refusal changes nothing', async () => {
    await put({ params: { guarded: 'before' } });
    const user = await signUp(app);
    for (const options of [{}, { key: 'client' }, as(user.sessionToken)] as RequestOptions[]) {
      assertError(await app.put('/1/config', { params: { guarded: 'after' } }, options), 403, 119);
    }
    assert.equal((await params()).guarded, 'before');
  });

  it('keeps values of every JSON and Parse type as they were sent', async () => {
    const fileName = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6_banner.png';
    const values = {
      text: 'Welcome back',
      number: 42.5,
      yes: true,
      nothing: null,
      list: [1, 'two', { three: 3 }],
      nested: { colors: ['red'], depth: { n: 1 } },
      launch: { __type: 'Date', iso: '2026-03-01T09:30:00.000Z' },
      banner: { __type: 'File', name: fileName, url: `${target.url}/files/${app.app.applicationId}/${fileName}` },
      office: { __type: 'GeoPoint', latitude: 40.7, longitude: -74 },
      featured: { __type: 'Pointer', className: 'Game', objectId: 'x1y2z3' },
      blob: { __type: 'Bytes', base64: 'aGVsbG8=' },
      files: [{ __type: 'File', name: fileName, url: `${target.url}/files/${app.app.applicationId}/${fileName}` }],
    };
    await put({ params: values });
    const read = await params();
    for (const [name, value] of Object.entries(values)) assert.deepEqual(read[name], value, name);
  });

  it('removes a parameter set to {"__op": "Delete"} and leaves the others alone', async () => {
    await put({ params: { keep: 1, drop: 2 } });
    await put({ params: { drop: { __op: 'Delete' }, added: 3 } });
    const read = await params();
    assert.equal('drop' in read, false);
    assert.deepEqual([read.keep, read.added], [1, 3]);
    // Removing what is not there is no error.
    await put({ params: { neverSet: { __op: 'Delete' } } });
  });

  it('hides parameters marked masterKeyOnly from every other key, and shows them again once unmarked', async () => {
    await put({ params: { secretKey: 'k-123', publicNote: 'hi' }, masterKeyOnly: { secretKey: true, publicNote: false } });
    const user = await signUp(app);
    for (const options of [{}, { key: 'client' }, as(user.sessionToken)] as RequestOptions[]) {
      const response = await app.get('/1/config', options);
      assert.equal(response.status, 200, response.text);
      assert.equal('secretKey' in response.body.params, false);
      assert.equal(response.body.params.publicNote, 'hi');
      assert.equal('masterKeyOnly' in response.body, false);
    }
    const master = await app.get('/1/config', MASTER);
    assert.equal(master.body.params.secretKey, 'k-123');
    assert.equal(master.body.masterKeyOnly.secretKey, true);
    assert.equal(master.body.masterKeyOnly.publicNote, false);

    // A parameter set again without its flag is visible to all, as in Parse.
    await put({ params: { secretKey: 'k-456' } });
    assert.equal((await params()).secretKey, 'k-456');
  });

  it('refuses malformed changes, and changes nothing then', async () => {
    await put({ params: { stable: 'yes' } });
    const cases: [string, unknown, number, number][] = [
      ['no params', { masterKeyOnly: {} }, 400, 107],
      ['params that are no object', { params: [1, 2] }, 400, 107],
      ['a flag that is no boolean', { params: { stable: 'no' }, masterKeyOnly: { stable: 'yes' } }, 400, 107],
      ['an operator other than Delete', { params: { stable: { __op: 'Increment', amount: 1 } } }, 400, 108],
      ['a Relation', { params: { stable: { __type: 'Relation', className: 'Game' } } }, 400, 111],
      ['an impossible Date', { params: { stable: { __type: 'Date', iso: '2026-02-30T00:00:00.000Z' } } }, 400, 111],
      ['a GeoPoint out of bounds', { params: { stable: { __type: 'GeoPoint', latitude: 91, longitude: 0 } } }, 400, 107],
      ['a name too long', { params: { ['n'.repeat(129)]: 1 } }, 400, 105],
      ['an empty name', { params: { '': 1 } }, 400, 105],
      ['a config larger than an object may be', { params: { stable: 'x'.repeat(200_000) } }, 413, 116],
    ];
    for (const [name, body, status, code] of cases) assertError(await app.put('/1/config', body, MASTER), status, code, name);
    assert.equal((await params()).stable, 'yes');
  });

  it('is read and written through the SDK body form, and through a batch', async () => {
    const sdk = (fields: Record<string, unknown>) =>
      http(`${target.url}/1/config`, 'POST', { raw: JSON.stringify(sdkBody(app.app, fields)), headers: { 'Content-Type': 'text/plain' } });
    const master = { _ApplicationId: app.app.applicationId, _MasterKey: app.app.masterKey };
    const saved = await http(`${target.url}/1/config`, 'POST', { body: { ...master, _method: 'PUT', params: { viaSdk: 'saved' } } });
    assert.equal(saved.status, 200, saved.text);
    assert.deepEqual(saved.body, { result: true });
    const read = await sdk({ _method: 'GET' });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.params.viaSdk, 'saved');
    assertError(await sdk({ _method: 'PUT', params: { viaSdk: 'javascript key' } }), 403, 119);

    const batch = await app.post('/1/batch', { requests: [{ method: 'PUT', path: '/1/config', body: { params: { viaBatch: 1 } } }] }, MASTER);
    assert.equal(batch.status, 200, batch.text);
    assert.deepEqual(batch.body, [{ success: { result: true } }]);
    assert.equal((await params()).viaBatch, 1);
  });

  it('removes a parameter and its flag as Parse Dashboard asks: Delete in params and in masterKeyOnly', async () => {
    await put({ params: { dashSecret: 's', dashNote: 'n' }, masterKeyOnly: { dashSecret: true } });
    await put({ params: { dashSecret: { __op: 'Delete' } }, masterKeyOnly: { dashSecret: { __op: 'Delete' } } });
    const read = (await app.get('/1/config', MASTER)).body;
    assert.equal(Object.hasOwn(read.params, 'dashSecret'), false);
    assert.equal(Object.hasOwn(read.masterKeyOnly, 'dashSecret'), false);
    assert.equal(read.params.dashNote, 'n');
    // Set again with a Delete flag: visible to every key.
    await put({ params: { dashSecret: 'again' }, masterKeyOnly: { dashSecret: { __op: 'Delete' } } });
    assert.equal((await params()).dashSecret, 'again');
    // Another operator, or Delete with more fields, is no flag.
    for (const flag of [{ __op: 'Increment', amount: 1 }, { __op: 'Delete', extra: 1 }]) {
      assertError(await app.put('/1/config', { params: { dashNote: 'changed' }, masterKeyOnly: { dashNote: flag } }, MASTER), 400, 107);
    }
    assert.equal((await params()).dashNote, 'n');
  });
});
