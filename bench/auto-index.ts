/**
 * The automatic-index suite: `where score >= X order -score limit 20` over 100,000 objects of a
 * class that has no hand-made index, measured cold (the app's automatic indexes off, so every
 * query scans) and warm (turned on: the server's default thresholds see the scans, build the
 * index online and record it; the query is measured again once the schema lists it).
 */
import type { DataSet } from './seed.ts';
import { api, createClass, expectPage, findPath, MASTER_HEADERS, nthScore, PAGE, RANGE_SIZE, raiseLimits, REST_HEADERS, seedAndCheck, type SuiteContext } from './queries.ts';
import { ADMIN, APP } from './servers.ts';

export const AUTO_INDEX_WORKLOADS = {
  cold: 'range, no index (cold), 100k',
  coldCount: 'range + count, no index (cold), 100k',
  warm: 'range, automatic index (warm), 100k',
  warmCount: 'range + count, automatic index (warm), 100k',
  warmHalf: 'range + count of half the class, automatic index (warm), 100k',
};

const SIZE = 100_000;
const SCORE_RANGE = 1_000_000;
const SCORE_STEP = 738_781;
const PUBLIC = ['*'];

/** Objects with a score and a name, as the query suite's items without the owner and the point. */
const SCORED_SET: DataSet = {
  className: 'Scored',
  salt: 7,
  doc: (i) => ({ score: (i * SCORE_STEP) % SCORE_RANGE, name: `s${i}` }),
  docSql: `jsonb_build_object('score', (i * ${SCORE_STEP}) % ${SCORE_RANGE}, 'name', 's' || i)`,
  rperm: () => PUBLIC,
  rpermSql: `ARRAY['*']`,
  wperm: () => PUBLIC,
  wpermSql: `ARRAY['*']`,
};

async function setAutoIndexes(url: string, on: boolean): Promise<void> {
  await api(url, 'PUT', `/1/apps/${APP.id}`, { 'x-svc-email': ADMIN.email, 'x-svc-password': ADMIN.password, 'content-type': 'application/json' }, { autoIndexes: on });
}

export async function runAutoIndex(ctx: SuiteContext): Promise<string[]> {
  const { url } = ctx;
  await raiseLimits(url);
  await setAutoIndexes(url, false);
  await createClass(url, SCORED_SET.className, { score: { type: 'Number' }, name: { type: 'String' } });
  await seedAndCheck(ctx, SCORED_SET, 0, SIZE);
  const x = await nthScore(url, SCORED_SET.className, RANGE_SIZE, MASTER_HEADERS);
  const path = findPath(SCORED_SET.className, { where: { score: { $gte: x } }, order: '-score', limit: PAGE });
  const counted = findPath(SCORED_SET.className, { where: { score: { $gte: x } }, order: '-score', limit: PAGE, count: true });
  const median = await nthScore(url, SCORED_SET.className, SIZE / 2, MASTER_HEADERS);
  const half = findPath(SCORED_SET.className, { where: { score: { $gte: median } }, order: '-score', limit: PAGE, count: true });
  const cold = await expectPage(url, path, REST_HEADERS);
  const coldCount = await expectPage(url, counted, REST_HEADERS);
  await ctx.measure(AUTO_INDEX_WORKLOADS.cold, [{ method: 'GET', path, headers: REST_HEADERS }]);
  await ctx.measure(AUTO_INDEX_WORKLOADS.coldCount, [{ method: 'GET', path: counted, headers: REST_HEADERS }]);

  await setAutoIndexes(url, true);
  const started = performance.now();
  let queries = 0;
  for (;;) {
    const schema = await api(url, 'GET', `/1/schemas/${SCORED_SET.className}`, MASTER_HEADERS);
    if (schema.autoIndexes) break;
    if (performance.now() - started > 300_000) throw new Error('no automatic index after 5 minutes of scanning queries');
    // One connection, as an app's queries come: the server counts them until its threshold.
    await api(url, 'GET', path, REST_HEADERS);
    queries += 1;
  }
  const seconds = (performance.now() - started) / 1000;
  ctx.log(`automatic index on Scored.score listed after ${queries} queries and ${seconds.toFixed(1)} s`);
  const warm = await expectPage(url, path, REST_HEADERS);
  if (JSON.stringify(warm.results) !== JSON.stringify(cold.results)) throw new Error(`GET ${path} answers differently with the automatic index`);
  const warmCount = await expectPage(url, counted, REST_HEADERS);
  if (JSON.stringify(warmCount) !== JSON.stringify(coldCount)) throw new Error(`GET ${counted} answers differently with the automatic index`);
  await ctx.measure(AUTO_INDEX_WORKLOADS.warm, [{ method: 'GET', path, headers: REST_HEADERS }]);
  await ctx.measure(AUTO_INDEX_WORKLOADS.warmCount, [{ method: 'GET', path: counted, headers: REST_HEADERS }]);
  const halfPage = await expectPage(url, half, REST_HEADERS);
  if (halfPage.count !== SIZE / 2) throw new Error(`GET ${half} counted ${String(halfPage.count)}, not ${SIZE / 2}`);
  await ctx.measure(AUTO_INDEX_WORKLOADS.warmHalf, [{ method: 'GET', path: half, headers: REST_HEADERS }]);
  return [
    `${ctx.server}: with the server's default thresholds, the automatic index on \`Scored.score\` was listed after ${queries} scanning queries on one connection, ${seconds.toFixed(1)} s (the scans included).`,
  ];
}
