import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectIndexScanned } from '../helpers/index-scans.ts';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient, type RequestOptions } from '../helpers/client.ts';
import { openStorage, type Storage } from '../helpers/storage.ts';
import { targets, type Target } from '../helpers/targets.ts';

/**
 * Geo queries on a class whose GeoPoint field has an index (`{"loc": 1}`): the index holds the
 * point's latitude cell, longitude and latitude, and a nearest-first page is searched for in
 * growing rings. Answers must be exactly those of the definition: every visible point within the
 * maximum distance, nearest first, ties by objectId, then skip and limit. They are checked
 * against that definition computed here, with the same haversine formula, on places chosen so
 * that no two distances are closer than rounding unless they are exact ties.
 */

const MASTER = { key: 'master' } as const;
const EARTH_KM = 6371.0;
const EARTH_MILES = 3958.8;

interface Place {
  readonly name: string;
  readonly loc?: { readonly latitude: number; readonly longitude: number };
  readonly kind: 'common' | 'rare';
  /** Readable only through the role `hidden`, which no caller here has. */
  readonly hidden: boolean;
  readonly n: number;
}

interface LatLng {
  readonly latitude: number;
  readonly longitude: number;
}

const geo = ({ latitude, longitude }: LatLng) => ({ __type: 'GeoPoint', latitude, longitude });

/** Deterministic pseudo-random numbers in [0, 1). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Centers are binary fractions, so `center ± 0.125` is exact and such points tie exactly. */
const PARIS: LatLng = { latitude: 48.75, longitude: 2.25 };
const FIJI: LatLng = { latitude: -16.75, longitude: 179.875 };
const NORTH: LatLng = { latitude: 89.75, longitude: 10 };

function places(): Place[] {
  const next = random(7);
  const list: Place[] = [];
  const add = (prefix: string, loc: LatLng | undefined, hidden = false, kind: Place['kind'] = 'common') => {
    list.push({ name: `${prefix}${String(list.length).padStart(3, '0')}`, ...(loc ? { loc } : {}), kind, hidden, n: list.length });
  };
  // Around Paris: a dense middle, most of it hidden, and a sparser ring of visible points.
  for (let i = 0; i < 40; i++) add('p', { latitude: PARIS.latitude + (next() - 0.5) * 0.3, longitude: PARIS.longitude + (next() - 0.5) * 0.45 }, i % 10 < 7);
  for (let i = 0; i < 60; i++) add('p', { latitude: PARIS.latitude + (next() - 0.5) * 2.4, longitude: PARIS.longitude + (next() - 0.5) * 3.6 }, i % 10 === 0, i % 6 === 0 ? 'rare' : 'common');
  // Exact ties: the same distance north and south, east and west.
  for (const [dLat, dLng] of [[0.125, 0], [-0.125, 0], [0, 0.125], [0, -0.125]] as const) add('t', { latitude: PARIS.latitude + dLat, longitude: PARIS.longitude + dLng });
  // Both sides of the antimeridian.
  for (let i = 0; i < 24; i++) {
    const longitude = FIJI.longitude + (next() - 0.5) * 1.5;
    add('f', { latitude: FIJI.latitude + (next() - 0.5) * 1.2, longitude: longitude >= 180 ? longitude - 360 : longitude }, i % 5 === 0);
  }
  // Around the north pole, at every longitude.
  for (let i = 0; i < 24; i++) add('n', { latitude: 89.2 + next() * 0.79, longitude: -179.9 + next() * 359.8 }, i % 5 === 0);
  for (let i = 0; i < 3; i++) add('x', undefined);
  return list;
}

function radians(degrees: number): number {
  return (degrees * Math.PI) / 180;
}

/** The formula the server computes, term by term. */
function distance(a: LatLng, b: LatLng): number {
  const h = Math.sin(radians(b.latitude - a.latitude) / 2) ** 2 + Math.cos(radians(a.latitude)) * Math.cos(radians(b.latitude)) * Math.sin(radians(b.longitude - a.longitude) / 2) ** 2;
  return 2 * Math.asin(Math.sqrt(Math.min(1, h)));
}

interface Seeded {
  readonly app: AppClient;
  readonly className: string;
  readonly places: readonly (Place & { readonly id: string })[];
}

