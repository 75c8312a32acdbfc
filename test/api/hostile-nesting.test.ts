import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { http, newApp, unique, type AppClient, type Response } from '../helpers/client.ts';

/**
 * Values nested thousands of levels deep, wherever a request carries JSON (docs/api.md,
 * "Limits"): a body or a `where` parameter that nests objects and arrays more than 100 levels
 * is refused with 107 before any step reads it, whatever its declared type; a value within the bound that
 * an error message quotes is quoted cut short. Nothing is written, and the server keeps answering.
 */

const objects = (levels: number, leaf = '1') => '{"a":'.repeat(levels) + leaf + '}'.repeat(levels);
const arrays = (levels: number, leaf = '1') => '['.repeat(levels) + leaf + ']'.repeat(levels);
const UUID = '6a1f1c5e-2f4b-4c1d-9e8a-0b7c6d5e4f3a';
/** JSON is read whatever the declared type: both are refused alike. */
const TYPES = { json: 'application/json', other: 'application/x-basalt-other' } as const;

function assertError(response: Response, status: number, code: number, label: string): void {
  assert.equal(response.status, status, `${label}: ${response.text.slice(0, 300)}`);
  assert.deepEqual(Object.keys(response.body).sort(), ['code', 'error'], label);
  assert.equal(response.body.code, code, `${label}: ${response.text.slice(0, 300)}`);
}

