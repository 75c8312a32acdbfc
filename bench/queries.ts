/**
 * The query suite: one class grown from 100,000 to 1,000,000 objects, and the queries the
 * "query language" issue asks about, measured at each size. Rows are bulk-loaded (seed.ts) into
 * classes made through the schema API; everything measured goes through the REST API.
 */
import { spreadOverConnections, type Prepared, type Request } from './workloads.ts';
import type { Row, Target } from './report.ts';
import { expectedObject, ITEM_SET, OWNER_SET, OWNERS, type DataSet, type Seeder } from './seed.ts';
import { ADMIN, APP } from './servers.ts';

export interface SuiteContext {
  /** The server's label in the report, e.g. "Basalt SQLite". */
  readonly server: string;
  readonly url: string;
  readonly seeder: Seeder;
  /** Connections of the suite's load. */
  readonly connections: number;
  /**
   * Loads the server with these requests (or these prepared ones) for the suite's measured time,
   * over `connections` (default: the suite's); the row joins the report.
   */
  measure(workload: string, requests: Request[] | Prepared, connections?: number): Promise<Row>;
  log(message: string): void;
}

export const MASTER_HEADERS = { 'x-svc-application-id': APP.id, 'x-svc-master-key': APP.masterKey, 'content-type': 'application/json' };
export const REST_HEADERS = { 'x-svc-application-id': APP.id, 'x-svc-rest-api-key': APP.restKey, 'content-type': 'application/json' };

/** Requests sent one at a time before a workload's load, for its "alone" latency. */
const ALONE_REQUESTS = 20;

