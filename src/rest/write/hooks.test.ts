import { it } from 'node:test';
import assert from 'node:assert/strict';
import { AppHooks, WriteHooks, type HookObserver } from './hooks.ts';

it('observers of every class come before the class\'s own, per point', () => {
  const hooks = new WriteHooks();
  const any: HookObserver = () => {};
  const own: HookObserver = () => {};
  hooks.on('beforeSave', '*', any);
  hooks.on('beforeSave', 'Game', own);
  assert.deepEqual(hooks.observersOf('beforeSave', 'Game'), [any, own]);
  assert.deepEqual(hooks.observersOf('beforeSave', 'Other'), [any]);
  assert.deepEqual(hooks.observersOf('afterSave', 'Game'), []);
});

it('the Session class has no observers, even registered for it or for every class (spec 2.7)', () => {
  const hooks = new WriteHooks();
  hooks.on('beforeSave', '*', () => {});
  hooks.on('afterDelete', '_Session', () => {});
  assert.deepEqual(hooks.observersOf('beforeSave', '_Session'), []);
  assert.deepEqual(hooks.observersOf('afterDelete', '_Session'), []);
});

it('an app registry runs the shared observers first and never sees another app\'s', () => {
  const apps = new AppHooks();
  const shared: HookObserver = () => {};
  const mine: HookObserver = () => {};
  apps.shared.on('afterSave', '*', shared);
  apps.of('a').on('afterSave', 'Game', mine);
  assert.deepEqual(apps.of('a').observersOf('afterSave', 'Game'), [shared, mine]);
  assert.deepEqual(apps.of('b').observersOf('afterSave', 'Game'), [shared]);
  assert.equal(apps.of('a'), apps.of('a'));
  apps.of('a').clear();
  assert.deepEqual(apps.of('a').observersOf('afterSave', 'Game'), [shared]);
  assert.deepEqual(apps.of('a').observersOf('afterSave', '_Session'), []);
});
