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
 * A push across processes (docs/push.md, "The pipeline"). The server is killed with SIGKILL in
 * the middle of a push and a new one on the same database finishes it: every device is reached,
 * the counters count each device once, and only pages open when the process died are sent again.
 * On PostgreSQL, two processes share the pages of one push. Each test starts its own processes,
 * whose networks take 100 ms a send (PUSH_SLOW_MS), in pages of 100.
 */

const DEVICES = 2000;
const PAGE = 100;
const WORKERS = 4;
const ARGS = ['--test-push-networks', 'test/helpers/push-networks.ts'];

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`push across processes [${backend}]`, () => {
    const cleanup: (() => Promise<void> | void)[] = [];
    after(async () => {
      for (const step of cleanup.reverse()) await step();
    });

    /** A database, a delivery log, and the environment of servers on them. */
    async function setUp(): Promise<{ env: Record<string, string>; deliveries: (id: string) => Delivery[] }> {
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
        BASALT_QUEUE_CONCURRENCY: String(WORKERS),
        BASALT_QUEUE_LEASE_TIME: '1000',
        BASALT_QUEUE_SWEEP_INTERVAL: '200',
      };
      if (backend === 'postgres') {
        const db = await tempDatabase();
        cleanup.push(() => db.drop());
        env.BASALT_DATABASE_URL = db.url;
      }
      const deliveries = (id: string) =>
        readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Delivery)
          .filter((delivery) => delivery.pushStatusId === id);
      return { env, deliveries };
    }

    async function server(env: Record<string, string>): Promise<Started> {
      const started = await start(env, ARGS);
      cleanup.push(async () => void (await stop(started)));
      return started;
    }

    async function audience(app: AppClient): Promise<void> {
      const requests = Array.from({ length: DEVICES }, (_, i) => ({ method: 'POST', path: '/1/installations', body: { deviceType: 'android', installationId: randomUUID(), deviceToken: `device-${i}`, channels: ['All'] } }));
      for (let i = 0; i < DEVICES; i += 50) assert.equal((await app.post('/1/batch', { requests: requests.slice(i, i + 50) })).status, 200);
    }

    function assertEveryDevice(status: Record<string, any>, delivered: Delivery[], resent: number): string[] {
      assert.equal(status.status, 'succeeded');
      assert.equal(status.numSent, DEVICES);
      assert.deepEqual(status.sentPerType, { android: DEVICES });
      const sent = delivered.flatMap((delivery) => delivery.devices.map((device) => device.deviceToken));
      assert.equal(new Set(sent).size, DEVICES, 'every device was reached');
      assert.ok(sent.length <= DEVICES + resent, `${sent.length - DEVICES} devices were sent twice; at most ${resent} may be`);
      return sent;
    }

    it(`a push of ${DEVICES} devices killed mid-way resumes on a new process from its recorded pages`, { timeout: 300_000 }, async () => {
      const { env, deliveries } = await setUp();
      const first = await server(env);
      const created = await newApp({ backend, url: first.url });
      await audience(created);
      const { response, id } = await push(created, { channels: ['All'], data: { alert: 'resume' } });
      assert.equal(response.status, 200, response.text);
      for (const deadline = Date.now() + 120_000; deliveries(id).length < 3; ) {
        if (Date.now() > deadline) assert.fail('the push never got going');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      first.child.kill('SIGKILL');
      await first.exited();
      assert.ok(deliveries(id).length < DEVICES / PAGE, 'the process died before the push ended');

      const second = await server(env);
      const status = await finished(new AppClient({ backend, url: second.url }, created.app), id);
      // Only the pages open (being sent) when the process died may be sent again: one per worker.
      assertEveryDevice(status, deliveries(id), WORKERS * PAGE);
    });

    if (backend === 'postgres') {
      it('two processes on one database share the pages of one push, each device once', { timeout: 300_000 }, async () => {
        const { env, deliveries } = await setUp();
        const one = await server(env);
        const two = await server(env);
        const created = await newApp({ backend, url: one.url });
        await audience(created);
        const { id, response } = await push(created, { channels: ['All'], data: { alert: 'shared' } });
        assert.equal(response.status, 200, response.text);
        const status = await finished(new AppClient({ backend, url: two.url }, created.app), id);
        const delivered = deliveries(id);
        assertEveryDevice(status, delivered, 0);
        assert.deepEqual(new Set(delivered.map((delivery) => delivery.pid)), new Set([one.child.pid, two.child.pid]));
      });
    }
  });
}
