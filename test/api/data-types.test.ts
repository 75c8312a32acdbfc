import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient, type Response } from '../helpers/client.ts';

/** Spec 2.2: every data type is stored as sent (after normalisation) and read back unchanged. */

function assertError(response: Response, status: number, code: number): void {
  assert.equal(response.status, status, response.text);
  assert.deepEqual(Object.keys(response.body).sort(), ['code', 'error']);
  assert.equal(response.body.code, code, response.text);
  assert.equal(typeof response.body.error, 'string');
}

eachBackend('data types', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newApp(target);
  });

  /** Creates one object and returns it as GET answers it, without the three built-in fields. */
  async function roundTrip(cls: string, body: Record<string, unknown>): Promise<{ id: string; stored: Record<string, unknown> }> {
    const created = await app.post(`/1/classes/${cls}`, body);
    assert.equal(created.status, 201, created.text);
    const fetched = await app.get(`/1/classes/${cls}/${created.body.objectId}`);
    assert.equal(fetched.status, 200, fetched.text);
    const { objectId, createdAt, updatedAt, ...stored } = fetched.body;
    assert.equal(objectId, created.body.objectId);
    assert.equal(createdAt, created.body.createdAt);
    assert.equal(updatedAt, created.body.createdAt);
    return { id: objectId, stored };
  }

  async function schemaFields(cls: string): Promise<Record<string, unknown>> {
    const schema = await app.get(`/1/schemas/${cls}`, { key: 'master' });
    assert.equal(schema.status, 200, schema.text);
    return schema.body.fields;
  }

  async function countObjects(cls: string): Promise<number> {
    const listed = await app.get(`/1/classes/${cls}`, { key: 'master', query: { count: 1, limit: 0 } });
    assert.equal(listed.status, 200, listed.text);
    return listed.body.count;
  }

  it('stores numbers exactly: integers, floats, negatives, zero and the extremes of a double', async () => {
    const cls = unique('Num');
    const numbers = {
      zero: 0,
      int: 42,
      negative: -17,
      float: 3.141592653589793,
      negativeFloat: -0.5,
      tiny: 1e-7,
      maxSafe: Number.MAX_SAFE_INTEGER,
      minSafe: Number.MIN_SAFE_INTEGER,
      beyondSafe: 2 ** 60,
      huge: 1e21,
      maxDouble: Number.MAX_VALUE,
      minDouble: Number.MIN_VALUE,
      negativeHuge: -1.5e300,
      precise: 0.1 + 0.2,
    };
    const { id, stored } = await roundTrip(cls, numbers);
    assert.deepEqual(stored, numbers);
    // A list reads the same document through the query path.
    const listed = await app.get(`/1/classes/${cls}`);
    assert.equal(listed.body.results.length, 1);
    assert.equal(listed.body.results[0].objectId, id);
    assert.deepEqual({ ...listed.body.results[0], objectId: undefined, createdAt: undefined, updatedAt: undefined }, { ...numbers, objectId: undefined, createdAt: undefined, updatedAt: undefined });
    const fields = await schemaFields(cls);
    for (const name of Object.keys(numbers)) assert.deepEqual(fields[name], { type: 'Number' });
  });

  it('stores strings exactly: empty, unicode, emoji, quotes, control and SQL characters', async () => {
    const cls = unique('Str');
    const strings = {
      empty: '',
      accents: 'héllo wörld ÀÉÎÕÜ',
      cjk: '日本語のテキスト',
      rtl: 'שלום עולם مرحبا',
      emoji: '🎉👩‍👩‍👧‍👦🇫🇷',
      quotes: 'it\'s "quoted" \\ back\\slash',
      control: 'line\nbreak\ttab\r\u0001\u001f',
      separators: 'a\u2028b\u2029c',
      sql: "'); DROP TABLE users; --",
      json: '{"__type":"Date","iso":"not parsed"}',
      long: 'x'.repeat(10_000),
    };
    const { stored } = await roundTrip(cls, strings);
    assert.deepEqual(stored, strings);
    const fields = await schemaFields(cls);
    for (const name of Object.keys(strings)) assert.deepEqual(fields[name], { type: 'String' });
  });

  it('refuses strings no backend can store losslessly (NUL, unpaired surrogates) with 107, writing nothing', async () => {
    const cls = unique('Str');
    await roundTrip(cls, { name: 'first' });
    for (const body of [{ name: 'a\u0000b' }, { name: 'x\ud800' }, { name: '\udc00y' }, { nested: { key: 'a\u0000' } }, { nested: { ['k\u0000']: 1 } }, { list: ['ok', '\udfff'] }]) {
      assertError(await app.post(`/1/classes/${cls}`, body), 400, 107);
    }
    assert.equal(await countObjects(cls), 1);
    // A surrogate pair is a well-formed character and is stored.
    const { stored } = await roundTrip(cls, { name: '\ud83d\ude00' });
    assert.deepEqual(stored, { name: '😀' });
  });

  it('stores booleans and null; null fixes no type', async () => {
    const cls = unique('Bool');
    const { id, stored } = await roundTrip(cls, { yes: true, no: false, nothing: null });
    assert.deepEqual(stored, { yes: true, no: false, nothing: null });
    const fields = await schemaFields(cls);
    assert.deepEqual(fields.yes, { type: 'Boolean' });
    assert.deepEqual(fields.no, { type: 'Boolean' });
    assert.equal(fields.nothing, undefined);
    // The field that held null takes the type of its first real value.
    assert.equal((await app.put(`/1/classes/${cls}/${id}`, { nothing: 'now a string' })).status, 200);
    assert.deepEqual((await schemaFields(cls)).nothing, { type: 'String' });
  });

  it('normalises Dates to YYYY-MM-DDTHH:MM:SS.MMMZ in UTC', async () => {
    const cls = unique('When');
    const cases: [string, string][] = [
      ['2024-02-29T12:34:56.789Z', '2024-02-29T12:34:56.789Z'],
      ['2024-02-29T12:34:56Z', '2024-02-29T12:34:56.000Z'],
      ['2024-02-29T12:34:56.7Z', '2024-02-29T12:34:56.700Z'],
      ['2024-02-29T12:34:56.123456789Z', '2024-02-29T12:34:56.123Z'],
      ['2024-03-01T01:30:00+02:00', '2024-02-29T23:30:00.000Z'],
      ['2024-02-29T22:00:00.5-0230', '2024-03-01T00:30:00.500Z'],
      ['1969-12-31T23:59:59.999Z', '1969-12-31T23:59:59.999Z'],
      ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
      ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
    ];
    for (const [input, expected] of cases) {
      const { stored } = await roundTrip(cls, { at: { __type: 'Date', iso: input } });
      assert.deepEqual(stored, { at: { __type: 'Date', iso: expected } }, input);
    }
    assert.deepEqual((await schemaFields(cls)).at, { type: 'Date' });
  });

  it('stores Bytes as the base64 text sent', async () => {
    const cls = unique('Blob');
    const everyByte = Buffer.from(Array.from({ length: 256 }, (_, i) => i)).toString('base64');
    const body = { all: { __type: 'Bytes', base64: everyByte }, short: { __type: 'Bytes', base64: 'AQ==' }, empty: { __type: 'Bytes', base64: '' } };
    const { stored } = await roundTrip(cls, body);
    assert.deepEqual(stored, body);
    assert.deepEqual(Buffer.from((stored.all as { base64: string }).base64, 'base64'), Buffer.from(Array.from({ length: 256 }, (_, i) => i)));
    assert.deepEqual((await schemaFields(cls)).all, { type: 'Bytes' });
  });

  it('stores Pointers as {__type, className, objectId} and types the field with its target class', async () => {
    const cls = unique('Post');
    const author = unique('Author');
    const { body: target_ } = await app.post(`/1/classes/${author}`, { name: 'Ann' });
    const body = { author: { __type: 'Pointer', className: author, objectId: target_.objectId }, owner: { __type: 'Pointer', className: '_User', objectId: 'u1' } };
    const { stored } = await roundTrip(cls, body);
    assert.deepEqual(stored, body);
    const fields = await schemaFields(cls);
    assert.deepEqual(fields.author, { type: 'Pointer', targetClass: author });
    assert.deepEqual(fields.owner, { type: 'Pointer', targetClass: '_User' });
  });

  it('shows a Relation field as {__type: "Relation", className} on every object of the class', async () => {
    const cls = unique('Team');
    const member = unique('Member');
    const { id: before_ } = await roundTrip(cls, { name: 'made before the relation' });
    const { id, stored } = await roundTrip(cls, { name: 'a', members: { __type: 'Relation', className: member } });
    assert.deepEqual(stored, { name: 'a', members: { __type: 'Relation', className: member } });
    const earlier = await app.get(`/1/classes/${cls}/${before_}`);
    assert.deepEqual(earlier.body.members, { __type: 'Relation', className: member });
    assert.deepEqual((await schemaFields(cls)).members, { type: 'Relation', targetClass: member });
    // Writing the same Relation again changes nothing.
    assert.equal((await app.put(`/1/classes/${cls}/${id}`, { members: { __type: 'Relation', className: member } })).status, 200);
    assert.deepEqual((await app.get(`/1/classes/${cls}/${id}`)).body.members, { __type: 'Relation', className: member });
  });

  it('stores a File by name and adds its URL on read, ignoring any URL the client sent', async () => {
    const cls = unique('Doc');
    const name = `${'a'.repeat(32)}_report.pdf`;
    const { stored } = await roundTrip(cls, { file: { __type: 'File', name, url: 'http://elsewhere.example/evil.pdf' } });
    assert.deepEqual(stored, { file: { __type: 'File', name, url: `${target.url}/files/${app.app.applicationId}/${name}` } });
    assert.deepEqual((await schemaFields(cls)).file, { type: 'File' });
  });

  it('stores a GeoPoint, including values just inside the bounds', async () => {
    const cls = unique('Place');
    const { stored } = await roundTrip(cls, { where: { __type: 'GeoPoint', latitude: 40.7128, longitude: -74.006 } });
    assert.deepEqual(stored, { where: { __type: 'GeoPoint', latitude: 40.7128, longitude: -74.006 } });
    for (const [latitude, longitude] of [[89.999999, 179.999999], [-89.999999, -179.999999], [0, 0]]) {
      const edge = await roundTrip(cls, { where: { __type: 'GeoPoint', latitude, longitude } });
      assert.deepEqual(edge.stored, { where: { __type: 'GeoPoint', latitude, longitude } });
    }
    assert.deepEqual((await schemaFields(cls)).where, { type: 'GeoPoint' });
  });

  it('refuses a GeoPoint at or beyond ±90 latitude / ±180 longitude with 107, writing nothing', async () => {
    const cls = unique('Place');
    await roundTrip(cls, { where: { __type: 'GeoPoint', latitude: 1, longitude: 1 } });
    const outside = [
      [90, 0], [-90, 0], [90.0001, 0], [-1000, 0],
      [0, 180], [0, -180], [0, 180.5], [0, -360],
    ];
    for (const [latitude, longitude] of outside) {
      assertError(await app.post(`/1/classes/${cls}`, { where: { __type: 'GeoPoint', latitude, longitude } }), 400, 107);
    }
    const { body: created } = await app.post(`/1/classes/${cls}`, { where: { __type: 'GeoPoint', latitude: 2, longitude: 2 } });
    assertError(await app.put(`/1/classes/${cls}/${created.objectId}`, { where: { __type: 'GeoPoint', latitude: 0, longitude: 180 } }), 400, 107);
    assert.deepEqual((await app.get(`/1/classes/${cls}/${created.objectId}`)).body.where, { __type: 'GeoPoint', latitude: 2, longitude: 2 });
    assert.equal(await countObjects(cls), 2);
  });

  it('allows only one GeoPoint field per class (111), also within one body', async () => {
    const cls = unique('Place');
    await roundTrip(cls, { home: { __type: 'GeoPoint', latitude: 1, longitude: 2 } });
    assertError(await app.post(`/1/classes/${cls}`, { work: { __type: 'GeoPoint', latitude: 3, longitude: 4 } }), 400, 111);
    // The same field again is fine.
    await roundTrip(cls, { home: { __type: 'GeoPoint', latitude: 5, longitude: 6 } });

    const fresh = unique('Place');
    assertError(await app.post(`/1/classes/${fresh}`, { a: { __type: 'GeoPoint', latitude: 1, longitude: 2 }, b: { __type: 'GeoPoint', latitude: 3, longitude: 4 } }), 400, 111);
    assertError(await app.get(`/1/schemas/${fresh}`, { key: 'master' }), 400, 103);
    const fields = await schemaFields(cls);
    assert.equal(fields.work, undefined);
    assert.equal(await countObjects(cls), 2);
  });

  it('stores nested objects and arrays with typed values inside, normalised', async () => {
    const cls = unique('Nest');
    const other = unique('Other');
    const pointer = { __type: 'Pointer', className: other, objectId: 'abc123' };
    const geo = { __type: 'GeoPoint', latitude: -33.86, longitude: 151.21 };
    const bytes = { __type: 'Bytes', base64: 'aGVsbG8=' };
    const fileName = `${'b'.repeat(32)}_pic.png`;
    const body = {
      meta: {
        when: { __type: 'Date', iso: '2024-06-01T12:00:00+02:00' },
        owner: pointer,
        place: geo,
        blob: bytes,
        pic: { __type: 'File', name: fileName },
        tags: ['a', 1, true, null, { deep: { x: [1, [2, [3, { y: 'z' }]]] } }],
        '': 'empty key',
        'clé unicode 🎉': 1,
        'spaces and-dashes': 2,
        empty: {},
        none: [],
      },
      list: [{ __type: 'Date', iso: '2024-06-01T10:00:00Z' }, pointer, { nested: 'x' }, [[]], 2.5, ''],
      emptyObject: {},
      emptyArray: [],
    };
    const { stored } = await roundTrip(cls, body);
    const fileUrl = `${target.url}/files/${app.app.applicationId}/${fileName}`;
    assert.deepEqual(stored, {
      meta: { ...body.meta, when: { __type: 'Date', iso: '2024-06-01T10:00:00.000Z' }, pic: { __type: 'File', name: fileName, url: fileUrl } },
      list: [{ __type: 'Date', iso: '2024-06-01T10:00:00.000Z' }, pointer, { nested: 'x' }, [[]], 2.5, ''],
      emptyObject: {},
      emptyArray: [],
    });
    const fields = await schemaFields(cls);
    assert.deepEqual(fields.meta, { type: 'Object' });
    assert.deepEqual(fields.list, { type: 'Array' });
    assert.deepEqual(fields.emptyObject, { type: 'Object' });
    assert.deepEqual(fields.emptyArray, { type: 'Array' });
  });

  it('adds URLs to Files inside arrays and nested objects', async () => {
    const cls = unique('Album');
    const names = [`${'c'.repeat(32)}_one.jpg`, `${'d'.repeat(32)}_two.jpg`];
    const { stored } = await roundTrip(cls, { photos: names.map((name) => ({ __type: 'File', name })), cover: { image: { __type: 'File', name: names[0] } } });
    const url = (name: string) => `${target.url}/files/${app.app.applicationId}/${name}`;
    assert.deepEqual(stored, {
      photos: names.map((name) => ({ __type: 'File', name, url: url(name) })),
      cover: { image: { __type: 'File', name: names[0], url: url(names[0]!) } },
    });
  });

  it('keeps nested keys named like object internals, and refuses "__proto__" keys with 107', async () => {
    const cls = unique('Proto');
    const headers = { 'Content-Type': 'application/json' };
    const created = await app.request('POST', `/1/classes/${cls}`, { raw: '{"o": {"constructor": 1, "toString": "s", "hasOwnProperty": []}}', headers });
    assert.equal(created.status, 201, created.text);
    const fetched = await app.get(`/1/classes/${cls}/${created.body.objectId}`);
    assert.deepEqual(fetched.body.o, { constructor: 1, toString: 's', hasOwnProperty: [] });
    // A "__proto__" key would turn into a prototype as soon as the object is copied, losing data.
    for (const raw of ['{"o": {"__proto__": {"polluted": true}}}', '{"list": [{"__proto__": 2}]}', '{"o": {"\\u005f_proto__": 1}}']) {
      assertError(await app.request('POST', `/1/classes/${cls}`, { raw, headers }), 400, 107);
    }
    assert.equal(await countObjects(cls), 1);
  });

  it('stores every type through an update as well as a create', async () => {
    const cls = unique('Upd');
    const { id } = await roundTrip(cls, { name: 'x' });
    const other = unique('Other');
    const update = {
      n: -12.5,
      s: 'ünïcödé',
      b: false,
      at: { __type: 'Date', iso: '2030-01-01T00:00:00+01:00' },
      bytes: { __type: 'Bytes', base64: 'AAAA' },
      ptr: { __type: 'Pointer', className: other, objectId: 'p1' },
      geo: { __type: 'GeoPoint', latitude: 10, longitude: 20 },
      obj: { a: [1, { b: 2 }] },
      arr: [1, 'two', { three: 3 }],
      nothing: null,
    };
    const updated = await app.put(`/1/classes/${cls}/${id}`, update);
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(Object.keys(updated.body), ['updatedAt']);
    const fetched = await app.get(`/1/classes/${cls}/${id}`);
    const { objectId, createdAt, updatedAt, ...stored } = fetched.body;
    assert.equal(updatedAt, updated.body.updatedAt);
    assert.deepEqual(stored, { ...update, name: 'x', at: { __type: 'Date', iso: '2029-12-31T23:00:00.000Z' } });
  });
});