/** Median latency of the request sent on its own: what it costs, without waiting behind the others. */
export async function timeAlone(url: string, request: Request): Promise<number> {
  const times: number[] = [];
  for (let n = 0; n < ALONE_REQUESTS; n++) {
    const started = performance.now();
    const headers = request.headers as Record<string, string> | undefined;
    const response = await fetch(`${url}${request.path}`, { method: request.method, headers, body: request.body as string | undefined });
    await response.arrayBuffer();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

export async function api(url: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path.slice(0, 200)} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** `GET /1/classes/<className>` with query parameters; `where` is given as an object. */
export function findPath(className: string, params: { where?: unknown; order?: string; limit?: number; skip?: number; count?: boolean; include?: string; keys?: string }): string {
  const search = new URLSearchParams();
  if (params.where !== undefined) search.set('where', JSON.stringify(params.where));
  if (params.order) search.set('order', params.order);
  if (params.limit !== undefined) search.set('limit', String(params.limit));
  if (params.skip !== undefined) search.set('skip', String(params.skip));
  if (params.count) search.set('count', '1');
  if (params.include) search.set('include', params.include);
  if (params.keys !== undefined) search.set('keys', params.keys);
  return `/1/classes/${className}?${search.toString()}`;
}

/**
 * The app's default limits would refuse what is measured: 160 count queries a minute, 30 logins a
 * minute per client address. Both are raised out of reach for the bench app, not switched off
 * (0 would skip the counting), so every count and login still pays for being counted.
 */
export async function raiseLimits(url: string): Promise<void> {
  const outOfReach = 1_000_000_000;
  await api(url, 'PUT', `/1/apps/${APP.id}`, { 'x-svc-email': ADMIN.email, 'x-svc-password': ADMIN.password, 'content-type': 'application/json' }, {
    rateLimits: { countQueriesPerMinute: outOfReach, authRequestsPerMinute: outOfReach },
  });
}

export async function createClass(url: string, className: string, fields: Record<string, unknown>): Promise<void> {
  await api(url, 'POST', `/1/schemas/${className}`, MASTER_HEADERS, { fields });
}

export async function createIndex(url: string, className: string, name: string, keys: Record<string, 1 | -1>): Promise<void> {
  await api(url, 'PUT', `/1/schemas/${className}`, MASTER_HEADERS, { indexes: { [name]: keys } });
}

/**
 * Bulk-loads objects from … to-1, runs `before` (an index to create), lets the database settle
 * (statistics then cover the index's expression too), and reads a few objects back through the
 * API to prove they look as if the API had written them.
 */
export async function seedAndCheck(ctx: SuiteContext, set: DataSet, from: number, to: number, before?: () => Promise<void>): Promise<void> {
  const started = performance.now();
  await ctx.seeder.insert(set, from, to);
  await before?.();
  await ctx.seeder.settle(set.className);
  ctx.log(`seeded ${set.className} ${from.toLocaleString('en-US')}–${(to - 1).toLocaleString('en-US')} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  for (const i of [from, Math.floor((from + to) / 2), to - 1]) {
    const expected = expectedObject(set, i);
    const got = await api(ctx.url, 'GET', `/1/classes/${set.className}/${expected.objectId}`, MASTER_HEADERS);
    if (canonical(got) !== canonical(expected)) throw new Error(`seeded ${set.className} #${i} reads back as ${JSON.stringify(got)}, not ${JSON.stringify(expected)}`);
  }
}

/** JSON with object keys sorted: PostgreSQL's jsonb reorders keys, which changes nothing a client sees. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** Top objects by score that the range queries return: X is the score of the 1,000th. */
export const RANGE_SIZE = 1000;
export const PAGE = 20;

/** The score of the n-th object (1-based) in descending score order, as the caller sees the class. */
export async function nthScore(url: string, className: string, n: number, headers: Record<string, string>): Promise<number> {
  const body = await api(url, 'GET', findPath(className, { order: '-score', skip: n - 1, limit: 1, keys: 'score' }), headers);
  const score = (body.results as { score?: unknown }[])[0]?.score;
  if (typeof score !== 'number') throw new Error(`${className} has fewer than ${n} scored objects`);
  return score;
}

/** Runs a query once before it is measured: the answer must be the expected page, or the numbers mean nothing. */
export async function expectPage(url: string, path: string, headers: Record<string, string>, check?: (body: Record<string, unknown>) => string | undefined): Promise<Record<string, unknown>> {
  const body = await api(url, 'GET', path, headers);
  const results = body.results as unknown[];
  if (results.length !== PAGE) throw new Error(`GET ${path} found ${results.length} objects, not ${PAGE}`);
  const problem = check?.(body);
  if (problem) throw new Error(`GET ${path}: ${problem}`);
  return body;
}

/** Near Paris, within 100 km: about 0.4% of the points of the box seed.ts spreads them over. */
const NEAR = { point: { __type: 'GeoPoint', latitude: 48.8566, longitude: 2.3522 }, kilometres: 100 };
/** One tier of owners: 10 of the 1,000, and so 1% of the items. */
const SELECTED_TIER = 7;

export const SIZES = [100_000, 1_000_000] as const;
export const sizeLabel = (size: number) => (size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`);

export const QUERY_WORKLOADS = {
  range: (size: number) => `range, ${sizeLabel(size)}`,
  movingRange: (size: number) => `range, a new bound each request, ${sizeLabel(size)}`,
  count: (size: number) => `range + count, ${sizeLabel(size)}`,
  inQuery: (size: number) => `$inQuery, ${sizeLabel(size)}`,
  include: (size: number) => `include=owner, ${sizeLabel(size)}`,
  near: `$nearSphere, 100k points`,
  aggregate: (size: number) => `aggregate $group count, ${sizeLabel(size)}`,
};

/**
 * The aggregate workload reads the whole class (a count per owner: 1,000 groups) and is measured
 * over one connection, so that its p50 is the statement's own time: behind 31 others, each
 * request of a full scan would wait out the rest and reach autocannon's timeout.
 */
const AGGREGATE_CONNECTIONS = 1;
const GROUP_COUNT = [{ $group: { _id: '$owner', count: { $sum: 1 } } }];

/** Returns notes for the report: the thresholds chosen and how many objects each query matches. */
export async function runQueries(ctx: SuiteContext): Promise<string[]> {
  const notes: string[] = [];
  const { url } = ctx;
  await raiseLimits(url);
  await createClass(url, 'Owner', { name: { type: 'String' }, tier: { type: 'Number' } });
  await createClass(url, 'Item', { score: { type: 'Number' }, name: { type: 'String' }, owner: { type: 'Pointer', targetClass: 'Owner' }, loc: { type: 'GeoPoint' } });
  // The fields $inQuery joins on are indexed, as an app that runs such a query would have them
  // (the scan log names these indexes when they are missing).
  await seedAndCheck(ctx, OWNER_SET, 0, OWNERS, () => createIndex(url, 'Owner', 'byTier', { tier: 1 }));

  let seeded = 0;
  for (const size of SIZES) {
    // Made once the first rows are in, as an app adds an index to a class that has grown; the
    // million-object step then writes through it.
    // The GeoPoint index serves the box every geo query starts with; $nearSphere searches it in rings.
    const index = size === SIZES[0] ? async () => {
      await createIndex(url, 'Item', 'byScore', { score: -1 });
      await createIndex(url, 'Item', 'byLoc', { loc: 1 });
      await createIndex(url, 'Item', 'byOwner', { owner: 1 });
    } : undefined;
    await seedAndCheck(ctx, ITEM_SET, seeded, size, index);
    seeded = size;

    const x = await nthScore(url, 'Item', RANGE_SIZE, MASTER_HEADERS);
    const range = { where: { score: { $gte: x } }, order: '-score', limit: PAGE };
    const counted = await expectPage(url, findPath('Item', { ...range, count: true }), REST_HEADERS);
    notes.push(`${ctx.server}, ${sizeLabel(size)} objects: X = ${x.toLocaleString('en-US')}, so \`score ≥ X\` matches ${Number(counted.count).toLocaleString('en-US')} objects.`);
    await measurePath(ctx, QUERY_WORKLOADS.range(size), findPath('Item', range));
    if (size === SIZES[0]) await ctx.measure(QUERY_WORKLOADS.movingRange(size), await movingBounds(ctx, 'Item', REST_HEADERS));
    await measurePath(ctx, QUERY_WORKLOADS.count(size), findPath('Item', { ...range, count: true }));

    const inQuery = findPath('Item', { where: { owner: { $inQuery: { className: 'Owner', where: { tier: SELECTED_TIER } } } }, limit: PAGE });
    await expectPage(url, inQuery, REST_HEADERS);
    await measurePath(ctx, QUERY_WORKLOADS.inQuery(size), inQuery);

    const include = findPath('Item', { ...range, include: 'owner' });
    await expectPage(url, include, REST_HEADERS, (body) => ((body.results as { owner?: { __type?: string } }[]).every((r) => r.owner?.__type === 'Object') ? undefined : 'an owner was not included'));
    await measurePath(ctx, QUERY_WORKLOADS.include(size), include);

    const grouped = `/1/aggregate/Item?${new URLSearchParams({ pipeline: JSON.stringify(GROUP_COUNT) })}`;
    const groups = (await api(url, 'GET', grouped, MASTER_HEADERS)).results as { count: number }[];
    const inGroups = groups.reduce((sum, group) => sum + group.count, 0);
    if (groups.length !== OWNERS || inGroups !== size) throw new Error(`GET ${grouped} found ${groups.length} groups of ${inGroups} objects, not ${OWNERS} of ${size}`);
    await measurePath(ctx, QUERY_WORKLOADS.aggregate(size), grouped, MASTER_HEADERS, AGGREGATE_CONNECTIONS);

    if (size === SIZES[0]) {
      const where = { loc: { $nearSphere: NEAR.point, $maxDistanceInKilometers: NEAR.kilometres } };
      const near = findPath('Item', { where, limit: PAGE });
      await expectPage(url, near, REST_HEADERS);
      const within = await api(url, 'GET', findPath('Item', { where, limit: 0, count: true }), REST_HEADERS);
      notes.push(`${ctx.server}: ${Number(within.count).toLocaleString('en-US')} of the 100,000 points lie within ${NEAR.kilometres} km of the \`$nearSphere\` point.`);
      await measurePath(ctx, QUERY_WORKLOADS.near, near);
    }
  }
  return notes;
}

