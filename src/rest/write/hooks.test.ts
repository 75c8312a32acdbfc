import { it } from 'node:test';
import assert from 'node:assert/strict';
import { AppHooks, WriteHooks, type HookObserver, type QueuedObserver } from './hooks.ts';

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

it('off removes one observer and leaves the list a running write holds whole; queued observers have their own lists', () => {
  const hooks = new WriteHooks();
  const first: HookObserver = () => {};
  const second: HookObserver = () => {};
  hooks.on('beforeSave', 'Game', first);
  hooks.on('beforeSave', 'Game', second);
  const running = hooks.observersOf('beforeSave', 'Game');
  hooks.off('beforeSave', 'Game', first);
  assert.deepEqual(hooks.observersOf('beforeSave', 'Game'), [second]);
  assert.deepEqual(running, [first, second]);

  const queued: QueuedObserver = () => async () => {};
  hooks.onQueued('afterSave', 'Game', queued);
  assert.deepEqual(hooks.queuedOf('afterSave', 'Game'), [queued]);
  assert.deepEqual(hooks.observersOf('afterSave', 'Game'), []);
  assert.deepEqual(hooks.queuedOf('afterDelete', 'Game'), []);
  hooks.onQueued('afterSave', '_Session', queued);
  assert.deepEqual(hooks.queuedOf('afterSave', '_Session'), []);
  hooks.offQueued('afterSave', 'Game', queued);
  assert.deepEqual(hooks.queuedOf('afterSave', 'Game'), []);
});
