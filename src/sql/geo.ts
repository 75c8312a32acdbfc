import { conjuncts, sameField, type FindQuery, type LatLng, type WhereNode } from '../query/ast.ts';

/**
 * The geometry behind geo queries that an index can serve. A GeoPoint index holds three columns:
 * the point's latitude cell (a tenth of a degree: `floor(latitude * 10)`), its longitude and its
 * latitude. A search area becomes a box, and the box becomes one index seek per latitude cell,
 * each reading the box's longitudes within that cell, with the latitude checked in the index
 * entry. Nothing here is exact by itself: the box only narrows what the exact test (the distance,
 * the polygon) then decides, so every bound errs on the wide side.
 */

/** Latitude cells per degree. The index expression multiplies by this literal. */
export const CELLS_PER_DEGREE = 10;
/** Boxes spanning more cells than this read a range of cells instead of seeking each one. */
const MAX_CELL_SEEKS = 40;
/** Widening of a distance before it becomes a box, far above any rounding of the haversine. */
const PAD = 1e-9;

export interface Box {
  readonly south: number;
  readonly north: number;
  /** Null: every longitude. `west > east` crosses the antimeridian. */
  readonly longitudes: { readonly west: number; readonly east: number } | null;
}

/** The latitude cells a box spans: each one, or the whole range when there are many. */
export type Cells = { readonly each: readonly number[] } | { readonly from: number; readonly to: number };

export function cellsOf(box: Box): Cells {
  // floor(x * 10) grows with x in floating point too, so every latitude in [south, north] has a
  // cell in [from, to] as SQL computes it.
  const from = Math.floor(box.south * CELLS_PER_DEGREE);
  const to = Math.floor(box.north * CELLS_PER_DEGREE);
  if (to - from >= MAX_CELL_SEEKS) return { from, to };
  return { each: Array.from({ length: to - from + 1 }, (_, i) => from + i) };
}

/**
 * The box holding every point within `radians` of `center`, or null for π or more (the whole
 * sphere). The longitude half-width of a cap is asin(sin r / cos φ); a cap reaching a pole spans
 * every longitude.
 */
export function capBox(center: LatLng, radians: number): Box | null {
  if (radians >= Math.PI) return null;
  const r = radians * (1 + PAD) + PAD;
  const degrees = (r * 180) / Math.PI;
  const south = center.latitude - degrees;
  const north = center.latitude + degrees;
  if (south <= -90 || north >= 90) return { south: Math.max(south, -90), north: Math.min(north, 90), longitudes: null };
  const ratio = Math.sin(r) / Math.cos((center.latitude * Math.PI) / 180);
  const half = ratio >= 1 ? 180 : ((Math.asin(ratio) * 180) / Math.PI) * (1 + PAD) + PAD;
  if (half >= 180) return { south, north, longitudes: null };
  const west = center.longitude - half;
  const east = center.longitude + half;
  return { south, north, longitudes: { west: west < -180 ? west + 360 : west, east: east > 180 ? east - 360 : east } };
}

/** The polygon's bounding box: the point-in-polygon test is planar in latitude and longitude. */
export function polygonBox(polygon: readonly LatLng[]): Box {
  const latitudes = polygon.map((p) => p.latitude);
  const longitudes = polygon.map((p) => p.longitude);
  return { south: Math.min(...latitudes), north: Math.max(...latitudes), longitudes: { west: Math.min(...longitudes), east: Math.max(...longitudes) } };
}

/** No ring is smaller than this (500 m): each ring costs a statement, or part of one, even empty. */
const SMALLEST_RING = 0.5 / 6371.0;
const MAX_RINGS = 8;
/** Nearest-first pages of at most this many rows (skip + limit) are searched for in rings. */
export const MAX_RING_ROWS = 1000;

/** A nearest-first query that can be answered by searching growing rings (see `nearestRings`). */
export interface RingSearch {
  readonly node: Extract<WhereNode, { kind: 'geoWithinDistance' }>;
  /** The other conjuncts of the filter, all of which every counted row must pass. */
  readonly rest: readonly WhereNode[];
  /** Radii in radians, growing; the last is the query's maximum distance. */
  readonly radii: readonly number[];
  /** How many rows the answer needs: skip + limit. */
  readonly rows: number;
}

/**
 * Whether a query sorts by the distance from a `$nearSphere` point first, on a field an index
 * serves, with a page small enough to search for. Then the nearest rows lie in the smallest ring
 * that holds skip + limit rows passing the whole filter: a row outside that ring is farther than
 * every row inside it. Radii halve from the maximum distance (capped at π) down to about 500 m,
 * eight rings at most.
 */
export function nearestRings(query: FindQuery): RingSearch | null {
  const first = query.order[0];
  const rows = query.skip + query.limit;
  if (!first?.distanceFrom || first.descending || rows > MAX_RING_ROWS) return null;
  const parts = conjuncts(query.where);
  const from = first.distanceFrom;
  const node = parts.find(
    (c): c is RingSearch['node'] => c.kind === 'geoWithinDistance' && c.indexed === true && c.point.latitude === from.latitude && c.point.longitude === from.longitude && sameField(c.field, first.field),
  );
  if (!node) return null;
  const base = Math.min(node.maxRadians, Math.PI);
  const halvings = Math.min(MAX_RINGS - 1, Math.floor(Math.log2(base / SMALLEST_RING)));
  if (!(halvings >= 1)) return null;
  const radii = Array.from({ length: halvings }, (_, i) => base / 2 ** (halvings - i));
  return { node, rest: parts.filter((c) => c !== node), radii: [...radii, node.maxRadians], rows };
}