async function seed(app: AppClient, className: string, list: readonly Place[]): Promise<Seeded> {
  const seeded: (Place & { id: string })[] = [];
  for (let i = 0; i < list.length; i += 50) {
    const chunk = list.slice(i, i + 50);
    const requests = chunk.map((place) => ({
      method: 'POST',
      path: `/1/classes/${className}`,
      body: {
        name: place.name, kind: place.kind, n: place.n, ...(place.loc ? { loc: geo(place.loc) } : {}),
        ACL: place.hidden ? { 'role:hidden': { read: true, write: true } } : { '*': { read: true, write: true } },
      },
    }));
    const response = await app.post('/1/batch', { requests }, MASTER);
    assert.equal(response.status, 200, response.text);
    response.body.forEach((entry: { success?: { objectId: string } }, j: number) => {
      assert.ok(entry.success, JSON.stringify(entry));
      seeded.push({ ...chunk[j]!, id: entry.success.objectId });
    });
  }
  return { app, className, places: seeded };
}

interface NearCase {
  readonly title: string;
  readonly center: LatLng;
  /** In radians; absent: the default of 100 miles. */
  readonly max?: number;
  readonly skip?: number;
  readonly limit: number;
  readonly rare?: boolean;
  readonly master?: boolean;
}

const KM = (km: number) => km / EARTH_KM;

const NEAR_CASES: readonly NearCase[] = [
  { title: 'the nearest five', center: PARIS, max: KM(100), limit: 5 },
  { title: 'a later page', center: PARIS, max: KM(100), skip: 5, limit: 5 },
  { title: 'a long page past hidden points', center: PARIS, max: KM(100), skip: 10, limit: 30 },
  { title: 'exact ties in objectId order', center: PARIS, max: KM(100), limit: 40 },
  { title: 'another filter that rejects most near points', center: PARIS, max: KM(200), limit: 4, rare: true },
  { title: 'the master key sees the hidden points', center: PARIS, max: KM(100), limit: 12, master: true },
  { title: 'the default maximum of 100 miles', center: PARIS, limit: 7 },
  { title: 'a small maximum', center: PARIS, max: KM(9), limit: 50 },
  { title: 'more than there are', center: PARIS, max: KM(60), limit: 200 },
  { title: 'across the antimeridian', center: FIJI, max: KM(200), limit: 9 },
  { title: 'across the antimeridian, a later page', center: FIJI, max: KM(200), skip: 4, limit: 6 },
  { title: 'near the pole, across it', center: NORTH, max: KM(300), limit: 10 },
  { title: 'near the pole, the master key', center: NORTH, max: KM(300), limit: 30, master: true },
  { title: 'around the world (π or more)', center: FIJI, max: 4, skip: 20, limit: 8 },
];

function visible(place: Place, c: NearCase): boolean {
  return (c.master || !place.hidden) && (!c.rare || place.kind === 'rare');
}

/** The definition: visible points within the maximum, nearest first, ties by objectId. */
function expectedNear(seeded: Seeded, c: NearCase): string[] {
  const max = c.max ?? 100 / EARTH_MILES;
  const found = seeded.places.flatMap((place) => (place.loc && visible(place, c) ? [{ place, d: distance(c.center, place.loc) }] : [])).filter((x) => x.d <= max);
  found.sort((x, y) => (Math.abs(x.d - y.d) > 1e-12 ? x.d - y.d : x.place.id < y.place.id ? -1 : 1));
  return found.slice(c.skip ?? 0, (c.skip ?? 0) + c.limit).map((x) => x.place.name);
}

function nearWhere(c: NearCase): Record<string, unknown> {
  return { loc: { $nearSphere: geo(c.center), ...(c.max === undefined ? {} : { $maxDistanceInRadians: c.max }) }, ...(c.rare ? { kind: 'rare' } : {}) };
}

async function names(seeded: Seeded, query: Record<string, unknown>, options: RequestOptions = {}): Promise<{ names: string[]; count?: number }> {
  const response = await seeded.app.get(`/1/classes/${seeded.className}`, { ...options, query: query as Record<string, string> });
  assert.equal(response.status, 200, response.text);
  return { names: response.body.results.map((object: { name: string }) => object.name), count: response.body.count };
}

