import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { ADMIN } from '../helpers/targets.ts';
import { http, newApp, sdkBody, unique, type AppClient, type Response } from '../helpers/client.ts';

/**
 * Hostile and malformed input on every endpoint: each is refused with its code and writes
 * nothing, or is stored verbatim; the data beside it stays intact and the server keeps answering.
 */

function assertError(response: Response, status: number, code: number, label = ''): void {
  assert.equal(response.status, status, `${label} expected ${status}/${code}, got ${response.status} ${response.text.slice(0, 300)}`);
  assert.deepEqual(Object.keys(response.body).sort(), ['code', 'error'], label);
  assert.equal(response.body.code, code, `${label} ${response.text.slice(0, 300)}`);
}

const ACCOUNT = { 'X-Svc-Email': ADMIN.email, 'X-Svc-Password': ADMIN.password };
const nested = (levels: number, leaf: string) => '{"a":'.repeat(levels) + leaf + '}'.repeat(levels);
const nestedArray = (levels: number) => '['.repeat(levels) + '1' + ']'.repeat(levels);

eachBackend('bad input', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newApp(target);
  });

  interface Victim {
    readonly cls: string;
    readonly objectPath: string;
    /** Asserts the class holds exactly what it held when seeded. */
    intact(): Promise<void>;
  }

  /** A class of three objects for one test to attack; each test has its own. */
  async function seed(): Promise<Victim> {
    const cls = unique('Victim');
    for (const name of ['alpha', 'beta', 'gamma']) assert.equal((await app.post(`/1/classes/${cls}`, { name, score: name.length, tags: [name] })).status, 201);
    const contents = async () => (await app.get(`/1/classes/${cls}`, { key: 'master', query: { order: 'name' } })).body;
    const snapshot = await contents();
    const alpha = snapshot.results.find((o: any) => o.name === 'alpha');
    return { cls, objectPath: `/1/classes/${cls}/${alpha.objectId}`, intact: async () => assert.deepEqual(await contents(), snapshot) };
  }

  /** Raw bodies against every endpoint that takes one; `check` proves nothing was written. */
  async function everyEndpoint(victim: Victim, raw: string, status: number, code: number): Promise<void> {
    const { cls, objectPath } = victim;
    const fresh = unique('Fresh');
    const headers = { 'Content-Type': 'application/json' };
    const cases: [string, Promise<Response>][] = [
      ['create', app.request('POST', `/1/classes/${fresh}`, { raw, headers })],
      ['update', app.request('PUT', objectPath, { raw, headers })],
      ['delete', app.request('DELETE', objectPath, { raw, headers })],
      ['batch', app.request('POST', '/1/batch', { raw, headers })],
      ['schema create', app.request('POST', `/1/schemas/${fresh}`, { raw, headers, key: 'master' })],
      ['schema update', app.request('PUT', `/1/schemas/${cls}`, { raw, headers, key: 'master' })],
      ['sdk form', http(`${target.url}/1/classes/${fresh}`, 'POST', { raw, headers: { 'Content-Type': 'text/plain' } })],
      ['apps', http(`${target.url}/1/apps`, 'POST', { raw, headers: { ...headers, ...ACCOUNT } })],
    ];
    for (const [label, response] of cases) assertError(await response, status, code, label);
    assert.deepEqual((await app.get(`/1/classes/${fresh}`, { key: 'master' })).body, { results: [] });
    assertError(await app.get(`/1/schemas/${fresh}`, { key: 'master' }), 400, 103, 'schema of the fresh class');
    await victim.intact();
  }

  it('refuses malformed JSON with 400/107 on every endpoint and writes nothing', async () => {
    const victim = await seed();
    for (const raw of ['{"name":"x",', '{name:"x"}', "{'name':'x'}", '{"name":"x"}}', 'nul', '{"a":1}{"b":2}', '\u0000', '{"a":NaN}', '{"a":01}']) {
      await everyEndpoint(victim, raw, 400, 107);
    }
  });

  it('refuses JSON that is not an object with 400/107 on every endpoint', async () => {
    const victim = await seed();
    for (const raw of ['[{"name":"x"}]', '42', '"name"', 'true', 'null']) await everyEndpoint(victim, raw, 400, 107);
  });

  it('refuses a body over 1 MB with 413/116 on every endpoint', async () => {
    const victim = await seed();
    await everyEndpoint(victim, JSON.stringify({ name: 'big', blob: 'x'.repeat(1_100_000) }), 413, 116);
    await everyEndpoint(victim, JSON.stringify({ requests: [{ method: 'POST', path: '/1/classes/X', body: { blob: 'x'.repeat(1_100_000) } }] }), 413, 116);
  });

  it('refuses a "__proto__" key anywhere in a body with 107, and keeps "constructor" and "toString" as fields', async () => {
    const victim = await seed();
    await everyEndpoint(victim, '{"__proto__":{"name":"x"}}', 400, 107);
    await everyEndpoint(victim, '{"name":"x","nested":{"__proto__":{"admin":true}}}', 400, 107);
    await everyEndpoint(victim, '{"name":"x","list":[{"\\u005f_proto__":1}]}', 400, 107);

    const fresh = unique('Names');
    const created = await app.post(`/1/classes/${fresh}`, { constructor: 1, toString: 'two', valueOf: { three: 3 }, hasOwnProperty: true });
    assert.equal(created.status, 201, created.text);
    const fetched = await app.get(`/1/classes/${fresh}/${created.body.objectId}`);
    assert.deepEqual([fetched.body.constructor, fetched.body.toString, fetched.body.valueOf, fetched.body.hasOwnProperty], [1, 'two', { three: 3 }, true]);
    const found = await app.get(`/1/classes/${fresh}`, { query: { where: { constructor: 1, toString: 'two' } } });
    assert.deepEqual(found.body.results.map((o: any) => o.objectId), [created.body.objectId]);
    const unknownField = await app.get(`/1/classes/${fresh}`, { query: { where: { isPrototypeOf: { $exists: true } } } });
    assert.deepEqual(unknownField.body, { results: [] });
    // An object without these fields gets them by operators, as any other field
    const opsClass = unique('Names');
    const { body: bare } = await app.post(`/1/classes/${opsClass}`, { other: 1 });
    const ops = await app.put(`/1/classes/${opsClass}/${bare.objectId}`, { constructor: { __op: 'Increment', amount: 2 }, toString: { __op: 'Add', objects: ['a'] } });
    assert.equal(ops.status, 200, ops.text);
    assert.deepEqual([ops.body.constructor, ops.body.toString], [2, ['a']]);
  });

  it('refuses an object over 128 KB encoded with 413/116, counting bytes, and keeps the old value', async () => {
    const fresh = unique('Large');
    for (const body of [{ blob: 'x'.repeat(140_000) }, { blob: '€'.repeat(50_000) }, { list: Array.from({ length: 30_000 }, (_, i) => i) }]) {
      assertError(await app.post(`/1/classes/${fresh}`, body), 413, 116, 'create');
    }
    assert.deepEqual((await app.get(`/1/classes/${fresh}`, { key: 'master' })).body, { results: [] });
    const { body: created } = await app.post(`/1/classes/${fresh}`, { blob: 'small' });
    const path = `/1/classes/${fresh}/${created.objectId}`;
    assertError(await app.put(path, { blob: 'y'.repeat(140_000) }), 413, 116, 'update');
    assertError(await app.put(path, { more: 'y'.repeat(70_000), evenMore: 'z'.repeat(70_000) }), 413, 116, 'update by two fields');
    assert.equal((await app.get(path)).body.blob, 'small');
  });

  it('stores very long strings within the limits and reads them back unchanged', async () => {
    const fresh = unique('Long');
    const values = { ascii: 'a'.repeat(60_000), multi: '€😀'.repeat(8_000) };
    const created = await app.post(`/1/classes/${fresh}`, values);
    assert.equal(created.status, 201, created.text.slice(0, 200));
    const fetched = await app.get(`/1/classes/${fresh}/${created.body.objectId}`);
    assert.equal(fetched.body.ascii, values.ascii);
    assert.equal(fetched.body.multi, values.multi);
    // A query this long exceeds what fits in a URL; the SDK body form carries it.
    const found = await app.post(`/1/classes/${fresh}`, sdkBody(app.app, { _method: 'GET', where: { multi: values.multi }, keys: 'ascii' }));
    assert.deepEqual(found.body.results.map((o: any) => [o.objectId, o.ascii === values.ascii, o.multi]), [[created.body.objectId, true, undefined]]);
  });

  it('refuses wrong types for where, limit, skip, order and keys (URL and body form)', async () => {
    const { cls } = await seed();
    const url = (query: Record<string, string>) => app.get(`/1/classes/${cls}`, { query });
    const body = (fields: Record<string, unknown>) => http(`${target.url}/1/classes/${cls}`, 'POST', { raw: JSON.stringify(sdkBody(app.app, { _method: 'GET', ...fields })), headers: { 'Content-Type': 'text/plain' } });
    const cases: [Promise<Response>, number][] = [
      [url({ where: '[1]' }), 102], [url({ where: '5' }), 102], [url({ where: '"name"' }), 102], [url({ where: 'true' }), 102],
      [url({ where: '{"name":' }), 107], [url({ where: "{'name':'alpha'}" }), 107], [url({ where: 'name=alpha' }), 107],
      [url({ limit: 'ten' }), 117], [url({ limit: '-1' }), 117], [url({ limit: '1e3' }), 117], [url({ limit: '99999999999999999999' }), 117],
      [url({ skip: 'x' }), 118], [url({ skip: '-1' }), 118], [url({ skip: '0x10' }), 118],
      [body({ where: 5 }), 102], [body({ where: ['name'] }), 102], [body({ where: true }), 102],
      [body({ limit: 'x' }), 117], [body({ limit: 1.5 }), 117], [body({ limit: true }), 117], [body({ limit: {} }), 117], [body({ limit: [1] }), 117], [body({ limit: 1e20 }), 117],
      [body({ skip: 'x' }), 118], [body({ skip: -1 }), 118], [body({ skip: 2.5 }), 118], [body({ skip: {} }), 118], [body({ skip: 1e20 }), 118],
      [body({ order: 5 }), 102], [body({ order: ['name'] }), 102], [body({ order: { name: 1 } }), 102],
      [body({ keys: 5 }), 102], [body({ keys: ['name'] }), 102], [body({ keys: { name: 1 } }), 102],
    ];
    for (const [i, [response, code]] of cases.entries()) assertError(await response, 400, code, `case ${i}`);
    // repeated URL parameters arrive as lists, which are refused too
    const repeated = await http(`${target.url}/1/classes/${cls}?limit=1&limit=2`, 'GET', { headers: { 'X-Svc-Application-Id': app.app.applicationId, 'X-Svc-REST-API-Key': app.app.restKey } });
    assertError(repeated, 400, 117);
    const huge = await body({ skip: Number.MAX_SAFE_INTEGER });
    assert.deepEqual(huge.body, { results: [] });
  });

  it('refuses unknown and malformed query operators with 102', async () => {
    const { cls, intact } = await seed();
    const wheres: object[] = [
      { name: { $bogus: 1 } }, { $bogus: [] }, { $where: 'this.name == "alpha"' }, { name: { $lt: 'b', extra: 1 } },
      { score: { $in: 5 } }, { score: { $nin: 'x' } }, { tags: { $all: 'alpha' } }, { name: { $exists: 'yes' } },
      { score: { $gt: {} } }, { score: { $gt: [1] } }, { score: { $gt: null } }, { $or: [] }, { $or: {} }, { $and: [5] },
      { name: { constructor: 1, $eq: 'alpha' } }, { name: { $options: 'i' } },
    ];
    for (const where of wheres) assertError(await app.get(`/1/classes/${cls}`, { query: { where } }), 400, 102, JSON.stringify(where));
    await intact();
  });

  it('refuses injection attempts in class names with 103 and leaves the class intact', async () => {
    const { cls, intact } = await seed();
    const attempts = [
      `${cls}"; DROP TABLE "${cls}"; --`, `${cls}'; DROP TABLE ${cls}; --`, `${cls}"`, `${cls}\\`, `${cls} OR 1=1`,
      `${cls}--`, `${cls};`, 'Ünïcödé', '日本語', '1Leading', '_Private', 'A'.repeat(61), `${cls}.name`, '%',
    ];
    for (const name of attempts) {
      const path = `/1/classes/${encodeURIComponent(name)}`;
      assertError(await app.post(path, { name: 'evil' }), 400, 103, `create ${JSON.stringify(name)}`);
      assertError(await app.get(path), 400, 103, `list ${JSON.stringify(name)}`);
      assertError(await app.put(`${path}/abc`, { name: 'evil' }), 400, 103, `update ${JSON.stringify(name)}`);
      assertError(await app.delete(`${path}/abc`), 400, 103, `delete ${JSON.stringify(name)}`);
      assertError(await app.post(path, { name: 'evil' }, { key: 'master' }), 400, 103, `create as master ${JSON.stringify(name)}`);
    }
    const batch = await app.post('/1/batch', { requests: attempts.map((name) => ({ method: 'POST', path: `/1/classes/${encodeURIComponent(name)}`, body: { name: 'evil' } })) });
    assert.deepEqual(batch.body.map((result: any) => result.error?.code), attempts.map(() => 103));
    // A NUL in the path names no endpoint at all (PostgreSQL could not compare it with a name).
    for (const path of [`/1/classes/${cls}%00`, `/1/classes/${cls}%00/abc`]) {
      for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
        const response = await app.request(method, path, method === 'POST' || method === 'PUT' ? { body: { name: 'evil' } } : {});
        if (response.status !== 404 || response.body.code !== 108) assert.fail(`${method} ${path}: ${response.status} ${response.text}`);
      }
    }
    const pointer = await app.post(`/1/classes/${unique('Ptr')}`, { ref: { __type: 'Pointer', className: `${cls}"; DROP TABLE "${cls}`, objectId: 'x' } });
    assertError(pointer, 400, 106, 'pointer class');
    assert.equal((await app.post(`/1/classes/${'A'.repeat(60)}`, { name: 'longest name' })).status, 201);
    await intact();
  });

  it('refuses injection attempts in field names, where keys and order keys with 105', async () => {
    const { cls, objectPath, intact } = await seed();
    const fields = [
      `name"; DROP TABLE "${cls}"; --`, "name'; DROP TABLE x; --", 'name"', 'name\\', "name')", 'na me', 'name-1', 'ünï',
      'score) OR 1=1 --', '$where', 'a..b', '', '_private', '1st', 'x'.repeat(129), 'name\u2028',
    ];
    for (const field of fields) {
      assertError(await app.post(`/1/classes/${cls}`, { [field]: 1 }), 400, 105, `create ${JSON.stringify(field)}`);
      assertError(await app.put(objectPath, { [field]: 1 }), 400, 105, `update ${JSON.stringify(field)}`);
      // Names of letters, digits, "_" and "." are well-formed query keys (of fields the class lacks).
      if (field !== '' && !field.startsWith('$') && !/^[A-Za-z0-9_.]+$/.test(field)) {
        assertError(await app.get(`/1/classes/${cls}`, { query: { where: { [field]: 1 } } }), 400, 105, `where ${JSON.stringify(field)}`);
      }
      // Sort keys are trimmed, so only names with something inside them are refused.
      if (field.trim() !== '' && !/^[A-Za-z0-9_.]+$/.test(field.trim())) {
        assertError(await app.get(`/1/classes/${cls}`, { query: { order: `-${field}` } }), 400, 105, `order ${JSON.stringify(field)}`);
      }
    }
    assertError(await app.get(`/1/classes/${cls}`, { query: { where: { 'tags.x"y': 1 } } }), 400, 105, 'sub-key');
    assertError(await app.get(`/1/classes/${cls}`, { query: { order: 'name,score;DELETE' } }), 400, 105, 'order list');
    assert.equal((await app.post(`/1/classes/${unique('Wide')}`, { ['x'.repeat(128)]: 1 })).status, 201);
    assertError(await app.get(`/1/classes/${cls}`, { query: { keys: `name,score'); DROP TABLE x; --`, order: 'name' } }), 400, 105, 'keys');
    assertError(await app.get(`/1/classes/${cls}`, { query: { include: `name,score'); DROP TABLE x; --` } }), 400, 105, 'include');
    const control = await app.get(`/1/classes/${cls}`, { query: { keys: 'name', order: 'name' } });
    assert.deepEqual(control.body.results.map((o: any) => Object.keys(o).sort()), Array(3).fill(['createdAt', 'name', 'objectId', 'updatedAt']));
    assert.deepEqual(control.body.results.map((o: any) => o.name), ['alpha', 'beta', 'gamma']);
    await intact();
  });

  it('stores hostile values verbatim, finds them by equality, and leaves the other objects intact', async () => {
    const { cls, intact } = await seed();
    const values = [
      `'; DROP TABLE "${cls}"; --`, `" OR "1"="1`, '\\', '\\\\"\'', '$1', '?', '%_%', '{"__type":"Date"}', '😀 ✓ العربية ‮ e\u0301',
      '\u2028\u2029', '\u0001\u001f', 'json_extract("data", \'$.name\')', '::jsonb', '/* */',
    ];
    for (const value of values) {
      const created = await app.post(`/1/classes/${cls}`, { name: value, tags: [value], nested: { value } });
      assert.equal(created.status, 201, `${JSON.stringify(value)}: ${created.text}`);
      const path = `/1/classes/${cls}/${created.body.objectId}`;
      const fetched = await app.get(path);
      assert.equal(fetched.body.name, value);
      assert.deepEqual(fetched.body.tags, [value]);
      assert.deepEqual(fetched.body.nested, { value });
      for (const where of [{ name: value }, { tags: value }, { nested: { value } }, { name: { $in: [value] } }]) {
        const found = await app.get(`/1/classes/${cls}`, { query: { where } });
        assert.deepEqual(found.body.results.map((o: any) => o.objectId), [created.body.objectId], `${JSON.stringify(where)}`);
      }
      assert.equal((await app.delete(path)).status, 200);
    }
    await intact();
  });

  it('refuses NUL characters and unpaired surrogates on both backends, in bodies (107) and queries (102)', async () => {
    const victim = await seed();
    const { cls, intact } = victim;
    await everyEndpoint(victim, '{"name":"a\\u0000b"}', 400, 107);
    await everyEndpoint(victim, '{"name":"x","nested":{"k\\u0000":1}}', 400, 107);
    assertError(await app.get(`/1/classes/${cls}`, { query: { where: { name: 'alpha\u0000' } } }), 400, 102);
    assertError(await app.get(`/1/classes/${cls}`, { query: { where: { tags: { $in: ['\u0000'] } } } }), 400, 102);
    assertError(await app.get(`/1/classes/${cls}`, { query: { where: { name: { $gt: '\u0000' } } } }), 400, 102);
    // Unpaired surrogates cannot be stored either (PostgreSQL refuses them as text and jsonb).
    await everyEndpoint(victim, '{"name":"a\\ud800b"}', 400, 107);
    assertError(await app.get(`/1/classes/${cls}`, { query: { where: { name: 'a\ud800' } } }), 400, 102);
    assertError(await app.get(`/1/classes/${cls}`, { query: { where: { tags: { obj: '\udc00' } } } }), 400, 102);
    const paired = await app.post(`/1/classes/${cls}`, { name: '\ud83d\ude00' });
    assert.equal((await app.get(`/1/classes/${cls}/${paired.body.objectId}`)).body.name, '😀');
    assert.equal((await app.delete(`/1/classes/${cls}/${paired.body.objectId}`)).status, 200);
    await intact();
  });

  it('keeps huge and tiny numbers, and refuses numbers that overflow', async () => {
    const fresh = unique('Numbers');
    const numbers = [Number.MAX_VALUE, -Number.MAX_VALUE, 1e308, Number.MIN_VALUE, 9007199254740991, -9007199254740991, 0.1 + 0.2, 123456789.123456789];
    const ids: string[] = [];
    for (const n of numbers) {
      const created = await app.post(`/1/classes/${fresh}`, { n, list: [n], obj: { n } });
      assert.equal(created.status, 201, created.text);
      ids.push(created.body.objectId);
      const fetched = await app.get(`/1/classes/${fresh}/${created.body.objectId}`);
      assert.deepEqual([fetched.body.n, fetched.body.list, fetched.body.obj], [n, [n], { n }]);
    }
    const big = await app.get(`/1/classes/${fresh}`, { query: { where: { n: { $gt: 1e307 } }, order: 'n' } });
    assert.deepEqual(big.body.results.map((o: any) => o.n), [1e308, Number.MAX_VALUE]);
    const exact = await app.get(`/1/classes/${fresh}`, { query: { where: { n: Number.MIN_VALUE } } });
    assert.deepEqual(exact.body.results.map((o: any) => o.objectId), [ids[3]]);
    for (const raw of ['{"n":1e400}', '{"n":-1e400}', '{"list":[1E+999]}', `{"n":${'9'.repeat(400)}}`]) {
      assertError(await app.request('POST', `/1/classes/${fresh}`, { raw, headers: { 'Content-Type': 'application/json' } }), 400, 107, raw.slice(0, 30));
    }
    assertError(await http(`${target.url}/1/classes/${fresh}?where=${encodeURIComponent('{"n":{"$gt":1e400}}')}`, 'GET', { headers: { 'X-Svc-Application-Id': app.app.applicationId, 'X-Svc-REST-API-Key': app.app.restKey } }), 400, 102);
    assertError(await http(`${target.url}/1/classes/${fresh}?where=${encodeURIComponent('{"obj":{"n":1e400}}')}`, 'GET', { headers: { 'X-Svc-Application-Id': app.app.applicationId, 'X-Svc-REST-API-Key': app.app.restKey } }), 400, 102);
    assert.equal((await app.get(`/1/classes/${fresh}`, { query: { count: 1, limit: 0 } })).body.count, numbers.length);
  });

  it('refuses 10,000 levels of nesting with a clear error and keeps answering', async () => {
    const { cls, objectPath, intact } = await seed();
    const fresh = unique('Deep');
    const json = { 'Content-Type': 'application/json' };
    const sdkGet = (where: string) => http(`${target.url}/1/classes/${cls}`, 'POST', { raw: `{"_ApplicationId":${JSON.stringify(app.app.applicationId)},"_JavaScriptKey":${JSON.stringify(app.app.javascriptKey)},"_method":"GET","where":${where}}`, headers: { 'Content-Type': 'text/plain' } });
    assertError(await app.request('POST', `/1/classes/${fresh}`, { raw: `{"deep":${nested(10_000, '1')}}`, headers: json }), 400, 107, 'deep object');
    assertError(await app.request('POST', `/1/classes/${fresh}`, { raw: `{"deep":${nestedArray(10_000)}}`, headers: json }), 400, 107, 'deep array');
    assertError(await app.request('PUT', objectPath, { raw: `{"deep":${nestedArray(10_000)}}`, headers: json }), 400, 107, 'deep update');
    assertError(await app.request('POST', `/1/classes/${fresh}`, { raw: nestedArray(400_000), headers: json }), 400, 107, '400,000 levels');
    assertError(await app.request('POST', '/1/batch', { raw: `{"requests":${nestedArray(10_000)}}`, headers: json }), 400, 107, 'deep batch');
    const deepCommand = await app.request('POST', '/1/batch', { raw: `{"requests":[{"method":"POST","path":"/1/classes/${fresh}","body":{"deep":${nestedArray(10_000)}}}]}`, headers: json });
    assert.equal(deepCommand.body[0].error.code, 107);
    assertError(await sdkGet(nested(10_000, '1')), 400, 102, 'deep where value');
    assertError(await sdkGet(`{"name":{"$in":${nestedArray(10_000)}}}`), 400, 102, 'deep $in');
    assertError(await sdkGet('{"$or":['.repeat(10_000) + '{}' + ']}'.repeat(10_000)), 400, 102, 'deep $or');
    assertError(await sdkGet('{"$and":['.repeat(100) + '{"name":"alpha"}' + ']}'.repeat(100)), 400, 102, '100 levels of $and');
    const shallow = await sdkGet('{"$and":['.repeat(5) + '{"name":"alpha"}' + ']}'.repeat(5));
    assert.deepEqual(shallow.body.results.map((o: any) => o.name), ['alpha']);
    assert.deepEqual((await http(`${target.url}/health`, 'GET')).body, { status: 'ok', database: target.backend });
    assert.deepEqual((await app.get(`/1/classes/${fresh}`, { key: 'master' })).body, { results: [] });
    await intact();
  });

  it('answers long lists of values correctly, and refuses a query with more than 10,000', async () => {
    const { cls } = await seed();
    const ids = Array.from({ length: 3_000 }, (_, i) => i);
    const list = await app.post(`/1/classes/${cls}`, sdkBody(app.app, { _method: 'GET', where: { score: { $in: ids } }, order: 'name' }));
    assert.equal(list.status, 200, list.text.slice(0, 300));
    assert.deepEqual(list.body.results.map((o: any) => o.name), ['alpha', 'beta', 'gamma']);
    const or = await app.post(`/1/classes/${cls}`, sdkBody(app.app, { _method: 'GET', where: { $or: ids.map((score) => ({ score })) }, order: 'name' }));
    assert.deepEqual(or.body.results.map((o: any) => o.name), ['alpha', 'beta', 'gamma']);
    const none = await app.post(`/1/classes/${cls}`, sdkBody(app.app, { _method: 'GET', where: { score: { $nin: ids } } }));
    assert.deepEqual(none.body, { results: [] });
    const tooMany = await app.post(`/1/classes/${cls}`, sdkBody(app.app, { _method: 'GET', where: { score: { $in: Array.from({ length: 10_001 }, (_, i) => i) } } }));
    assertError(tooMany, 400, 102);
  });
});
