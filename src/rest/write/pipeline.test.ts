import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { AppStore, ObjectWrite } from '../../storage/port.ts';
import type { SchemaService } from '../../schema/service.ts';
import { WriteHooks, type FollowUpItem } from './hooks.ts';
import { INTERNAL, writeCreate, type WriteTarget } from './pipeline.ts';

/** A store that records what runs where: on itself or on the unit of work it hands out. */
function recordingStore(log: string[], name = 'store'): AppStore {
  const store = {
    async insert(className: string) {
      log.push(`${name}.insert ${className}`);
    },
    async unitOfWork<T>(fn: (unit: AppStore) => Promise<T>): Promise<T> {
      log.push('begin');
      const result = await fn(recordingStore(log, 'unit'));
      log.push('commit');
      return result;
    },
  };
  return store as unknown as AppStore;
}

const WRITE: ObjectWrite = { object: { objectId: 'o1', createdAt: 't', updatedAt: 't', data: { n: 1 }, rperm: ['*'], wperm: ['*'] }, relations: [] };

function target(log: string[], hooks: WriteHooks): WriteTarget {
  return { store: recordingStore(log), schemas: {} as SchemaService, hooks };
}

it('without follow-up work, the store writes on its own', async () => {
  const log: string[] = [];
  await writeCreate(target(log, new WriteHooks()), INTERNAL, { className: 'Game', write: WRITE });
  assert.deepEqual(log, ['store.insert Game']);
});

it('follow-up items are handed to the queue inside the write\'s own unit of work', async () => {
  const log: string[] = [];
  const hooks = new WriteHooks();
  const items: FollowUpItem[] = [{ kind: 'mail', payload: { to: 'a@example.com' } }];
  hooks.onFollowUps(async (unit, given) => {
    await unit.insert('_Job', WRITE);
    log.push(`enqueue ${given.map((item) => item.kind).join()}`);
  });
  await writeCreate(target(log, hooks), INTERNAL, { className: 'Game', write: WRITE, followUps: items });
  assert.deepEqual(log, ['begin', 'unit.insert Game', 'unit.insert _Job', 'enqueue mail', 'commit']);
});

it('a write asking for follow-up work with no queue registered is refused before it writes', async () => {
  const log: string[] = [];
  await assert.rejects(writeCreate(target(log, new WriteHooks()), INTERNAL, { className: 'Game', write: WRITE, followUps: [{ kind: 'mail', payload: {} }] }), { code: 1 });
  assert.deepEqual(log, []);
});