/** No point lies within rounding of a maximum distance, where two formulas could disagree. */
function assertClearOfEdges(seeded: Seeded): void {
  for (const c of NEAR_CASES) {
    const max = c.max ?? 100 / EARTH_MILES;
    for (const place of seeded.places) if (place.loc) assert.ok(Math.abs(distance(c.center, place.loc) - max) > 1e-9, `${place.name} lies on the edge of ${c.title}`);
  }
}

/** Every case of the nearest-first table on one seeded class. */
async function checkNearCases(seeded: Seeded): Promise<void> {
  for (const c of NEAR_CASES) {
    const query = { where: nearWhere(c), limit: c.limit, ...(c.skip ? { skip: c.skip } : {}) };
    const found = await names(seeded, query, c.master ? MASTER : {});
    assert.deepEqual(found.names, expectedNear(seeded, c), c.title);
  }
}

/** The box text the compiler writes for `$within: {$box: [(48.5, 2), (49, 2.5)]}` on `loc`. */
const BOX_SQL: Record<Target['backend'], string> = {
  sqlite: `floor(json_extract("data", '$.loc.latitude') * 10) IN (485, 486, 487, 488, 489, 490) AND json_extract("data", '$.loc.longitude') BETWEEN 2 AND 2.5 AND json_extract("data", '$.loc.latitude') BETWEEN 48.5 AND 49`,
  postgres: `floor((("data"#>>'{loc,latitude}')::float8) * 10) = ANY ('{485,486,487,488,489,490}'::float8[]) AND (("data"#>>'{loc,longitude}')::float8) BETWEEN 2 AND 2.5 AND (("data"#>>'{loc,latitude}')::float8) BETWEEN 48.5 AND 49`,
};

/** The index `{loc: 1}` was made of the latitude alone before the latitude cell was added. */
const LATITUDE_ONLY: Record<Target['backend'], string> = {
  sqlite: `json_extract("data", '$.loc.latitude') ASC`,
  postgres: `((("data"#>>'{loc,latitude}')::float8)) ASC NULLS FIRST`,
};