/** Distinct bounds of `movingBounds`: more than the query texts a server keeps (1,024), so few texts are asked twice. */
const MOVING_BOUNDS = 4096;

/**
 * The range page with a bound of its own for each request, as an app whose users pick the bound
 * sends it: X runs over the scores between the 1,000th and the `highRank`-th (which the caller
 * sees a full page above), and the requests are dealt out to the connections in a random order.
 */
export async function movingBounds(ctx: SuiteContext, className: string, headers: Record<string, string>, highRank = RANGE_SIZE / 10): Promise<Prepared> {
  const low = await nthScore(ctx.url, className, RANGE_SIZE, MASTER_HEADERS);
  const high = await nthScore(ctx.url, className, highRank, MASTER_HEADERS);
  const bounds = new Set<string>();
  for (let i = 0; i < MOVING_BOUNDS; i++) bounds.add(String(Math.round(low + ((high - low) * i) / MOVING_BOUNDS)));
  const path = (x: string) => findPath(className, { where: { score: { $gte: Number(x) } }, order: '-score', limit: PAGE });
  await expectPage(ctx.url, path(String(high)), headers);
  const byConnection = spreadOverConnections([...bounds], ctx.connections, (x) => ({ method: 'GET', path: path(x), headers }));
  return { requests: byConnection[0]!, byConnection };
}

function measurePath(ctx: SuiteContext, workload: string, path: string, headers: Record<string, string> = REST_HEADERS, connections?: number): Promise<Row> {
  return ctx.measure(workload, [{ method: 'GET', path, headers }], connections);
}

/** The goals: p50 at 1M within 1.5× of p50 at 100k (with the index), every query ≤ 10 ms p50. */
export function queryTargets(rows: readonly Row[], servers: readonly string[]): Target[] {
  const targets: Target[] = [];
  for (const server of servers) {
    const row = (workload: string) => rows.find((r) => r.server === server && r.workload === workload);
    const small = row(QUERY_WORKLOADS.range(SIZES[0]));
    const large = row(QUERY_WORKLOADS.range(SIZES[1]));
    targets.push({
      label: `range p50, ${sizeLabel(SIZES[1])} ÷ ${sizeLabel(SIZES[0])}, ${server}`,
      measured: small && large ? large.p50Ms / small.p50Ms : undefined,
      byCpu: small && large ? large.cpuUsPerRequest / small.cpuUsPerRequest : undefined,
      goal: 1.5,
      kind: 'ratio-at-most',
    });
  }
  for (const server of servers) {
    // A $group reads every object of the class: the 10 ms goal is for queries an index serves.
    // So is a query measured on purpose before its index exists (bench/auto-index.ts).
    const indexed = rows.filter((r) => r.server === server && !r.workload.startsWith('aggregate') && !r.workload.includes('(cold)'));
    for (const r of indexed) targets.push({ label: `${r.workload}, ${server}`, measured: r.p50Ms, goal: 10, kind: 'ms-at-most' });
  }
  return targets;
}
