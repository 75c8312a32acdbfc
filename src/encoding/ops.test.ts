import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseFieldOp } from './ops.ts';

// Relation membership is not readable over HTTP until $relatedTo exists, so the way a Batch
// folds its parts into one change is checked here, on the parsed operation itself.
describe('relation Batch operations', () => {
  const pointer = (objectId: string) => ({ __type: 'Pointer', className: 'Member', objectId });
  const batch = (...ops: unknown[]) => parseFieldOp('members', { __op: 'Batch', ops });

  it('applies its parts in order: the last part naming an id decides', () => {
    const addThenRemove = batch({ __op: 'AddRelation', objects: [pointer('a'), pointer('b')] }, { __op: 'RemoveRelation', objects: [pointer('a')] });
    assert.deepEqual(addThenRemove.op, { kind: 'relation', targetClass: 'Member', add: ['b'], remove: ['a'] });
    const removeThenAdd = batch({ __op: 'RemoveRelation', objects: [pointer('a')] }, { __op: 'AddRelation', objects: [pointer('a')] });
    assert.deepEqual(removeThenAdd.op, { kind: 'relation', targetClass: 'Member', add: ['a'], remove: [] });
    assert.deepEqual(removeThenAdd.type, { type: 'Relation', targetClass: 'Member' });
  });

  it('names each id once even when parts repeat it', () => {
    const repeated = batch({ __op: 'AddRelation', objects: [pointer('a'), pointer('a')] }, { __op: 'AddRelation', objects: [pointer('a'), pointer('c')] });
    assert.deepEqual(repeated.op, { kind: 'relation', targetClass: 'Member', add: ['a', 'c'], remove: [] });
  });
});
