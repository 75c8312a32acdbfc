import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppClient, newApp } from '../helpers/client.ts';
import { start, stop, tempDatabase, tempDir, type Started } from '../helpers/process.ts';
import { ADMIN } from '../helpers/targets.ts';
import { finished, push, type Delivery } from '../helpers/push.ts';

/**
 * A push survives the death of the process sending it (docs/push.md, "The pipeline"): the
 * server is killed with SIGKILL in the middle of a push, a new one on the same database finishes
 * it, every device is reached, the counters count each device once, and at most the page that
 * was being sent when the process died is sent again. Each backend gets processes of its own.
 */

const DEVICES = 2000;
const PAGE = 100;

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`push after a crash [${backend}]`, () => {
    const cleanup: (() => Promise<void> | void)[] = [];
    after(async () => {
      for (const step of cleanup.reverse()) await step();
    });

    it(`a push of ${DEVICES} devices killed mid-way resumes from its last recorded page`, { timeout: 300_000 }, async () => {
      const dir = tempDir();
      cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
      const log = join(dir, 'deliveries.jsonl');
      writeFileSync(log, '');
      const env: Record<string, string> = {
        BASALT_DATA_DIR: dir,
        BASALT_ADMIN_EMAIL: ADMIN.email,
        BASALT_ADMIN_PASSWORD: ADMIN.password,
        PUSH_LOG: log,
        PUSH_SLOW_MS: '100',
        BASALT_PUSH_PAGE_SIZE: String(PAGE),
        BASALT_QUEUE_LEASE_TIME: '1000',
        BASALT_QUEUE_SWEEP_INTERVAL: '200',
      };
      if (backend === 'postgres') {
        const db = await tempDatabase();
        cleanup.push(() => db.drop());
        env.BASALT_DATABASE_URL = db.url;
      }
      const args = ['--test-push-networks', 'test/helpers/push-networks.ts'];
      let server: Started = await start(env, args);
      cleanup.push(async () => void (await stop(server)));
      const created = await newApp({ backend, url: server.url });
      const requests = Array.from({ length: DEVICES }, (_, i) => ({ method: 'POST', path: '/1/installations', body: { deviceType: 'android', installationId: randomUUID(), deviceToken: `resume-${i}`, channels: ['All'] } }));
      for (let i = 0; i < DEVICES; i += 50) assert.equal((await created.post('/1/batch', { requests: requests.slice(i, i + 50) })).status, 200);
      const { response, id } = await push(created, { channels: ['All'], data: { alert: 'resume' } });
      assert.equal(response.status, 200, response.text);

      const deliveries = () =>
        readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Delivery)
          .filter((delivery) => delivery.pushStatusId === id);
      for (const deadline = Date.now() + 120_000; deliveries().length < 3; ) {
        if (Date.now() > deadline) assert.fail('the push never got going');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      server.child.kill('SIGKILL');
      await server.exited();
      const before = deliveries().length;
      assert.ok(before < DEVICES / PAGE, 'the process died before the push ended');

      server = await start(env, args);
      const app = new AppClient({ backend, url: server.url }, created.app);
      const status = await finished(app, id);
      assert.equal(status.status, 'succeeded');
      assert.equal(status.numSent, DEVICES);
      assert.deepEqual(status.sentPerType, { android: DEVICES });
      const sent = deliveries().flatMap((delivery) => delivery.devices.map((device) => device.deviceToken));
      assert.equal(new Set(sent).size, DEVICES, 'every device was reached');
      assert.ok(sent.length <= DEVICES + PAGE, `at most one page was sent twice (${sent.length - DEVICES} devices were)`);
    });
  });
}
