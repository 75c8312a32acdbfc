/**
 * What is measured. Each workload names one request shape; `prepare` runs once before the timed
 * part (seeding, warm caches) and the returned requests are what autocannon loops over.
 */
import type autocannon from 'autocannon';
import { APP } from './servers.ts';

export const SEED_OBJECTS = 10_000;
export const BATCH_SIZE = 50;

export type Request = autocannon.Request;

export interface Prepared {
  readonly requests: Request[];
  /**
   * Requests of their own for each connection (connection i loops over the i-th list, modulo
   * their number), in place of `requests`. See spreadOverConnections.
   */
  readonly byConnection?: Request[][];
  /** Batch answers 200 even when commands inside fail; this counts those. */
  readonly countsItemErrors?: boolean;
}

export interface Workload {
  /** What BENCH_WORKLOADS names it by. */
  readonly id: string;
  readonly name: string;
  /** The ceiling workload is the denominator of every ratio. */
  readonly backends: 'ceiling' | 'basalt';
  /**
   * Run only when BENCH_WORKLOADS names it (never in a full run, so the recorded results keep
   * measuring the same servers); they start Basalt with cloud code (bench/cloud/main.js).
   */
  readonly optIn?: boolean;
  /** `connections`: how many the load will open (see Prepared.byConnection). */
  prepare(url: string, connections: number): Promise<Prepared>;
}

export const KEY_HEADERS = {
  'x-svc-application-id': APP.id,
  'x-svc-rest-api-key': APP.restKey,
  'content-type': 'application/json',
};

/** Shaped like a typical small app object: a few scalars, an array, a nested map. */
function sampleObject(n: number): Record<string, unknown> {
  return { name: `item-${n}`, score: n % 100, active: n % 2 === 0, tags: ['bench', `t${n % 7}`], meta: { source: 'bench', rank: n } };
}

async function postJson(url: string, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: KEY_HEADERS, body: JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** Seeds through the public batch API so the bench needs nothing but HTTP access. */
export async function seed(url: string, className: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  const rounds = Math.ceil(count / BATCH_SIZE);
  for (let round = 0; round < rounds; round++) {
    const size = Math.min(BATCH_SIZE, count - round * BATCH_SIZE);
    const requests = Array.from({ length: size }, (_, i) => ({ method: 'POST', path: `/1/classes/${className}`, body: sampleObject(round * BATCH_SIZE + i) }));
    const results = (await postJson(url, '/1/batch', { requests })) as Array<{ success?: { objectId: string }; error?: unknown }>;
    for (const result of results) {
      if (!result.success) throw new Error(`seeding ${className} failed: ${JSON.stringify(result.error)}`);
      ids.push(result.success.objectId);
    }
  }
  return ids;
}

/**
 * Seeded ids are shared between get-by-id and update so the read set is the same 10,000 rows,
 * and seeding (the slow part of setup) happens once per server.
 */
function seededIds(): (url: string) => Promise<string[]> {
  const byUrl = new Map<string, Promise<string[]>>();
  return (url) => {
    let ids = byUrl.get(url);
    if (!ids) {
      ids = seed(url, 'BenchItem', SEED_OBJECTS);
      byUrl.set(url, ids);
    }
    return ids;
  };
}
const itemIds = seededIds();

/**
 * One request per seeded id, dealt out in a random order to as many lists as there are
 * connections: each connection loops over its own share, so concurrent requests ask for different
 * objects spread over all 10,000, and together the connections read every one.
 *
 * Every request is built once, before the load starts. A `setupRequest` hook would make
 * autocannon rebuild (and deep-copy) the request before each send, which cost the load generator
 * about 2.7 times the CPU per request of the ceiling's fixed request; the generator shares this
 * machine's two cores with the server, so that cost came out of the server's throughput too.
 */
export function spreadOverConnections(ids: readonly string[], connections: number, request: (id: string) => Request): Request[][] {
  const order = [...ids];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const lists: Request[][] = Array.from({ length: Math.min(connections, order.length) }, () => []);
  order.forEach((id, i) => lists[i % lists.length]!.push(request(id)));
  return lists;
}

export const WORKLOADS: readonly Workload[] = [
  {
    id: 'ceiling',
    name: 'GET fixed JSON',
    backends: 'ceiling',
    async prepare() {
      return { requests: [{ method: 'GET', path: '/' }] };
    },
  },
  {
    id: 'create',
    name: 'create',
    backends: 'basalt',
    async prepare(url) {
      // The first create of a class also creates its table and schema; that is not the hot path.
      await postJson(url, '/1/classes/BenchCreate', sampleObject(0));
      return { requests: [{ method: 'POST', path: '/1/classes/BenchCreate', headers: KEY_HEADERS, body: JSON.stringify(sampleObject(1)) }] };
    },
  },
  {
    id: 'get-by-id',
    name: 'get-by-id',
    backends: 'basalt',
    async prepare(url, connections) {
      const ids = await itemIds(url);
      const get = (id: string): Request => ({ method: 'GET', path: `/1/classes/BenchItem/${id}`, headers: KEY_HEADERS });
      // `requests` too: a request's "alone" latency is timed with it.
      return { requests: [get(ids[0]!)], byConnection: spreadOverConnections(ids, connections, get) };
    },
  },
  {
    id: 'update',
    name: 'update (Increment)',
    backends: 'basalt',
    async prepare(url, connections) {
      const ids = await itemIds(url);
      const body = JSON.stringify({ score: { __op: 'Increment', amount: 1 } });
      const increment = (id: string): Request => ({ method: 'PUT', path: `/1/classes/BenchItem/${id}`, headers: KEY_HEADERS, body });
      return { requests: [increment(ids[0]!)], byConnection: spreadOverConnections(ids, connections, increment) };
    },
  },
  {
    id: 'function',
    name: 'cloud function (hello)',
    backends: 'basalt',
    optIn: true,
    async prepare(url) {
      // The default app's worker starts with the server; one call makes sure it has loaded.
      await postJson(url, '/1/functions/hello', {});
      return { requests: [{ method: 'POST', path: '/1/functions/hello', headers: KEY_HEADERS, body: '{}' }] };
    },
  },
  {
    id: 'create-before-save',
    name: 'create with a no-op beforeSave',
    backends: 'basalt',
    optIn: true,
    async prepare(url) {
      await postJson(url, '/1/classes/BenchTriggered', sampleObject(0));
      return { requests: [{ method: 'POST', path: '/1/classes/BenchTriggered', headers: KEY_HEADERS, body: JSON.stringify(sampleObject(1)) }] };
    },
  },
  {
    id: 'batch',
    name: `batch (${BATCH_SIZE} creates)`,
    backends: 'basalt',
    async prepare(url) {
      const requests = Array.from({ length: BATCH_SIZE }, (_, i) => ({ method: 'POST', path: '/1/classes/BenchBatch', body: sampleObject(i) }));
      await postJson(url, '/1/batch', { requests: requests.slice(0, 1) });
      return { requests: [{ method: 'POST', path: '/1/batch', headers: KEY_HEADERS, body: JSON.stringify({ requests }) }], countsItemErrors: true };
    },
  },
];
