import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { otherPrincipals, pointerCandidates, pointerFieldsOf, principalKey, protectedFieldsOf, withPointerField, withProtectedFields } from '../../dashboard/src/pages/schema/permissions.ts';
import { sessionsQuery } from '../../dashboard/src/pages/sessions/sessions-query.ts';

/**
 * What the schema page's permission editors write into the class-level permissions, and the
 * sessions page's keyset query, without a browser (their use against the server is in
 * schema.test.ts and sessions.test.ts).
 */
describe('dashboard: the permission editors', () => {
  it('lists the users and roles granted something, beside anyone and signed-in users', () => {
    const permissions = { find: { '*': true, u1: true }, get: { 'role:a': true, pointerFields: ['owner'] }, update: { requiresAuthentication: true, u1: true }, protectedFields: { u2: [] } };
    assert.deepEqual(otherPrincipals(permissions), ['u1', 'role:a']);
    assert.equal(principalKey({ kind: 'role', objectId: 'r1', name: 'Editors' }), 'role:Editors');
    assert.equal(principalKey({ kind: 'user', objectId: 'u9', name: 'ada' }), 'u9');
  });

  it('offers the Pointer-to-_User and Array columns only', () => {
    const fields = { owner: { type: 'Pointer', targetClass: '_User' }, post: { type: 'Pointer', targetClass: 'Post' }, editors: { type: 'Array' }, title: { type: 'String' } };
    assert.deepEqual(pointerCandidates(fields), ['owner', 'editors']);
  });

  it('adds and takes pointer fields, leaving out a list once empty and keeping the grants beside it', () => {
    let permissions: Readonly<Record<string, unknown>> = { get: { '*': true } };
    permissions = withPointerField(permissions, 'readUserFields', 'owner', true);
    permissions = withPointerField(permissions, 'get', 'owner', true);
    permissions = withPointerField(permissions, 'get', 'editors', true);
    assert.deepEqual(permissions, { get: { '*': true, pointerFields: ['owner', 'editors'] }, readUserFields: ['owner'] });
    assert.deepEqual(pointerFieldsOf(permissions, 'get'), ['owner', 'editors']);
    permissions = withPointerField(permissions, 'readUserFields', 'owner', false);
    permissions = withPointerField(permissions, 'get', 'owner', false);
    permissions = withPointerField(permissions, 'get', 'editors', false);
    assert.deepEqual(permissions, { get: { '*': true } });
  });

  it('sets and removes the columns hidden from an audience', () => {
    let permissions: Readonly<Record<string, unknown>> = { find: {}, protectedFields: { '*': ['secret'] } };
    permissions = withProtectedFields(permissions, 'userField:owner', ['email', 'phone']);
    assert.deepEqual(protectedFieldsOf(permissions), { '*': ['secret'], 'userField:owner': ['email', 'phone'] });
    permissions = withProtectedFields(permissions, '*', null);
    assert.deepEqual(permissions, { find: {}, protectedFields: { 'userField:owner': ['email', 'phone'] } });
  });
});

describe('dashboard: the sessions query', () => {
  it('pages by objectId after the last one seen, for all users or one', () => {
    assert.deepEqual(sessionsQuery(undefined, undefined), {});
    assert.deepEqual(sessionsQuery('u1', 'abc'), { user: { __type: 'Pointer', className: '_User', objectId: 'u1' }, objectId: { $gt: 'abc' } });
  });
});