eachBackend('geo queries through a GeoPoint index', (target) => {
  let seeded: Seeded;
  let storage: Storage;

  before(async () => {
    const app = await newApp(target);
    const className = unique('GeoIdx');
    const fields = { name: { type: 'String' }, kind: { type: 'String' }, n: { type: 'Number' }, loc: { type: 'GeoPoint' } };
    const created = await app.post(`/1/schemas/${className}`, { fields, indexes: { byLoc: { loc: 1 } } }, MASTER);
    assert.equal(created.status, 201, created.text);
    seeded = await seed(app, className, places());
    assertClearOfEdges(seeded);
    storage = await openStorage(target, className);
  });

  after(async () => {
    await storage?.close();
  });

  it('the index holds the latitude cell, the longitude and the latitude', async () => {
    const [[, definition] = []] = await storage.indexesNamed(seeded.className, 'byLoc');
    assert.ok(definition, 'the schema index exists');
    const normalized = definition.replace(/\s+/g, ' ');
    if (target.backend === 'sqlite') {
      assert.ok(normalized.endsWith(`(floor(json_extract("data", '$.loc.latitude') * 10) ASC, json_extract("data", '$.loc.longitude') ASC, json_extract("data", '$.loc.latitude') ASC)`), normalized);
    } else {
      assert.match(normalized, /\(floor\(\(\(\(data #>> '\{loc,latitude\}'::text\[\]\)\)::double precision \* \(10\)::double precision\)\) NULLS FIRST, \(\(\(data #>> '\{loc,longitude\}'::text\[\]\)\)::double precision\) NULLS FIRST, \(\(\(data #>> '\{loc,latitude\}'::text\[\]\)\)::double precision\) NULLS FIRST\)$/);
    }
  });

  it('a box is answered by seeking each latitude cell of the index', async () => {
    const [[physical] = []] = await storage.indexesNamed(seeded.className, 'byLoc');
    assert.ok(physical);
    const plan = await storage.plan(seeded.className, BOX_SQL[target.backend]);
    assert.ok(plan.includes(physical), `the plan uses ${physical}:\n${plan}`);
    // Each cell is one seek, with the longitude range as its lower and upper bound.
    if (target.backend === 'sqlite') assert.match(plan, /USING (COVERING )?INDEX \S+ \(<expr>=\? AND <expr>>\? AND <expr><\?\)/);
    else assert.match(plan, /Index Cond: \(\(floor\(.*= ANY \('\{485,486,487,488,489,490\}'.*longitude.*>= .*longitude.*<= .*latitude.*>= .*latitude.*<= /s);
  });

  it('nearest first: pages, ties, filters, hidden objects, the antimeridian and the pole', async () => {
    await checkNearCases(seeded);
  });

  it('pages put together give the whole ordered answer', async () => {
    const c: NearCase = { title: 'all', center: PARIS, max: KM(150), limit: 1000 };
    const whole = expectedNear(seeded, c);
    assert.ok(whole.length > 40, `${whole.length} points`);
    const pages: string[] = [];
    for (let skip = 0; skip < whole.length; skip += 7) pages.push(...(await names(seeded, { where: nearWhere(c), skip, limit: 7 })).names);
    assert.deepEqual(pages, whole);
  });

  it('count ignores the order and the page', async () => {
    const c: NearCase = { title: 'count', center: PARIS, max: KM(100), limit: 1000 };
    const found = await names(seeded, { where: nearWhere(c), limit: 3, count: 1 });
    assert.equal(found.count, expectedNear(seeded, c).length);
    assert.deepEqual(found.names, expectedNear(seeded, { ...c, limit: 3 }));
  });

  it('an explicit order takes precedence over the distance', async () => {
    const c: NearCase = { title: 'by n', center: PARIS, max: KM(100), limit: 1000 };
    const within = new Set(expectedNear(seeded, c));
    const expected = seeded.places.filter((place) => within.has(place.name)).sort((a, b) => b.n - a.n).slice(0, 6).map((place) => place.name);
    assert.deepEqual((await names(seeded, { where: nearWhere(c), order: '-n', limit: 6 })).names, expected);
  });

  it('boxes, spheres and polygons through the index', async () => {
    const inBox = (sw: LatLng, ne: LatLng) => (p: LatLng) => p.latitude >= sw.latitude && p.latitude <= ne.latitude && (sw.longitude <= ne.longitude ? p.longitude >= sw.longitude && p.longitude <= ne.longitude : p.longitude >= sw.longitude || p.longitude <= ne.longitude);
    const polygon: LatLng[] = [{ latitude: 48.3, longitude: 1.5 }, { latitude: 49.4, longitude: 2.1 }, { latitude: 48.6, longitude: 3.3 }];
    const cases: [string, Record<string, unknown>, (p: LatLng) => boolean][] = [
      ['$within $box', { $within: { $box: [geo({ latitude: 48.5, longitude: 2 }), geo({ latitude: 49, longitude: 2.5 })] } }, inBox({ latitude: 48.5, longitude: 2 }, { latitude: 49, longitude: 2.5 })],
      ['$within $box across the antimeridian', { $within: { $box: [geo({ latitude: -17, longitude: 179.6 }), geo({ latitude: -16.5, longitude: -179.7 })] } }, inBox({ latitude: -17, longitude: 179.6 }, { latitude: -16.5, longitude: -179.7 })],
      ['$centerSphere around the pole', { $geoWithin: { $centerSphere: [geo(NORTH), KM(250)] } }, (p) => distance(NORTH, p) <= KM(250)],
      ['$geoWithin $polygon', { $geoWithin: { $polygon: polygon.map(geo) } }, (p) => insideTriangle(polygon, p)],
    ];
    for (const [title, constraint, inside] of cases) {
      const found = await names(seeded, { where: { loc: constraint }, limit: 1000 }, MASTER);
      const expected = seeded.places.filter((place) => place.loc && inside(place.loc)).map((place) => place.name);
      assert.ok(expected.length > 0, `${title} holds points`);
      assert.deepEqual([...found.names].sort(), expected.sort(), title);
    }
  });

  it('an index made before the latitude cell (latitude only) still gives the same answers', async () => {
    const app = seeded.app;
    const className = unique('GeoOld');
    const fields = { name: { type: 'String' }, kind: { type: 'String' }, n: { type: 'Number' }, loc: { type: 'GeoPoint' } };
    assert.equal((await app.post(`/1/schemas/${className}`, { fields, indexes: { byLoc: { loc: 1 } } }, MASTER)).status, 201);
    const old = await seed(app, className, places());
    const oldStorage = await openStorage(target, className);
    try {
      const [[physical] = []] = await oldStorage.indexesNamed(className, 'byLoc');
      assert.ok(physical);
      await oldStorage.execute((table) => `DROP INDEX ${table(physical)}`);
      await oldStorage.execute((table) => `CREATE INDEX "${physical}" ON ${table(className)} (${LATITUDE_ONLY[target.backend]})`);
      const [[, definition] = []] = await oldStorage.indexesNamed(className, 'byLoc');
      assert.ok(definition && !definition.includes('floor'), definition);
      await checkNearCases(old);
    } finally {
      await oldStorage.close();
    }
  });
});

/** Ray casting, planar in latitude and longitude, for a polygon no point lies near the edge of. */
function insideTriangle(polygon: readonly LatLng[], p: LatLng): boolean {
  let inside = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
    const a = polygon[i]!;
    const b = polygon[j]!;
    if (a.latitude > p.latitude !== b.latitude > p.latitude && p.longitude < ((b.longitude - a.longitude) * (p.latitude - a.latitude)) / (b.latitude - a.latitude) + a.longitude) inside = !inside;
  }
  return inside;
}

eachBackend('geo queries and the scan log', (target) => {
  it('a geo query on a large class is served by an index on the GeoPoint field, and counted without one', async () => {
    const app = await newApp(target, { rateLimits: { scanWarningRows: 20 } });
    const fields = { name: { type: 'String' }, kind: { type: 'String' }, n: { type: 'Number' }, loc: { type: 'GeoPoint' } };
    const indexed = unique('GeoScan');
    const plain = unique('GeoScan');
    assert.equal((await app.post(`/1/schemas/${indexed}`, { fields, indexes: { byLoc: { loc: 1 } } }, MASTER)).status, 201);
    assert.equal((await app.post(`/1/schemas/${plain}`, { fields }, MASTER)).status, 201);
    const list = places().slice(0, 30);
    await seed(app, indexed, list);
    await seed(app, plain, list);
    for (const className of [indexed, plain]) {
      for (const where of [{ loc: { $nearSphere: geo(PARIS) } }, { loc: { $within: { $box: [geo({ latitude: 48, longitude: 2 }), geo({ latitude: 49, longitude: 3 })] } } }]) {
        const response = await app.get(`/1/classes/${className}`, { query: { where } });
        assert.equal(response.status, 200, response.text);
      }
    }
    const scans = await app.get('/1/scans', MASTER);
    assert.equal(scans.status, 200, scans.text);
    assert.deepEqual(scans.body.results.map(({ className, index, count }: { className: string; index: unknown; count: number }) => ({ className, index, count })), [{ className: plain, index: { loc: 1 }, count: 2 }]);
  });
});

/**
 * PostgreSQL counts every scan of an index, so the statement the server itself sends for a
 * nearest-first page can be shown to read the GeoPoint index (SQLite keeps no such counts; the
 * plan test above is its proof).
 */
describe('$nearSphere on PostgreSQL', () => {
  it('the statement the server runs scans the GeoPoint index', async () => {
    const target = targets().find((candidate) => candidate.backend === 'postgres');
    assert.ok(target, 'a PostgreSQL server under test');
    const app = await newApp(target);
    const className = unique('GeoStat');
    const fields = { name: { type: 'String' }, kind: { type: 'String' }, n: { type: 'Number' }, loc: { type: 'GeoPoint' } };
    assert.equal((await app.post(`/1/schemas/${className}`, { fields, indexes: { byLoc: { loc: 1 } } }, MASTER)).status, 201);
    // Enough points, analysed, that the planner (sequential scans allowed) has a real choice.
    const next = random(11);
    const many: Place[] = Array.from({ length: 2000 }, (_, n) => ({ name: `s${n}`, loc: { latitude: 35 + next() * 25, longitude: -10 + next() * 40 }, kind: 'common', hidden: false, n }));
    await seed(app, className, many);
    await expectIndexScanned(app, className, '%byLoc%', async () => {
      const response = await app.get(`/1/classes/${className}`, { query: { where: { loc: { $nearSphere: geo(PARIS), $maxDistanceInKilometers: 300 } }, limit: 10 } });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.results.length, 10);
    });
  });
});
