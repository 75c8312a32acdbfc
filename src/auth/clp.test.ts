import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { findGrant, grantAllows, grantWhere, hiddenFields, shieldOf, type Caller } from './clp.ts';
import type { ClassSchema } from '../schema/types.ts';
import type { StoredObject } from '../storage/port.ts';

const anonymous: Caller = { isMaster: false, userId: null, principals: ['*'] };
const alice: Caller = { isMaster: false, userId: 'alice', principals: ['*', 'alice', 'role:Staff'] };
const master: Caller = { isMaster: true, userId: null, principals: ['*'] };

function schema(classLevelPermissions: Record<string, unknown>): ClassSchema {
  return {
    className: 'Doc',
    fields: { owner: { type: 'Pointer', targetClass: '_User' }, editors: { type: 'Array' }, email: { type: 'String' }, phone: { type: 'String' } },
    classLevelPermissions,
    indexes: {},
  };
}

function stored(data: Record<string, unknown>): StoredObject {
  return { objectId: 'o1', createdAt: '', updatedAt: '', data, rperm: ['*'], wperm: ['*'] };
}

const pointer = (objectId: string) => ({ __type: 'Pointer', className: '_User', objectId });

describe('class-level permission grants', () => {
  it('grants everything to *, a principal of the caller, or requiresAuthentication with a user', () => {
    const cases: [Record<string, unknown>, Caller, boolean][] = [
      [{ '*': true }, anonymous, true],
      [{ alice: true }, alice, true],
      [{ alice: true }, anonymous, false],
      [{ 'role:Staff': true }, alice, true],
      [{ 'role:Other': true }, alice, false],
      [{ requiresAuthentication: true }, alice, true],
      [{ requiresAuthentication: true }, anonymous, false],
      [{}, alice, false],
      [{}, master, true],
    ];
    for (const [rule, caller, granted] of cases) {
      const grant = findGrant(caller, schema({ get: rule }), 'get');
      assert.deepEqual(grant, granted ? { userFields: null } : null, JSON.stringify([rule, caller.userId]));
    }
  });

  it('falls back to user fields: read fields for reads, write fields and pointerFields for writes, never for create', () => {
    const clp = { get: {}, update: { pointerFields: ['owner'] }, delete: {}, create: {}, readUserFields: ['owner', 'editors'], writeUserFields: ['editors'] };
    assert.deepEqual(findGrant(alice, schema(clp), 'get'), { userFields: ['owner', 'editors'] });
    assert.deepEqual(findGrant(alice, schema(clp), 'update'), { userFields: ['owner', 'editors'] });
    assert.deepEqual(findGrant(alice, schema(clp), 'delete'), { userFields: ['editors'] });
    assert.equal(findGrant(alice, schema(clp), 'create'), null);
  });

  it('turns user fields into a query and into a check that agree', () => {
    const grant = { userFields: ['owner', 'editors'] };
    const doc = schema({});
    assert.deepEqual(grantWhere(grant, doc, 'alice'), {
      kind: 'or',
      nodes: [
        { kind: 'compare', field: { kind: 'doc', path: ['owner', 'objectId'] }, op: 'eq', value: 'alice', as: 'text' },
        { kind: 'arrayContains', field: { kind: 'doc', path: ['editors'] }, value: 'alice', as: 'text', subKey: 'objectId' },
      ],
    });
    assert.deepEqual(grantWhere(grant, doc, null), { kind: 'const', value: false });
    assert.equal(grantAllows(grant, stored({ owner: pointer('alice') }), 'alice'), true);
    assert.equal(grantAllows(grant, stored({ editors: [pointer('bob'), pointer('alice')] }), 'alice'), true);
    assert.equal(grantAllows(grant, stored({ owner: pointer('bob'), editors: [] }), 'alice'), false);
    assert.equal(grantAllows(grant, stored({ owner: pointer('alice') }), null), false);
  });
});

describe('protected fields', () => {
  const rules = { '*': ['email', 'phone'], authenticated: ['phone', 'email'], 'role:Staff': ['phone'], 'userField:owner': [] };

  it('hides the intersection of the lists of every audience the caller is in', () => {
    assert.deepEqual(shieldOf(anonymous, schema({ protectedFields: rules }))?.hidden, ['email', 'phone']);
    assert.deepEqual(shieldOf(alice, schema({ protectedFields: rules }))?.hidden, ['phone']);
    assert.equal(shieldOf(master, schema({ protectedFields: rules })), null);
    assert.equal(shieldOf(alice, schema({ protectedFields: { 'role:Other': ['email'] } })), null);
  });

  it('narrows per object for the user its user field names', () => {
    const shield = shieldOf(alice, schema({ protectedFields: rules }))!;
    assert.deepEqual(hiddenFields(shield, stored({ owner: pointer('alice') }), 'alice'), []);
    assert.deepEqual(hiddenFields(shield, stored({ owner: pointer('bob') }), 'alice'), ['phone']);
  });
});
