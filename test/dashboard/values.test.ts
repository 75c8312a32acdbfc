import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { csvHeader, csvRows, csvValue, importWrites, parseCsv, rowsFromCsv, rowsFromJson } from '../../dashboard/src/pages/browser/transfer.ts';
import { aclEntries, aclValue, isImageName, labelField, pointerSearch, userSearch } from '../../dashboard/src/pages/browser/pickers.ts';
import { parseValue, typeOfValue, valueText } from '../../dashboard/src/pages/config/config-values.ts';
import { checkPermissions, toggled } from '../../dashboard/src/pages/schema/permissions.ts';
import { curlCommand, requestProblem } from '../../dashboard/src/pages/console/console-request.ts';
import { usersQuery } from '../../dashboard/src/pages/users/users-query.ts';

/**
 * The dashboard's text formats without a browser: CSV and JSON of export and import, config values
 * by type, the permissions check. Their use against the server is in the Chromium tests.
 */
describe('dashboard: CSV and JSON of export and import', () => {
  const columns = [{ name: 'objectId', type: 'id' as const }, { name: 'name', type: 'String' as const }, { name: 'n', type: 'Number' as const }, { name: 'at', type: 'Date' as const }, { name: 'tags', type: 'Array' as const }];

  it('writes typed values as text and quotes what CSV must, and reads them back by column type', () => {
    const rows = [{ objectId: 'a1', name: 'x, "y"\nz', n: 3, at: { __type: 'Date', iso: '2024-01-01T00:00:00.000Z' }, tags: ['p', 1] }, { objectId: 'a2' }];
    const text = csvHeader(columns) + csvRows(columns, rows);
    assert.equal(text, 'objectId,name,n,at,tags\r\na1,"x, ""y""\nz",3,2024-01-01T00:00:00.000Z,"[""p"",1]"\r\na2,,,,\r\n');
    const typeOf = (field: string) => columns.find((c) => c.name === field)?.type;
    assert.deepEqual(rowsFromCsv(text, typeOf), [
      { position: 2, objectId: 'a1', fields: { name: 'x, "y"\nz', n: 3, at: { __type: 'Date', iso: '2024-01-01T00:00:00.000Z' }, tags: ['p', 1] } },
      { position: 3, objectId: 'a2', fields: {} },
    ]);
  });

  it('refuses a cell that does not fit its column, naming the column', () => {
    assert.deepEqual(rowsFromCsv('n,at\r\nabc,\r\n1,yesterday', () => undefined), [{ position: 2, fields: { n: 'abc' } }, { position: 3, fields: { n: 1, at: 'yesterday' } }]);
    const typed = rowsFromCsv('n,at\nabc,\n1,yesterday\n', (f) => (f === 'n' ? 'Number' : 'Date'));
    assert.deepEqual(typed, [{ position: 2, problem: 'n: "abc" is not a number' }, { position: 3, problem: 'at: "yesterday" is not a date' }]);
  });

  it('guesses the type of a column the class does not have', () => {
    assert.equal(csvValue('12.5', undefined), 12.5);
    assert.equal(csvValue('true', undefined), true);
    assert.deepEqual(csvValue('{"a":1}', undefined), { a: 1 });
    assert.equal(csvValue('007x', undefined), '007x');
  });

  it('parses CRLF, LF, a BOM and a last line without a break', () => {
    assert.deepEqual(parseCsv('a,b\r\n1,2\n3,"4\r\n5"'), [['a', 'b'], ['1', '2'], ['3', '4\r\n5']]);
    assert.deepEqual(rowsFromCsv('\uFEFFname\nx', () => 'String'), [{ position: 2, fields: { name: 'x' } }]);
  });

  it('reads a JSON array or {results}, leaving out the fields the server sets (the objectId kept apart)', () => {
    assert.deepEqual(rowsFromJson('[{"objectId":"a","createdAt":"t","updatedAt":"t","n":1}, 5]'), [{ position: 1, objectId: 'a', fields: { n: 1 } }, { position: 2, problem: 'not an object' }]);
    assert.deepEqual(rowsFromJson('{"results":[{"n":2}]}'), [{ position: 1, fields: { n: 2 } }]);
    assert.throws(() => rowsFromJson('{"n":1}'), /no array/);
  });

  it('an import that updates: a known objectId is a PUT of the fields, an unknown one a create asking for it, none a create', () => {
    const rows = [{ position: 1, objectId: 'known', fields: { n: 1 } }, { position: 2, objectId: 'unknown', fields: { n: 2 } }, { position: 3, fields: { n: 3 } }];
    assert.deepEqual(importWrites(rows, true, new Set(['known'])), [
      { method: 'PUT', objectId: 'known', body: { n: 1 } },
      { method: 'POST', body: { n: 2, objectId: 'unknown' } },
      { method: 'POST', body: { n: 3 } },
    ]);
    assert.deepEqual(importWrites(rows, false, new Set(['known'])).map((w) => w.method), ['POST', 'POST', 'POST']);
    assert.deepEqual(importWrites(rows, false, new Set())[0], { method: 'POST', body: { n: 1 } });
  });
});

