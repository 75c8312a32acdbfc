/**
 * The queue suite: no-op jobs (`noop`, ms 0) through the durable job queue of one Basalt server,
 * started for this suite with debug logs, whose "job started" and "job done" lines say when each
 * job ran and how long after it was due (`lateMs`; for a first attempt, from the enqueuing
 * transaction to the start). Two phases:
 *
 * - burst: QUEUE_BURST jobs enqueued as fast as the API takes them (POST /1/queue/jobs with 100
 *   jobs per request, 4 requests at a time) while the workers run them; jobs/s enqueued, and run
 *   (from the first request to the last job done).
 * - paced: QUEUE_PACED jobs, one per request, at QUEUE_RATE a second (far below what the queue
 *   runs): the time from enqueue to start, p50 and p99, of a queue that is not behind.
 */
import { APP, startBasalt, type Cleanup } from './servers.ts';

const BURST = 20_000;
const BATCH = 100;
const ENQUEUERS = 4;
const PACED = 2_000;
const RATE = 200;

interface JobLine {
  readonly msg: string;
  readonly jobId?: string;
  readonly attempt?: number;
  readonly lateMs?: number;
}

export interface QueueResult {
  readonly server: string;
  readonly enqueuedPerSec: number;
  readonly ranPerSec: number;
  readonly burstP50Ms: number;
  readonly burstP99Ms: number;
  readonly pacedP50Ms: number;
  readonly pacedP99Ms: number;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function runQueueSuite(name: string, env: Record<string, string>, cleanups: Cleanup[], log: (message: string) => void): Promise<QueueResult> {
  const late = new Map<string, number>();
  let done = 0;
  let lastDoneAt = 0;
  let partial = '';
  const onOutput = (text: string) => {
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('{"level":20')) continue;
      const entry = JSON.parse(line) as JobLine;
      if (entry.msg === 'job started' && entry.attempt === 1) late.set(entry.jobId!, entry.lateMs!);
      else if (entry.msg === 'job done') {
        done += 1;
        lastDoneAt = performance.now();
      }
    }
  };
  const server = await startBasalt(`${name} (queue)`, env, cleanups, [], { logLevel: 'debug', onOutput });
  const headers = { 'Content-Type': 'application/json', 'X-Svc-Application-Id': APP.id, 'X-Svc-Master-Key': APP.masterKey };
  const enqueue = async (count: number): Promise<string[]> => {
    const response = await fetch(`${server.url}/1/queue/jobs`, { method: 'POST', headers, body: JSON.stringify({ type: 'noop', payload: { ms: 0 }, count }) });
    if (response.status !== 201) throw new Error(`enqueue: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { objectIds: string[] }).objectIds;
  };
  const allDone = async (count: number) => {
    const deadline = Date.now() + 300_000;
    while (done < count) {
      server.assertAlive();
      if (Date.now() > deadline) throw new Error(`queue suite: ${done} of ${count} jobs done after 5 minutes`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  try {
    // A few jobs first, so the JIT and the statement caches are warm.
    await enqueue(BATCH);
    await allDone(BATCH);

    log(`queue burst: ${BURST} jobs`);
    const before = done;
    const burstIds: string[] = [];
    let left = BURST / BATCH;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: ENQUEUERS }, async () => {
        while (left > 0) {
          left -= 1;
          burstIds.push(...(await enqueue(BATCH)));
        }
      }),
    );
    const enqueuedAt = performance.now();
    await allDone(before + BURST);
    const burstDoneAt = lastDoneAt;
    const burstLate = burstIds.map((id) => late.get(id) ?? NaN).filter(Number.isFinite).sort((a, b) => a - b);

    log(`queue paced: ${PACED} jobs at ${RATE}/s`);
    const pacedIds: string[] = [];
    const pacedStart = performance.now();
    for (let i = 0; i < PACED; i++) {
      const due = pacedStart + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      pacedIds.push(...(await enqueue(1)));
    }
    await allDone(before + BURST + PACED);
    const pacedLate = pacedIds.map((id) => late.get(id) ?? NaN).filter(Number.isFinite).sort((a, b) => a - b);

    return {
      server: name,
      enqueuedPerSec: BURST / ((enqueuedAt - started) / 1000),
      ranPerSec: BURST / ((burstDoneAt - started) / 1000),
      burstP50Ms: percentile(burstLate, 50),
      burstP99Ms: percentile(burstLate, 99),
      pacedP50Ms: percentile(pacedLate, 50),
      pacedP99Ms: percentile(pacedLate, 99),
    };
  } finally {
    await server.stop();
  }
}

/** The suite's lines of the report. */
export function queueNotes(results: readonly QueueResult[]): string[] {
  const n = (value: number) => Math.round(value).toLocaleString('en-US');
  return results.map(
    (r) =>
      `Queue, ${r.server}: ${BURST.toLocaleString('en-US')} no-op jobs enqueued at ${n(r.enqueuedPerSec)} jobs/s (${BATCH} a request, ${ENQUEUERS} at a time) and run at ${n(r.ranPerSec)} jobs/s ` +
      `(enqueue to start p50 ${n(r.burstP50Ms)} ms, p99 ${n(r.burstP99Ms)} ms, behind the burst); ` +
      `one job a request at ${RATE}/s: enqueue to start p50 ${n(r.pacedP50Ms)} ms, p99 ${n(r.pacedP99Ms)} ms.`,
  );
}
