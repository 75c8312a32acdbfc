import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { SchemaStore } from '../storage/port.ts';
import { SchemaService } from './service.ts';
import type { ClassSchema } from './types.ts';

/** A schema store whose loads the test answers one by one, to order them against invalidations. */
function heldStore(stored: Set<string> = new Set()) {
  const loads: Array<(list: ClassSchema[]) => void> = [];
  const store: SchemaStore = {
    loadAll: () => new Promise<ClassSchema[]>((resolve) => loads.push(resolve)),
    has: async (className) => stored.has(className),
    load: () => Promise.reject(new Error('not used')),
    change: () => Promise.reject(new Error('not used')),
    drop: () => Promise.reject(new Error('not used')),
    purge: () => Promise.reject(new Error('not used')),
    countObjects: () => Promise.reject(new Error('not used')),
    buildIndexOnline: () => Promise.reject(new Error('not used')),
    buildReaderIndexesOnline: () => Promise.reject(new Error('not used')),
    indexScans: () => Promise.reject(new Error('not used')),
  };
  return { store, loads };
}

const schema = (className: string, version: number) => ({ className, fields: { v: { type: 'Number' } }, version }) as unknown as ClassSchema;

describe('SchemaService.loaded', () => {
  it('answers only once the cache has loaded, and only for classes it holds', async () => {
    const { store, loads } = heldStore();
    const schemas = new SchemaService(store, async () => {});
    assert.equal(schemas.loaded('A'), undefined);
    const reading = schemas.get('A');
    assert.equal(schemas.loaded('A'), undefined);
    loads[0]!([schema('A', 1)]);
    assert.deepEqual(await reading, schema('A', 1));
    assert.deepEqual(schemas.loaded('A'), schema('A', 1));
    assert.equal(schemas.loaded('B'), undefined);
  });

  it('forgets on invalidation, and a load that an invalidation overtook never becomes the cache', async () => {
    const { store, loads } = heldStore();
    const schemas = new SchemaService(store, async () => {});
    const first = schemas.get('A');
    loads[0]!([schema('A', 1)]);
    await first;
    schemas.invalidate();
    assert.equal(schemas.loaded('A'), undefined);
    const overtaken = schemas.get('A');
    schemas.invalidate();
    loads[1]!([schema('A', 2)]);
    // The read that started it still gets its answer; later reads do not get it without waiting.
    assert.deepEqual(await overtaken, schema('A', 2));
    assert.equal(schemas.loaded('A'), undefined);
    const fresh = schemas.get('A');
    assert.equal(loads.length, 3);
    loads[2]!([schema('A', 3)]);
    assert.deepEqual(await fresh, schema('A', 3));
    assert.deepEqual(schemas.loaded('A'), schema('A', 3));
  });
});

describe('SchemaService.get of a class the cache does not hold', () => {
  it('asks the store, and reloads when another process has made the class since the cache loaded', async () => {
    const stored = new Set<string>();
    const { store, loads } = heldStore(stored);
    const schemas = new SchemaService(store, async () => {});
    const first = schemas.get('A');
    loads[0]!([]);
    assert.equal(await first, null);
    assert.equal(loads.length, 1, 'a class that is nowhere reloads nothing');
    stored.add('A');
    const second = schemas.get('A');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(loads.length, 2, 'a class the store has reloads the cache');
    loads[1]!([schema('A', 1)]);
    assert.deepEqual(await second, schema('A', 1));
  });
});
