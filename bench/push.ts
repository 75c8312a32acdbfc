/**
 * The push suite: one push to every installation of an app, at growing audience sizes, on a
 * Basalt server of its own whose delivery networks answer at once (bench/push-networks.mjs), so
 * the numbers are the pipeline's: keyset pages, queue jobs, status updates. Installations
 * (mixed ios, android and web, in several time zones) are created through POST /1/batch up to
 * each size in turn, then `POST /1/push {"where": {}}` is timed until its `_PushStatus` ends,
 * polled every 20 ms, while the server's resident memory is sampled.
 *
 *   BENCH_PUSH_SIZES   comma list of audience sizes, ascending (default 20000,100000)
 */
import { resolve } from 'node:path';
import { APP, ROOT, rssMb, startBasalt, type Cleanup } from './servers.ts';

const BATCH = 50;
const SENDERS = 4;
const TYPES = ['ios', 'android', 'web'];
const ZONES = ['Europe/Paris', 'America/New_York', 'Asia/Tokyo', 'Australia/Sydney', 'America/Sao_Paulo'];

export interface PushResult {
  readonly server: string;
  readonly devices: number;
  /** From the POST to the first devices counted as sent, and to the push's end. */
  readonly firstMs: number;
  readonly lastMs: number;
  readonly perSec: number;
  readonly idleRssMb: number;
  readonly peakRssMb: number;
}

export function pushSizes(): number[] {
  const sizes = (process.env.BENCH_PUSH_SIZES ?? '20000,100000').split(',').map((size) => Number(size.trim()));
  if (sizes.some((size, i) => !Number.isInteger(size) || size < 1 || (i > 0 && size <= sizes[i - 1]!))) throw new Error('BENCH_PUSH_SIZES must be ascending whole numbers');
  return sizes;
}

export async function runPushSuite(name: string, env: Record<string, string>, cleanups: Cleanup[], log: (message: string) => void): Promise<PushResult[]> {
  const server = await startBasalt(`${name} (push)`, { ...env, BASALT_TEST_PUSH_NETWORKS: resolve(ROOT, 'bench/push-networks.mjs') }, cleanups);
  const headers = { 'Content-Type': 'application/json', 'X-Svc-Application-Id': APP.id, 'X-Svc-Master-Key': APP.masterKey };
  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any; headers: Headers }> => {
    const response = await fetch(`${server.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: response.status, body: await response.json(), headers: response.headers };
  };
  const results: PushResult[] = [];
  let seeded = 0;
  try {
    for (const size of pushSizes()) {
      log(`push: creating installations up to ${size.toLocaleString('en-US')}`);
      let next = seeded;
      await Promise.all(
        Array.from({ length: SENDERS }, async () => {
          while (next < size) {
            const from = next;
            next = Math.min(size, next + BATCH);
            const requests = Array.from({ length: next - from }, (_, k) => {
              const i = from + k;
              return { method: 'POST', path: '/1/installations', body: { installationId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, deviceType: TYPES[i % TYPES.length], deviceToken: `bench-${i}`, timeZone: ZONES[i % ZONES.length] } };
            });
            const created = await call('POST', '/1/batch', { requests });
            if (created.status !== 200) throw new Error(`seeding: ${created.status} ${JSON.stringify(created.body).slice(0, 200)}`);
          }
        }),
      );
      seeded = size;
      const idleRssMb = rssMb(server.pid);
      log(`push: sending to ${size.toLocaleString('en-US')}`);
      const started = performance.now();
      const sent = await call('POST', '/1/push', { where: {}, data: { alert: 'bench' } });
      const id = sent.headers.get('x-svc-push-status-id');
      if (sent.status !== 200 || !id) throw new Error(`push: ${sent.status} ${JSON.stringify(sent.body)}`);
      let firstMs = NaN;
      let peakRssMb = idleRssMb;
      for (const deadline = Date.now() + 1_800_000; ; ) {
        server.assertAlive();
        peakRssMb = Math.max(peakRssMb, rssMb(server.pid));
        const status = (await call('GET', `/1/classes/_PushStatus/${id}`)).body as { status: string; numSent: number; numFailed: number };
        if (Number.isNaN(firstMs) && status.numSent + status.numFailed > 0) firstMs = performance.now() - started;
        if (status.status === 'succeeded' || status.status === 'failed') {
          if (status.numSent !== size) throw new Error(`push: ${status.numSent} of ${size} sent (${status.status})`);
          break;
        }
        if (Date.now() > deadline) throw new Error(`push: still ${status.status} after 30 minutes`);
        await new Promise((done) => setTimeout(done, 20));
      }
      const lastMs = performance.now() - started;
      results.push({ server: name, devices: size, firstMs, lastMs, perSec: size / (lastMs / 1000), idleRssMb, peakRssMb });
      log(`push: ${pushNotes(results.slice(-1))[0]}`);
    }
    return results;
  } finally {
    await server.stop();
  }
}

/** The suite's lines of the report. */
export function pushNotes(results: readonly PushResult[]): string[] {
  const n = (value: number) => Math.round(value).toLocaleString('en-US');
  return results.map(
    (r) =>
      `Push, ${r.server}, ${n(r.devices)} installations: ${n(r.perSec)} notifications/s end to end; POST to first delivery ${n(r.firstMs)} ms, ` +
      `to the last ${n(r.lastMs)} ms; server RSS ${n(r.idleRssMb)} MB before, ${n(r.peakRssMb)} MB at most during the push.`,
  );
}
