import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RowCache } from './row-cache.ts';

const row = (objectId: string, data = '{}') => ({ objectId, createdAt: 'c', updatedAt: 'u', data, rperm: '["*"]', wperm: '["*"]' });

describe('RowCache', () => {
  it('hands a row out again under the epoch it was kept under, by class and id', () => {
    const cache = new RowCache();
    const kept = row('a');
    cache.set('A', 'a', kept, 1);
    assert.equal(cache.get('A', 'a', 1), kept);
    assert.equal(cache.get('B', 'a', 1), undefined);
    assert.equal(cache.get('A', 'b', 1), undefined);
  });

  it('drops every row once the epoch moves, also when it moves back', () => {
    const cache = new RowCache();
    cache.set('A', 'a', row('a'), 1);
    cache.set('A', 'b', row('b'), 1);
    assert.equal(cache.get('A', 'a', 2), undefined);
    assert.equal(cache.get('A', 'b', 1), undefined, 'a row of epoch 1 does not survive a look at epoch 2');
    cache.set('A', 'c', row('c'), 3);
    assert.equal(cache.get('A', 'c', 3)?.objectId, 'c');
    assert.equal(cache.get('A', 'c', 4), undefined);
  });

  it('keeps the last row set for an id', () => {
    const cache = new RowCache();
    cache.set('A', 'a', row('a', '{"v":1}'), 1);
    cache.set('A', 'a', row('a', '{"v":2}'), 1);
    assert.equal(cache.get('A', 'a', 1)?.data, '{"v":2}');
  });

  it('starts all caches of the process again empty past its bound on document text', () => {
    const first = new RowCache();
    const second = new RowCache();
    first.set('A', 'a', row('a'), 1);
    const large = '"' + 'x'.repeat(8 * 1024 * 1024) + '"';
    for (let i = 0; i < 4; i++) second.set('B', `big${i}`, row(`big${i}`, large), 1);
    assert.equal(first.get('A', 'a', 1)?.objectId, 'a', 'under the bound, nothing is dropped');
    second.set('B', 'over', row('over', large), 1);
    assert.equal(first.get('A', 'a', 1), undefined, 'another app’s rows went too');
    assert.equal(second.get('B', 'big0', 1), undefined);
    assert.equal(second.get('B', 'over', 1)?.objectId, 'over', 'the row being kept is kept');
  });
});