describe('dashboard: the pickers of the browser\'s editors', () => {
  it('an ACL as rows of read and write, and back without false entries or empty principals', () => {
    const entries = aclEntries({ '*': { read: true }, u1: { read: true, write: true }, 'role:staff': { write: true } });
    assert.deepEqual(entries, [['*', { read: true, write: false }], ['u1', { read: true, write: true }], ['role:staff', { read: false, write: true }]]);
    assert.deepEqual(aclValue([...entries, ['u2', { read: false, write: false }]]), { '*': { read: true }, u1: { read: true, write: true }, 'role:staff': { write: true } });
    assert.deepEqual(aclEntries(undefined), []);
    assert.deepEqual(aclValue([]), {});
  });

  it('search-as-you-type queries: prefixes taken literally, on the label column when the class has one', () => {
    const schema = { className: 'Team', fields: { title: { type: 'String' as const }, name: { type: 'Number' as const } } };
    assert.equal(labelField(schema), 'title');
    assert.equal(labelField({ className: 'X', fields: {} }), undefined);
    assert.deepEqual(pointerSearch(' a.b', 'title'), { $or: [{ objectId: { $regex: '^a\\.b' } }, { title: { $regex: '^a\\.b' } }] });
    assert.deepEqual(pointerSearch('ab', undefined), { objectId: { $regex: '^ab' } });
    assert.deepEqual(userSearch('al*'), { username: { $regex: '^al\\*' } });
    assert.equal(isImageName('x_photo.JPG'), true);
    assert.equal(isImageName('x_notes.txt'), false);
  });
});

describe('dashboard: config values by type', () => {
  it('round-trips every type through its text', () => {
    const values = ['hi', 4.5, false, { __type: 'Date', iso: '2026-03-01T09:30:00.000Z' }, [1, 'a'], { a: { b: 1 } }, { __type: 'GeoPoint', latitude: 48.85, longitude: -2.35 }, { __type: 'File', name: 'f.png', url: 'http://x/f.png' }];
    const types = values.map(typeOfValue);
    assert.deepEqual(types, ['String', 'Number', 'Boolean', 'Date', 'Array', 'Object', 'GeoPoint', 'File']);
    values.forEach((value, k) => assert.deepEqual(parseValue(valueText(value, types[k]!), types[k]!), value));
  });

  it('refuses a text that is not of its type', () => {
    assert.throws(() => parseValue('', 'Number'), /Number/);
    assert.throws(() => parseValue('yes', 'Boolean'), /Boolean/);
    assert.throws(() => parseValue('91, 0', 'GeoPoint'), /Latitude/);
    assert.throws(() => parseValue('1, 2, 3', 'GeoPoint'), /latitude, longitude/);
    assert.throws(() => parseValue('{"a":1}', 'Array'), /Array/);
    assert.throws(() => parseValue('[1]', 'Object'), /Object/);
    assert.throws(() => parseValue('{"name":"f"}', 'File'), /File/);
    assert.throws(() => parseValue('{', 'Object'), /not valid JSON/);
  });
});

