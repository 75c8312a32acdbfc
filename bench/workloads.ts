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
  /** Batch answers 200 even when commands inside fail; this counts those. */
  readonly countsItemErrors?: boolean;
}

export interface Workload {
  /** What BENCH_WORKLOADS names it by. */
  readonly id: string;
  readonly name: string;
  /** The ceiling workload is the denominator of every ratio. */
  readonly backends: 'ceiling' | 'basalt';
  prepare(url: string): Promise<Prepared>;
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

function pick<T>(items: readonly T[]): T {
  return items[Math.floor(Math.random() * items.length)]!;
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

/** autocannon hands setupRequest a fresh copy of the request each time, so mutating it is safe. */
function randomItemPath(ids: readonly string[]): Request['setupRequest'] {
  return (request) => {
    request.path = `/1/classes/BenchItem/${pick(ids)}`;
    return request;
  };
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
    async prepare(url) {
      const ids = await itemIds(url);
      return {
        requests: [
          {
            method: 'GET',
            // A real path too: a request's "alone" latency is timed with it.
            path: `/1/classes/BenchItem/${ids[0]}`,
            headers: KEY_HEADERS,
            setupRequest: randomItemPath(ids),
          },
        ],
      };
    },
  },
  {
    id: 'update',
    name: 'update (Increment)',
    backends: 'basalt',
    async prepare(url) {
      const ids = await itemIds(url);
      return {
        requests: [
          {
            method: 'PUT',
            headers: KEY_HEADERS,
            body: JSON.stringify({ score: { __op: 'Increment', amount: 1 } }),
            setupRequest: randomItemPath(ids),
          },
        ],
      };
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
