import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { ClassSchema } from './types.ts';
import { leadsReaderIndex, storedReading } from './indexes.ts';

const base: ClassSchema = {
  className: 'Item',
  fields: { score: { type: 'Number' }, name: { type: 'String' } },
  classLevelPermissions: {},
  indexes: { byScore: { score: -1 }, byNameScore: { name: 1, score: 1 } },
  storedIndexes: {
    byScore: [{ path: ['score'], as: 'number', column: 'f.score' }],
    byNameScore: [
      { path: ['name'], as: 'text', column: 'f.name' },
      { path: ['score'], as: 'number', column: 'f.score' },
    ],
  },
  publicColumn: true,
};

it('a stored column is read for its path and type only, and known to be indexed alone where an index holds only it', () => {
  assert.deepEqual(storedReading(base, ['score'], 'number'), { column: 'f.score', as: 'number', publicColumn: true, indexedAlone: true });
  // name leads byNameScore, whose entries of one name are in score order, not objectId order.
  assert.deepEqual(storedReading(base, ['name'], 'text'), { column: 'f.name', as: 'text', publicColumn: true });
  assert.equal(storedReading(base, ['score'], 'text'), null);
  assert.equal(storedReading(base, ['score'], 'json'), null);
  assert.equal(storedReading({ ...base, storedIndexes: undefined }, ['score'], 'number'), null);
});

it('a field leads a reader index only as the first key of an index that has one on record', () => {
  const withReaders: ClassSchema = { ...base, readerIndexes: ['byScore', 'byNameScore'] };
  assert.equal(leadsReaderIndex(withReaders, 'score'), true);
  assert.equal(leadsReaderIndex(withReaders, 'name'), true);
  // byScore made by a process that keeps no reader indexes: score leads no index with one, though it
  // is the second key of one that has.
  const older: ClassSchema = { ...base, readerIndexes: ['byNameScore'] };
  assert.equal(leadsReaderIndex(older, 'score'), false);
  assert.equal(leadsReaderIndex(older, 'name'), true);
  assert.equal(leadsReaderIndex(base, 'name'), false);
  assert.equal(leadsReaderIndex(null, 'name'), false);
  // SQLite's reader indexes stand beside indexes over expressions: no stored column needed.
  const expressions: ClassSchema = { ...base, storedIndexes: undefined, publicColumn: undefined, readerIndexes: ['byScore'] };
  assert.equal(leadsReaderIndex(expressions, 'score'), true);
  // A name on record whose index went since reads as no index.
  assert.equal(leadsReaderIndex({ ...base, readerIndexes: ['gone'] }, 'score'), false);
});