describe('dashboard: class-level permissions check', () => {
  it('takes operations, pointerFields and the field lists, and names what it refuses', () => {
    const ok = { find: { '*': true }, get: { pointerFields: ['owner'] }, addField: {}, protectedFields: { '*': ['secret'] }, readUserFields: ['owner'] };
    assert.deepEqual(checkPermissions(JSON.stringify(ok)), ok);
    assert.throws(() => checkPermissions('[]'), /JSON object/);
    assert.throws(() => checkPermissions('{"fetch": {}}'), /"fetch" is no operation/);
    assert.throws(() => checkPermissions('{"find": {"*": false}}'), /find\.\* is true/);
    assert.throws(() => checkPermissions('{"find": true}'), /find is an object/);
    assert.throws(() => checkPermissions('nope'), /not valid JSON/);
  });

  it('a check box grants or withdraws one principal of one operation, keeping the rest', () => {
    const text = JSON.stringify({ find: { 'role:a': true }, get: { '*': true } });
    assert.deepEqual(JSON.parse(toggled(text, 'find', '*', true)), { find: { 'role:a': true, '*': true }, get: { '*': true } });
    assert.deepEqual(JSON.parse(toggled(text, 'get', '*', false)), { find: { 'role:a': true }, get: {} });
    assert.deepEqual(JSON.parse(toggled(text, 'delete', 'requiresAuthentication', true)).delete, { requiresAuthentication: true });
    assert.equal(toggled('{ half', 'find', '*', true), '{ half');
  });
});

describe('dashboard: the API console request and the users search', () => {
  it('writes a curl command with every header and the body single-quoted for a shell', () => {
    const request = { method: 'POST' as const, path: '/1/classes/A', body: `{"n": "it's"}`, headers: { 'X-Svc-Application-Id': 'app', 'X-Svc-Master-Key': 'mk' } };
    assert.equal(
      curlCommand('http://h:1', request),
      `curl -X POST 'http://h:1/1/classes/A' \\\n  -H 'X-Svc-Application-Id: app' \\\n  -H 'X-Svc-Master-Key: mk' \\\n  -H 'Content-Type: application/json' \\\n  -d '{"n": "it'\\''s"}'`,
    );
    assert.equal(curlCommand('http://h:1', { ...request, method: 'GET' }), `curl -X GET 'http://h:1/1/classes/A' \\\n  -H 'X-Svc-Application-Id: app' \\\n  -H 'X-Svc-Master-Key: mk'`);
  });

  it('refuses a path outside /1/ and a body that is not JSON, and lets a GET through with any body text', () => {
    const base = { method: 'POST' as const, path: '/1/classes/A', body: '{', headers: {} };
    assert.match(requestProblem(base)!, /^The body is not valid JSON/);
    assert.match(requestProblem({ ...base, path: 'classes/A', body: '' })!, /^The path starts with \/1\//);
    assert.equal(requestProblem({ ...base, method: 'GET' }), null);
    assert.equal(requestProblem({ ...base, body: '' }), null);
  });

  it('searches users by the literal start of the username or email, after the last objectId', () => {
    assert.deepEqual(usersQuery(''), {});
    assert.deepEqual(usersQuery('', 'x1'), { objectId: { $gt: 'x1' } });
    assert.deepEqual(usersQuery('a.b', 'x1'), { $and: [{ $or: [{ username: { $regex: '^a\\.b' } }, { email: { $regex: '^a\\.b' } }] }, { objectId: { $gt: 'x1' } }] });
  });
});
