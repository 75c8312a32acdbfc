import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { AppStore, ObjectWrite } from '../../storage/port.ts';
import type { SchemaService } from '../../schema/service.ts';
import { WriteHooks } from './hooks.ts';
import { INTERNAL, writeCreate } from './pipeline.ts';

const WRITE: ObjectWrite = { object: { objectId: 'o1', createdAt: 't', updatedAt: 't', data: { n: 1 }, rperm: ['*'], wperm: ['*'] }, relations: [] };

it('an unobserved create is the store\'s own insert, with the write\'s steps handed over unchanged', async () => {
  const log: string[] = [];
  const seen: ObjectWrite[] = [];
  const store = { async insert(className: string, write: ObjectWrite) { log.push(`store.insert ${className}`); seen.push(write); } } as unknown as AppStore;
  const step = async () => {};
  const write: ObjectWrite = { ...WRITE, steps: [step] };
  await writeCreate({ store, schemas: {} as SchemaService, hooks: new WriteHooks() }, INTERNAL, { className: 'Game', write });
  assert.deepEqual(log, ['store.insert Game']);
  assert.equal(seen[0]!.steps![0], step);
});

it('an observed create hands the store the steps with the observers\' changes laid over the object', async () => {
  const seen: ObjectWrite[] = [];
  const store = { async insert(_className: string, write: ObjectWrite) { seen.push(write); } } as unknown as AppStore;
  const hooks = new WriteHooks();
  hooks.on('beforeSave', 'Game', (request) => { (request.object as Record<string, unknown>).n = 2; });
  const step = async () => {};
  await writeCreate({ store, schemas: { ensureFields: async () => {} } as unknown as SchemaService, hooks }, INTERNAL, { className: 'Game', write: { ...WRITE, steps: [step] } });
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.steps![0], step);
  assert.equal(seen[0]!.object.data.n, 2);
});
