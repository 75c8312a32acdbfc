import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { StoredObject } from '../storage/port.ts';
import { claimPage, DONE, expireBatch, NEW_BATCH, recordPage, recordRetry } from './status.ts';

const status = (data: Record<string, unknown>): StoredObject => ({ objectId: 'p1', createdAt: 'c', updatedAt: 'u', rperm: [], wperm: [], data: { status: 'pending', numSent: 0, numFailed: 0, sentPerType: {}, failedPerType: {}, ...data } });
const page = (sent: Record<string, number>, failed: Record<string, number> = {}, errors: string[] = [], offset: string | null = null) => ({ sentPerType: sent, failedPerType: failed, errors, offset });

describe('_PushStatus pages', () => {
  it('claims a page once and records it once: a job run twice neither reads past nor counts twice', () => {
    const start = status({ checkpoints: { all: NEW_BATCH } });
    const claimed = claimPage(start, 'all', '', 'obj9', true, 0)!;
    assert.deepEqual(claimed.data.checkpoints, { all: { read: 'obj9', open: { '': 'obj9' } } });
    assert.equal(claimed.data.status, 'running');
    assert.equal(claimPage(claimed, 'all', '', 'obj9', true, 0), null);
    // The next page is claimed while the first is still being sent.
    const second = claimPage(claimed, 'all', 'obj9', 'objZ', false, 0)!;
    assert.deepEqual(second.data.checkpoints, { all: { read: DONE, open: { '': 'obj9', obj9: 'objZ' } } });
    const first = recordPage(second, 'all', '', page({ ios: 2 }, { android: 1 }, ['no FCM']), 0)!;
    assert.equal(first.data.status, 'running');
    assert.equal(first.data.numSent, 2);
    assert.equal(first.data.numFailed, 1);
    assert.equal(recordPage(first, 'all', '', page({ ios: 2 }), 0), null);
    const last = recordPage(first, 'all', 'obj9', page({ ios: 1 }, {}, ['no FCM']), 0)!;
    assert.equal(last.data.status, 'succeeded');
    assert.deepEqual(last.data.sentPerType, { ios: 3 });
    assert.equal(last.data.errorMessage, 'no FCM');
  });

  it('an empty last page ends the batch; the push ends when every batch has', () => {
    const start = status({ checkpoints: { '1': NEW_BATCH, '-5': NEW_BATCH }, sentPerUTCOffset: {}, failedPerUTCOffset: {} });
    const one = claimPage(start, '1', '', 'a', false, 0)!;
    const sent = recordPage(one, '1', '', page({}, { ios: 1 }, ['no APNs'], '1'), 0)!;
    assert.equal(sent.data.status, 'running');
    assert.deepEqual(sent.data.failedPerUTCOffset, { '1': 1 });
    const two = claimPage(sent, '-5', '', null, false, 0)!;
    // Nothing was sent and something failed.
    assert.equal(two.data.status, 'failed');
    assert.equal(claimPage(two, '-5', '', null, false, 0), null);
  });

  it('an expired batch reads no more pages and says why; a canceled push takes no page', () => {
    const expired = expireBatch(status({ checkpoints: { all: NEW_BATCH } }), 'all', '', page({}, {}, ['expired']), 0)!;
    assert.equal(expired.data.status, 'failed');
    assert.equal(expired.data.errorMessage, 'expired');
    assert.equal(claimPage(status({ status: 'canceled', checkpoints: { all: NEW_BATCH } }), 'all', '', 'a', true, 0), null);
    assert.equal(recordPage(status({ status: 'canceled', checkpoints: { all: { read: 'a', open: { '': 'a' } } } }), 'all', '', page({ ios: 1 }), 0), null);
  });

  it('devices left to retry keep the push running; each attempt is recorded once and counts them once', () => {
    const claimed = claimPage(status({ checkpoints: { all: NEW_BATCH } }), 'all', '', 'obj9', false, 0)!;
    const sent = recordPage(claimed, 'all', '', page({ android: 3 }), 0, { ids: ['a', 'b'], attempt: 2 })!;
    assert.deepEqual(sent.data.checkpoints, { all: { read: DONE, open: {}, retry: { '': { ids: ['a', 'b'], attempt: 2 } } } });
    assert.equal(sent.data.status, 'running');
    assert.equal(sent.data.numSent, 3);
    // The second attempt sends one; the other is left for the third.
    const second = recordRetry(sent, 'all', '', 2, page({ ios: 1 }), 0, { ids: ['b'], attempt: 3 })!;
    assert.equal(second.data.status, 'running');
    assert.equal(recordRetry(second, 'all', '', 2, page({ ios: 1 }), 0, null), null);
    const third = recordRetry(second, 'all', '', 3, page({}, { ios: 1 }, ['apns: 503']), 0, null)!;
    assert.deepEqual(third.data.checkpoints, { all: { read: DONE, open: {} } });
    assert.equal(third.data.status, 'succeeded');
    assert.deepEqual([third.data.numSent, third.data.numFailed], [4, 1]);
    assert.deepEqual(third.data.sentPerType, { android: 3, ios: 1 });
    assert.equal(recordRetry(third, 'all', '', 3, page({ ios: 1 }), 0, null), null);
  });
});
