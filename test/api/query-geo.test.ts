import { queryTable, type QueryCase } from '../helpers/query-table.ts';

/**
 * Spec 4.2 geo queries and the Parse extensions: $nearSphere (nearest first, 100 miles unless a
 * $maxDistance… says otherwise, an explicit order taking precedence), $within {$box},
 * $geoWithin {$polygon | $centerSphere} and $geoIntersects {$point} on a Polygon. Places are
 * real towns; seen from Hamar (charlie): Oslo (alpha) 99 km, Drammen (bravo) 126 km, Trondheim
 * (delta) 295 km, Gothenburg (echo) 347 km, Rome (foxtrot) 2,103 km. No point lies near an edge.
 */

const geo = (latitude: number, longitude: number) => ({ __type: 'GeoPoint', latitude, longitude });
const HAMAR = geo(60.7945, 11.068);
const near = (extra: Record<string, unknown> = {}) => ({ place: { $nearSphere: HAMAR, ...extra } });
/** Contains Oslo and Drammen; Hamar lies inside its bounding box but outside the triangle. */
const TRIANGLE: [number, number][] = [[58, 9], [62, 9], [58, 13]];

const CASES: QueryCase[] = [
  { title: '$nearSphere: nearest first, within 100 miles', where: near(), ordered: true, expect: ['charlie', 'alpha', 'bravo'] },
  { title: '$nearSphere with $maxDistanceInMiles', where: near({ $maxDistanceInMiles: 70 }), ordered: true, expect: ['charlie', 'alpha'] },
  { title: '$nearSphere with $maxDistanceInKilometers', where: near({ $maxDistanceInKilometers: 300 }), ordered: true, expect: ['charlie', 'alpha', 'bravo', 'delta'] },
  { title: '$nearSphere with $maxDistanceInRadians', where: near({ $maxDistanceInRadians: 0.05 }), ordered: true, expect: ['charlie', 'alpha', 'bravo', 'delta'] },
  { title: '$nearSphere with $maxDistance (radians, as the SDKs send it)', where: near({ $maxDistance: 0.017 }), ordered: true, expect: ['charlie', 'alpha'] },
  {
    title: '$nearSphere around the world',
    where: near({ $maxDistanceInRadians: 3.2 }),
    ordered: true,
    expect: ['charlie', 'alpha', 'bravo', 'delta', 'echo', 'foxtrot', 'india', 'lima', 'golf'],
  },
  { title: '$nearSphere: an explicit order takes precedence', where: near(), order: 'score', expect: ['alpha', 'bravo', 'charlie'] },
  { title: '$nearSphere: an explicit descending order', where: near(), order: '-name', expect: ['charlie', 'bravo', 'alpha'] },
  { title: '$nearSphere with limit', where: near(), limit: 2, ordered: true, expect: ['charlie', 'alpha'] },
  { title: '$nearSphere with skip', where: near(), skip: 1, limit: 1, ordered: true, expect: ['alpha'] },
  { title: '$nearSphere beside another constraint', where: { ...near(), active: true }, ordered: true, expect: ['charlie', 'alpha'] },
  { title: '$nearSphere with count', where: near(), count: true, limit: 0, expect: [], expectCount: 3 },

  { title: '$within $box', where: { place: { $within: { $box: [geo(57, 10), geo(61, 12)] } } }, expect: ['alpha', 'bravo', 'charlie', 'echo'] },
  { title: '$within $box across the antimeridian', where: { place: { $within: { $box: [geo(-20, 179), geo(-10, -179)] } } }, expect: ['india', 'lima'] },
  { title: '$within $box in the southern hemisphere', where: { place: { $within: { $box: [geo(-40, 150), geo(-30, 152)] } } }, expect: ['golf'] },
  { title: '$within $box beside another constraint', where: { place: { $within: { $box: [geo(57, 10), geo(61, 12)] } }, score: { $gte: 30 } }, expect: ['charlie', 'echo'] },

  { title: '$geoWithin $polygon of GeoPoints', where: { place: { $geoWithin: { $polygon: TRIANGLE.map(([lat, lng]) => geo(lat, lng)) } } }, expect: ['alpha', 'bravo'] },
  { title: '$geoWithin $polygon of [latitude, longitude] pairs', where: { place: { $geoWithin: { $polygon: TRIANGLE } } }, expect: ['alpha', 'bravo'] },
  { title: '$geoWithin $polygon of a Polygon value', where: { place: { $geoWithin: { $polygon: { __type: 'Polygon', coordinates: TRIANGLE } } } }, expect: ['alpha', 'bravo'] },
  { title: '$geoWithin $centerSphere, [longitude, latitude] center', where: { place: { $geoWithin: { $centerSphere: [[11.068, 60.7945], 0.017] } } }, expect: ['alpha', 'charlie'] },
  { title: '$geoWithin $centerSphere, GeoPoint center', where: { place: { $geoWithin: { $centerSphere: [HAMAR, 0.05] } } }, expect: ['alpha', 'bravo', 'charlie', 'delta'] },

  { title: '$geoIntersects: a point inside two polygons', where: { area: { $geoIntersects: { $point: geo(59.5, 10.5) } } }, expect: ['alpha', 'charlie'] },
  { title: '$geoIntersects: a point inside a triangle', where: { area: { $geoIntersects: { $point: geo(2, 2) } } }, expect: ['bravo'] },
  { title: '$geoIntersects: a point outside the triangle, inside its box', where: { area: { $geoIntersects: { $point: geo(8, 8) } } }, expect: [] },
  { title: '$geoIntersects: a point inside the largest polygon only', where: { area: { $geoIntersects: { $point: geo(65, 19) } } }, expect: ['charlie'] },
];

queryTable('query geo', CASES);
