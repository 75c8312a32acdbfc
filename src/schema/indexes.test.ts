import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { ClassSchema } from './types.ts';
import { storedReading } from './indexes.ts';

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

it('a stored column leads an index only where that index has a reader index on record', () => {
  const withReaders: ClassSchema = { ...base, readerIndexes: ['byScore', 'byNameScore'] };
  assert.deepEqual(storedReading(withReaders, ['score'], 'number'), { column: 'f.score', as: 'number', publicColumn: true, leadsIndex: true });
  assert.deepEqual(storedReading(withReaders, ['name'], 'text'), { column: 'f.name', as: 'text', publicColumn: true, leadsIndex: true });
  // byScore made by a process that keeps no reader indexes: score leads no index with one, though it
  // is the second key of one that has.
  const older: ClassSchema = { ...base, readerIndexes: ['byNameScore'] };
  assert.deepEqual(storedReading(older, ['score'], 'number'), { column: 'f.score', as: 'number', publicColumn: true });
  assert.deepEqual(storedReading({ ...base }, ['name'], 'text'), { column: 'f.name', as: 'text', publicColumn: true });
  assert.equal(storedReading(withReaders, ['score'], 'text'), null);
});
