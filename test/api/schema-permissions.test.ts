import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient, type Response } from '../helpers/client.ts';

/**
 * Class-level permissions set through the schema API (decisions.md): checked against the class's
 * fields and stored. Enforcement comes with users and roles.
 */

const MASTER = { key: 'master' } as const;

/** Parse's rule: once permissions are given, an operation they leave out is open to the master key only. */
const CLOSED_CLP = { find: {}, count: {}, get: {}, create: {}, update: {}, delete: {}, addField: {}, protectedFields: {} };

function assertError(response: Response, status: number, code: number, label = ''): void {
  assert.equal(response.status, status, `${label}: status (body ${response.text})`);
  assert.deepEqual(Object.keys(response.body ?? {}).sort(), ['code', 'error'], `${label}: body ${response.text}`);
  assert.equal(response.body.code, code, `${label}: code (${response.body.error})`);
}

eachBackend('schema permissions', (target) => {
  let app: AppClient;

  before(async () => {
    app = await newApp(target);
  });

  async function schemaOf(className: string): Promise<Response> {
    return app.get(`/1/schemas/${className}`, MASTER);
  }

  it('class-level permissions: stored as given, replaced by PUT, kept by PUTs that leave them out', async () => {
    const cls = unique('Guarded');
    const first = { find: { '*': true }, get: { 'role:Staff Members': true } };
    const created = await app.post(`/1/schemas/${cls}`, { fields: { owner: { type: 'Pointer', targetClass: '_User' } }, classLevelPermissions: first }, MASTER);
    assert.equal(created.status, 201);
    assert.deepEqual(created.body.classLevelPermissions, { ...CLOSED_CLP, ...first });

    const second = { create: { requiresAuthentication: true }, writeUserFields: ['owner'], protectedFields: { '*': ['owner'], authenticated: [], 'userField:owner': [] } };
    const replaced = await app.put(`/1/schemas/${cls}`, { classLevelPermissions: second }, MASTER);
    assert.equal(replaced.status, 200);
    assert.deepEqual(replaced.body.classLevelPermissions, { ...CLOSED_CLP, ...second });

    const grown = await app.put(`/1/schemas/${cls}`, { fields: { note: { type: 'String' } } }, MASTER);
    assert.deepEqual(grown.body.classLevelPermissions, { ...CLOSED_CLP, ...second });
    assert.deepEqual((await schemaOf(cls)).body.classLevelPermissions, { ...CLOSED_CLP, ...second });
  });

  it('class-level permissions of a bad shape are refused with 400/107', async () => {
    const cls = unique('Checked');
    const created = await app.post(`/1/schemas/${cls}`, { fields: { owner: { type: 'Pointer', targetClass: '_User' }, title: { type: 'String' }, team: { type: 'Pointer', targetClass: 'Team' } } }, MASTER);
    assert.equal(created.status, 201);
    const bad: [string, unknown][] = [
      ['an array', []],
      ['a string', 'public'],
      ['null', null],
      ['an unknown operation', { fly: { '*': true } }],
      ['an operation that is not an object', { find: true }],
      ['false for a principal', { find: { '*': false } }],
      ['a string for a principal', { find: { '*': 'yes' } }],
      ['a malformed principal', { find: { 'not a user!': true } }],
      ['an empty role name', { find: { 'role:': true } }],
      ['pointerFields not an array', { update: { pointerFields: 'owner' } }],
      ['pointerFields naming a missing field', { update: { pointerFields: ['nobody'] } }],
      ['pointerFields naming a String field', { update: { pointerFields: ['title'] } }],
      ['pointerFields naming a Pointer to another class', { update: { pointerFields: ['team'] } }],
      ['readUserFields not an array', { readUserFields: 'owner' }],
      ['readUserFields naming a String field', { readUserFields: ['title'] }],
      ['writeUserFields naming a missing field', { writeUserFields: ['nobody'] }],
      ['protectedFields not an object', { protectedFields: ['title'] }],
      ['protectedFields with a string list', { protectedFields: { '*': 'title' } }],
      ['protectedFields naming a missing field', { protectedFields: { '*': ['nothing'] } }],
      ['protectedFields naming a default field', { protectedFields: { '*': ['objectId'] } }],
      ['protectedFields with a malformed principal', { protectedFields: { 'who?': ['title'] } }],
      ['protectedFields naming an inherited method', { protectedFields: { '*': ['toString'] } }],
      ['readUserFields naming an inherited method', { readUserFields: ['constructor'] }],
      ['a userField audience naming a String field', { protectedFields: { 'userField:title': ['owner'] } }],
    ];
    for (const [name, classLevelPermissions] of bad) {
      assertError(await app.put(`/1/schemas/${cls}`, { classLevelPermissions }, MASTER), 400, 107, `PUT ${name}`);
      assertError(await app.post(`/1/schemas/${unique('Checked')}`, { fields: { owner: { type: 'Pointer', targetClass: '_User' } }, classLevelPermissions }, MASTER), 400, 107, `POST ${name}`);
    }
    assert.deepEqual((await schemaOf(cls)).body, created.body);
  });
});
