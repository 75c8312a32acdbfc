import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { StoredObject } from '../storage/port.ts';
import { DONE, recordPage } from './status.ts';

const status = (data: Record<string, unknown>): StoredObject => ({ objectId: 'p1', createdAt: 'c', updatedAt: 'u', rperm: [], wperm: [], data: { status: 'pending', numSent: 0, numFailed: 0, sentPerType: {}, failedPerType: {}, ...data } });

describe('_PushStatus counters', () => {
  it('adds a page once: a second record from the same checkpoint changes nothing', () => {
    const start = status({ checkpoints: { all: '' } });
    const page = { sentPerType: { ios: 2 }, failedPerType: { android: 1 }, errors: ['no FCM'], offset: null };
    const first = recordPage(start, 'all', '', 'obj9', page, 0)!;
    assert.deepEqual(first.data.checkpoints, { all: 'obj9' });
    assert.equal(first.data.status, 'running');
    assert.equal(first.data.numSent, 2);
    assert.equal(first.data.numFailed, 1);
    assert.equal(recordPage(first, 'all', '', 'obj9', page, 0), null);
    const last = recordPage(first, 'all', 'obj9', DONE, { sentPerType: { ios: 1 }, failedPerType: {}, errors: ['no FCM'], offset: null }, 0)!;
    assert.equal(last.data.status, 'succeeded');
    assert.deepEqual(last.data.sentPerType, { ios: 3 });
    assert.equal(last.data.errorMessage, 'no FCM');
  });

  it('ends only when every batch is done; failed when nothing was sent and something went wrong', () => {
    const start = status({ checkpoints: { '1': '', '-5': '' }, sentPerUTCOffset: {}, failedPerUTCOffset: {} });
    const one = recordPage(start, '1', '', DONE, { sentPerType: {}, failedPerType: { ios: 1 }, errors: ['no APNs'], offset: '1' }, 0)!;
    assert.equal(one.data.status, 'running');
    assert.deepEqual(one.data.failedPerUTCOffset, { '1': 1 });
    const two = recordPage(one, '-5', '', DONE, { sentPerType: {}, failedPerType: {}, errors: [], offset: '-5' }, 0)!;
    assert.equal(two.data.status, 'failed');
    assert.equal(recordPage(two, '-5', DONE, DONE, { sentPerType: {}, failedPerType: {}, errors: [], offset: null }, 0), null);
  });

  it('a canceled push records nothing more', () => {
    assert.equal(recordPage(status({ status: 'canceled', checkpoints: { all: '' } }), 'all', '', DONE, { sentPerType: { ios: 1 }, failedPerType: {}, errors: [], offset: null }, 0), null);
  });
});
