import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RouteTable, type AppRoute, type Method } from './route.ts';

function route(method: Method, path: string): AppRoute {
  return { method, path, handler: async () => ({ status: 200, body: { path } }) };
}

const table = new RouteTable([
  route('GET', '/1/users/me'),
  route('GET', '/1/classes/_User/:objectId'),
  route('POST', '/1/classes/_User'),
  route('GET', '/1/classes/:className/:objectId'),
  route('POST', '/1/classes/:className'),
]);

function matched(method: Method, path: string): { path: string; params: Record<string, string> } | null {
  const found = table.match(method, path);
  return found && { path: found.route.path, params: found.params };
}

describe('RouteTable.match', () => {
  it('takes the first route that matches, in the order given', () => {
    assert.deepEqual(matched('POST', '/1/classes/_User'), { path: '/1/classes/_User', params: {} });
    assert.deepEqual(matched('POST', '/1/classes/Game'), { path: '/1/classes/:className', params: { className: 'Game' } });
    assert.deepEqual(matched('GET', '/1/classes/_User/abc'), { path: '/1/classes/_User/:objectId', params: { objectId: 'abc' } });
    assert.deepEqual(matched('GET', '/1/classes/Game/abc'), { path: '/1/classes/:className/:objectId', params: { className: 'Game', objectId: 'abc' } });
    assert.equal(matched('PUT', '/1/classes/Game/abc'), null);
    assert.equal(matched('GET', '/1/classes/Game/abc/extra'), null);
    assert.equal(matched('GET', '/1/users/you'), null);
  });

  it('decodes each segment before comparing it, as the edge\'s router does', () => {
    assert.deepEqual(matched('POST', '/1/classes/%5FUser'), { path: '/1/classes/_User', params: {} });
    assert.deepEqual(matched('GET', '/1/classes/_%55ser/a%20b'), { path: '/1/classes/_User/:objectId', params: { objectId: 'a b' } });
    // An escaped slash stays inside its segment.
    assert.deepEqual(matched('GET', '/1/classes/Game/a%2Fb'), { path: '/1/classes/:className/:objectId', params: { className: 'Game', objectId: 'a/b' } });
  });

  it('ignores one trailing slash, and matches no empty parameter', () => {
    assert.deepEqual(matched('POST', '/1/classes/Game/'), { path: '/1/classes/:className', params: { className: 'Game' } });
    assert.equal(matched('GET', '/1/classes/Game//'), null);
    assert.equal(matched('POST', '/1/classes//'), null);
  });

  it('matches nothing for a broken escape or a NUL', () => {
    assert.equal(matched('GET', '/1/classes/Game/%E0%A4%A'), null);
    assert.equal(matched('GET', '/1/classes/Game/a%00b'), null);
    assert.equal(matched('POST', '/1/classes/%00'), null);
  });
});
