import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AppClient } from '../helpers/client.ts';
import { cloudServer } from '../helpers/cloud.ts';

/**
 * Isolation of cloud code (docs/cloud-code.md "Limits"): a call that never returns, runs out of
 * memory, calls process.exit or whose trigger throws fails alone, with 141 and the reason; the
 * app's worker is restarted and its next call works; another app's code never notices. The
 * server runs with a 3 s time limit and a 64 MB heap per worker (test/fixtures/cloud/unruly).
 */

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`cloud isolation [${backend}]`, () => {
    // A time limit well above what running out of memory takes on a busy machine, so the two never race.
    const cloud = cloudServer(backend, { BASALT_METRICS: 'true', BASALT_CLOUD_TIMEOUT: '3000' });
    let unruly: AppClient;
    let calm: AppClient;

    before(async () => {
      unruly = await cloud().appWithCode('unruly');
      calm = await cloud().appWithCode('parse-app');
    });

    const restarts = async () => {
      const text = await (await fetch(`${cloud().target.url}/metrics`)).text();
      const line = text.split('\n').find((entry) => entry.startsWith('basalt_worker_restarts_total '));
      return Number(line?.split(' ')[1]);
    };

    /** A failing call: 400, code 141, and a message with the reason; then the app works again and so does the other app. */
    async function failsAlone(name: string, reason: RegExp): Promise<void> {
      const before = await restarts();
      const [failed, other] = await Promise.all([unruly.post(`/1/functions/${name}`, {}), calm.post('/1/functions/hello', {})]);
      assert.equal(failed.status, 400, failed.text);
      assert.equal(failed.body.code, 141, failed.text);
      assert.match(failed.body.error, reason);
      assert.deepEqual(other.body, { result: 'Hello world!' }, 'another app\'s call during the failure');
      assert.deepEqual((await unruly.post('/1/functions/ok', {})).body, { result: 'still here' }, `the call after ${name}`);
      assert.equal(await restarts(), before + 1, 'the worker was restarted once');
    }

    it('a call that never returns fails at the time limit', async () => {
      await failsAlone('spin', /^Cloud code function "spin" did not finish within 3000 ms; the app's worker is restarted$/);
      await failsAlone('hang', /^Cloud code function "hang" did not finish within 3000 ms/);
    });

    it('a call that runs out of memory fails with that reason', async () => {
      await failsAlone('oom', /^Cloud code function "oom" failed: the app's cloud code ran out of memory \(limit 64 MB\)$/);
    });

    it('a call that ends the worker with process.exit fails with that reason', async () => {
      await failsAlone('exit', /^Cloud code function "exit" failed: the app's cloud code called process\.exit\(3\)$/);
    });

    it('an exception thrown outside any call fails the calls in flight, then the worker is back', async () => {
      await failsAlone('crashLater', /^Cloud code function "crashLater" failed: the app's cloud code threw thrown outside any call$/);
    });

    it('a throwing trigger refuses its own write only; the worker stays', async () => {
      const before = await restarts();
      const refused = await unruly.post('/1/classes/Boom', { a: 1 });
      assert.deepEqual(refused.body, { code: 141, error: 'the trigger blew up' });
      assert.deepEqual((await unruly.get('/1/classes/Boom')).body, { results: [] });
      assert.equal((await unruly.post('/1/classes/Calm', { a: 1 })).status, 201);
      assert.equal(await restarts(), before);
    });
  });
}
