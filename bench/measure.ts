/** One workload against one running server: autocannon's load, and the CPU and memory it cost. */
import autocannon from 'autocannon';
import { performance } from 'node:perf_hooks';
import type { Row } from './report.ts';
import { cpuSeconds, machineBusySeconds, rssMb, type RunningServer, type TempDatabase } from './servers.ts';
import type { Prepared, Request, Workload } from './workloads.ts';

export interface LoadSettings {
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
}

let running: autocannon.Instance | undefined;

/** Ends the load in progress, if any, so a signal does not wait out a whole workload. */
export function stopLoad(): void {
  running?.stop();
}

interface Load {
  readonly result: autocannon.Result;
  /** Milliseconds of every 2xx response, unrounded and sorted. */
  readonly latencies: Float64Array;
}

function cannon(url: string, load: Prepared, seconds: number, connections: number): Promise<Load> {
  const latencies: number[] = [];
  const { requests, byConnection } = load;
  // autocannon makes its connections one after another, each calling setupClient once.
  let made = 0;
  const setupClient = byConnection ? (client: autocannon.Client) => client.setRequests(byConnection[made++ % byConnection.length]!) : undefined;
  return new Promise((resolvePromise, reject) => {
    running = autocannon({ url, connections, duration: seconds, requests, ...(setupClient && { setupClient }) }, (error, result) => {
      running = undefined;
      if (error) reject(error);
      else resolvePromise({ result, latencies: Float64Array.from(latencies).sort() });
    });
    // autocannon's percentiles are whole milliseconds, too coarse for a query that takes 2 or 3;
    // like autocannon, only 2xx answers count.
    running.on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) latencies.push(ms);
    });
  });
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! : Number.NaN;
}

/** CPU seconds of several processes, keyed by pid so one that exits mid-run can be left out. */
function cpuOf(pids: readonly number[]): Map<number, number> {
  return new Map(pids.map((pid) => [pid, cpuSeconds(pid)]));
}

function cpuSince(before: Map<number, number>): number {
  let total = 0;
  for (const [pid, start] of before) total += Math.max(0, cpuSeconds(pid) - start);
  return total;
}

export async function measure(server: RunningServer, workload: Workload, prepared: Prepared, load: LoadSettings, database?: TempDatabase): Promise<Row> {
  let itemErrors = 0;
  // A failed command is {"error": {"code", "error"}}; only the outer key opens an object.
  const countItemErrors = (status: number, body: string) => {
    if (status < 300) itemErrors += body.split('"error":{').length - 1;
  };
  const counted = (list: Request[]) => (prepared.countsItemErrors ? list.map((request) => ({ ...request, onResponse: countItemErrors })) : list);
  // Every request that can be sent counts, those of each connection's own list too.
  const sent: Prepared = { requests: counted(prepared.requests), byConnection: prepared.byConnection?.map(counted) };
  if (load.warmupSeconds > 0) await cannon(server.url, sent, load.warmupSeconds, load.connections);
  server.assertAlive();
  itemErrors = 0;
  // The pool is warm after the warm-up, so these are the connections the measured run will use.
  const dbCpu = database ? cpuOf(await database.backendPids()) : undefined;
  const serverCpu = cpuSeconds(server.pid);
  const clientCpu = process.cpuUsage();
  const machineCpu = machineBusySeconds();
  const started = performance.now();
  const { result, latencies } = await cannon(server.url, sent, load.seconds, load.connections);
  const wall = (performance.now() - started) / 1000;
  const client = process.cpuUsage(clientCpu);
  const machine = machineBusySeconds() - machineCpu;
  server.assertAlive();
  const serverUsed = cpuSeconds(server.pid) - serverCpu;
  const dbUsed = dbCpu ? cpuSince(dbCpu) : 0;
  const clientUsed = (client.user + client.system) / 1e6;
  return {
    server: server.name,
    workload: workload.name,
    // The total over the measured time, not autocannon's mean of per-second samples, which
    // drops the partial last second.
    reqPerSec: result.requests.total / result.duration,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    itemErrors: prepared.countsItemErrors ? itemErrors : undefined,
    cpuUsPerRequest: result.requests.total ? ((serverUsed + dbUsed) / result.requests.total) * 1e6 : 0,
    serverCpuPct: (serverUsed / wall) * 100,
    dbCpuPct: dbCpu ? (dbUsed / wall) * 100 : undefined,
    clientCpuPct: (clientUsed / wall) * 100,
    // Kernel work on our behalf (loopback TCP, softirqs) lands here too, so a few percent is normal.
    otherCpuPct: (Math.max(0, machine - serverUsed - dbUsed - clientUsed) / wall) * 100,
    rssAfterMb: rssMb(server.pid),
  };
}