eachBackend('values nested without end', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newApp(target);
  });

  interface Attack {
    readonly label: string;
    readonly method: string;
    readonly path: string;
    readonly raw: string;
    readonly key: 'master' | 'rest';
  }

  /** Bodies that hold a value `deep` where each endpoint reads or quotes one. */
  function attacks(cls: string, deep: (levels: number) => string, levels: number): Attack[] {
    const d = deep(levels);
    const list: [string, string, string, string][] = [
      ['installation channels', 'POST', '/1/installations', `{"deviceType":"ios","installationId":"${UUID}","channels":${d}}`],
      ['installation deviceType', 'POST', '/1/installations', `{"deviceType":${d},"installationId":"${UUID}"}`],
      ['installation timeZone', 'POST', '/1/installations', `{"deviceType":"ios","installationId":"${UUID}","timeZone":${d}}`],
      ['installationId', 'POST', '/1/installations', `{"deviceType":"ios","installationId":${d}}`],
      ['__op', 'POST', `/1/classes/${cls}`, `{"f":{"__op":${d}}}`],
      ['unknown __type', 'POST', `/1/classes/${cls}`, `{"f":{"__type":${d}}}`],
      ['unknown __type in an array', 'POST', `/1/classes/${cls}`, `{"f":[{"__type":${d}}]}`],
      ['schema className', 'POST', `/1/schemas/${cls}`, `{"className":${d}}`],
      ['schema fields', 'POST', `/1/schemas/${cls}`, `{"fields":{"x":${d}}}`],
      ['password reset email', 'POST', '/1/requestPasswordReset', `{"email":${d}}`],
      ['sign-up email', 'POST', '/1/users', `{"username":"${unique('u')}","password":"secret-password","email":${d}}`],
      ['role name', 'POST', '/1/roles', `{"name":${d},"ACL":{"*":{"read":true}}}`],
      ['SDK where', 'POST', `/1/classes/${cls}`, `{"_method":"GET","where":{"x":${d}}}`],
      ['batch body', 'POST', '/1/batch', `{"requests":[{"method":"POST","path":"/1/classes/${cls}","body":{"x":${d}}}]}`],
      ['config params', 'PUT', '/1/config', `{"params":{"p":${d}}}`],
      ['config __op', 'PUT', '/1/config', `{"params":{"p":{"__op":${d}}}}`],
      ['event dimensions', 'POST', '/1/events/Opened', `{"dimensions":{"a":${d}}}`],
    ];
    return list.map(([label, method, path, raw]) => ({ label, method, path, raw, key: /^(schema|config|role)/.test(label) ? 'master' : 'rest' }));
  }

  async function assertNothingWritten(cls: string): Promise<void> {
    assert.deepEqual((await app.get(`/1/classes/${cls}`, { key: 'master' })).body, { results: [] });
    assert.equal((await app.get(`/1/schemas/${cls}`, { key: 'master' })).body.code, 103);
    assert.deepEqual((await app.get('/1/installations', { key: 'master', query: { where: { installationId: UUID } } })).body, { results: [] });
    assert.deepEqual((await app.get('/1/config', { key: 'master' })).body.params, {});
    assert.deepEqual((await app.get('/1/roles', { key: 'master' })).body, { results: [] });
  }

  for (const [label, type] of Object.entries(TYPES)) {
    it(`refuses bodies nested 10,000 levels deep with 400/107 on every endpoint (${label} type)`, async () => {
      const cls = unique('Deep');
      for (const deep of [arrays, objects]) {
        for (const { label, method, path, raw, key } of attacks(cls, deep, 10_000)) {
          assertError(await app.request(method, path, { raw, key, headers: { 'Content-Type': type } }), 400, 107, `${label} (${deep.name})`);
        }
      }
      await assertNothingWritten(cls);
      assert.deepEqual((await http(`${target.url}/health`, 'GET')).body, { status: 'ok', database: target.backend });
    });
  }

  it('takes a body of 100 levels and refuses one of 101 (107), whatever the brackets and however long the strings in it', async () => {
    const cls = unique('Bound');
    // 100 levels: the body, "where", the array of "$or", 96 arrays, and the empty where in them.
    const within = `{"_method":"GET","where":{"$or":[${arrays(96, '{}')}]}}`;
    assertError(await app.request('POST', `/1/classes/${cls}`, { raw: within }), 400, 102, '100 levels reach the query parser');
    assertError(await app.request('POST', `/1/classes/${cls}`, { raw: `{"_method":"GET","where":{"$or":[${arrays(97, '{}')}]}}` }), 400, 107, '101 levels');
    const brackets = '[{'.repeat(300);
    const created = await app.post(`/1/classes/${cls}`, { brackets, quoted: `"${brackets}\\"` });
    assert.equal(created.status, 201, created.text);
    const read = await app.get(`/1/classes/${cls}/${created.body.objectId}`);
    assert.deepEqual([read.body.brackets, read.body.quoted], [brackets, `"${brackets}\\"`]);
  });

  it('refuses a where parameter nested more than 100 levels (107), and reads one of 100', async () => {
    const cls = unique('DeepWhere');
    assert.equal((await app.post(`/1/classes/${cls}`, { name: 'kept' })).status, 201);
    for (const where of [arrays(2_000), objects(500), `{"name":{"$in":${arrays(1_500)}}}`, `{"name":${objects(100)}}`]) {
      assertError(await app.get(`/1/classes/${cls}`, { query: { where } }), 400, 107, where.slice(0, 40));
    }
    // Within the bound, a nested value is compared like any other, and equals no stored one.
    for (const where of [`{"name":${objects(99)}}`, `{"name":{"$in":${arrays(98, '"kept"')}}}`, `{"other":${objects(99)}}`]) {
      const found = await app.get(`/1/classes/${cls}`, { query: { where } });
      assert.equal(found.status, 200, found.text);
      assert.deepEqual(found.body.results, []);
    }
  });

  it('quotes a nested value cut short where a message names it, and writes nothing', async () => {
    const cls = unique('Quoted');
    const expected: Record<string, [number, number]> = {
      'installation channels': [400, 112],
      'installation deviceType': [400, 133],
      'installation timeZone': [400, 142],
      installationId: [400, 132],
      __op: [400, 108],
      'unknown __type': [400, 111],
      'unknown __type in an array': [400, 111],
      'password reset email': [400, 125],
      'sign-up email': [400, 125],
      'role name': [400, 139],
      'config __op': [400, 108],
    };
    for (const { label, method, path, raw, key } of attacks(cls, arrays, 90)) {
      const codes = expected[label];
      if (!codes) continue;
      const response = await app.request(method, path, { raw, key });
      assertError(response, codes[0], codes[1], label);
      assert.ok(response.body.error.includes('[[[[…]]]]'), `${label}: ${response.body.error}`);
      assert.ok(response.body.error.length < 300, `${label}: ${response.body.error.length} characters`);
    }
    await assertNothingWritten(cls);
  });
});
