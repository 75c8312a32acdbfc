import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { and, type FindQuery, type LatLng, type WhereNode } from '../query/ast.ts';
import { capBox, cellsOf, nearestRings, type Box } from './geo.ts';

const KM = 1 / 6371.0;
const rad = (degrees: number) => (degrees * Math.PI) / 180;
const deg = (radians: number) => (radians * 180) / Math.PI;

/** The point `distance` radians from `from` in the direction `bearing` (degrees from north). */
function destination(from: LatLng, distance: number, bearing: number): LatLng {
  const φ1 = rad(from.latitude);
  const θ = rad(bearing);
  const φ2 = Math.asin(Math.sin(φ1) * Math.cos(distance) + Math.cos(φ1) * Math.sin(distance) * Math.cos(θ));
  const λ2 = rad(from.longitude) + Math.atan2(Math.sin(θ) * Math.sin(distance) * Math.cos(φ1), Math.cos(distance) - Math.sin(φ1) * Math.sin(φ2));
  const longitude = ((deg(λ2) + 540) % 360) - 180;
  return { latitude: deg(φ2), longitude };
}

function inBox(box: Box, p: LatLng): boolean {
  if (p.latitude < box.south || p.latitude > box.north) return false;
  const lng = box.longitudes;
  if (!lng) return true;
  return lng.west <= lng.east ? p.longitude >= lng.west && p.longitude <= lng.east : p.longitude >= lng.west || p.longitude <= lng.east;
}

describe('capBox: the box around a circle', () => {
  const cases: [string, LatLng, number][] = [
    ['mid-latitudes', { latitude: 48.8566, longitude: 2.3522 }, 100 * KM],
    ['the equator', { latitude: 0, longitude: 0 }, 2000 * KM],
    ['the southern hemisphere', { latitude: -33.87, longitude: 151.21 }, 500 * KM],
    ['across the antimeridian, east', { latitude: -16.75, longitude: 179.9 }, 60 * KM],
    ['across the antimeridian, west', { latitude: 52, longitude: -179.95 }, 30 * KM],
    ['near the north pole', { latitude: 89.8, longitude: 45 }, 50 * KM],
    ['near the south pole', { latitude: -89.5, longitude: -120 }, 100 * KM],
    ['just short of a pole', { latitude: 80, longitude: 10 }, 1000 * KM],
  ];
  for (const [title, center, radius] of cases) {
    it(`holds every point of the circle: ${title}`, () => {
      const box = capBox(center, radius)!;
      assert.ok(box);
      for (let bearing = 0; bearing < 360; bearing += 0.5) {
        for (const fraction of [1, 0.999, 0.5, 0.01]) {
          const p = destination(center, radius * fraction, bearing);
          assert.ok(inBox(box, p), `${JSON.stringify(p)} at bearing ${bearing} lies outside ${JSON.stringify(box)}`);
        }
      }
    });
  }

  it('bounds the longitudes where it can, wrapping across the antimeridian', () => {
    const paris = capBox({ latitude: 48.8566, longitude: 2.3522 }, 100 * KM)!;
    assert.ok(paris.longitudes && paris.longitudes.west < paris.longitudes.east);
    // 100 km is about 0.9° of latitude and 1.37° of longitude there.
    assert.ok(Math.abs(paris.north - paris.south - 1.799) < 0.01, JSON.stringify(paris));
    assert.ok(Math.abs(paris.longitudes.east - paris.longitudes.west - 2.742) < 0.01, JSON.stringify(paris));
    const fiji = capBox({ latitude: -16.75, longitude: 179.9 }, 60 * KM)!;
    assert.ok(fiji.longitudes && fiji.longitudes.west > fiji.longitudes.east && fiji.longitudes.east < -179, JSON.stringify(fiji));
  });

  it('spans every longitude around a pole, and nothing bounds π or more', () => {
    assert.deepEqual(capBox({ latitude: 89.8, longitude: 45 }, 50 * KM)!.longitudes, null);
    assert.equal(capBox({ latitude: 89.8, longitude: 45 }, 50 * KM)!.north, 90);
    assert.equal(capBox({ latitude: 10, longitude: 10 }, Math.PI), null);
    assert.equal(capBox({ latitude: 10, longitude: 10 }, 4), null);
  });
});

describe('cellsOf', () => {
  it('lists each tenth of a degree, or a range when there are many', () => {
    assert.deepEqual(cellsOf({ south: 48.63, north: 49.08, longitudes: null }), { each: [486, 487, 488, 489, 490] });
    assert.deepEqual(cellsOf({ south: -0.05, north: 0.05, longitudes: null }), { each: [-1, 0] });
    assert.deepEqual(cellsOf({ south: -90, north: -85, longitudes: null }), { from: -900, to: -850 });
  });
});

describe('nearestRings', () => {
  const field = { kind: 'doc', path: ['loc'] } as const;
  const point = { latitude: 48.8566, longitude: 2.3522 };
  const near: WhereNode = { kind: 'geoWithinDistance', field, point, maxRadians: 100 * KM, indexed: true };
  const acl: WhereNode = { kind: 'acl', access: 'read', principals: ['*'] };
  const query = (over: Partial<FindQuery> = {}): FindQuery => ({
    where: and([and([near, { kind: 'compare', field: { kind: 'doc', path: ['kind'] }, op: 'eq', value: 'a', as: 'text' }]), acl]),
    order: [{ field, as: 'json', descending: false, distanceFrom: point }],
    limit: 20,
    skip: 0,
    ...over,
  });

  it('halves the maximum distance down to about 500 m, and keeps every other constraint', () => {
    const rings = nearestRings(query())!;
    assert.ok(rings);
    assert.equal(rings.radii.length, 8);
    assert.equal(rings.radii[7], 100 * KM);
    rings.radii.slice(1).forEach((r, i) => assert.ok(Math.abs(r / rings.radii[i]! - 2) < 1e-12));
    assert.ok(rings.radii[0]! >= 0.5 * KM);
    assert.equal(rings.rows, 20);
    assert.deepEqual(rings.rest.map((node) => node.kind), ['compare', 'acl']);
    assert.equal(nearestRings(query({ where: and([{ ...near, maxRadians: 3 * KM } as WhereNode, acl]) }))!.radii.length, 3);
  });

  it('is not for an unindexed field, another first sort key, a large page or a small radius', () => {
    assert.equal(nearestRings(query({ where: and([{ ...near, indexed: undefined } as WhereNode, acl]) })), null);
    assert.equal(nearestRings(query({ order: [{ field: { kind: 'doc', path: ['n'] }, as: 'number', descending: false }, ...query().order] })), null);
    assert.equal(nearestRings(query({ skip: 990, limit: 20 })), null);
    assert.equal(nearestRings(query({ where: { ...near, maxRadians: 0.9 * KM } as WhereNode })), null);
  });
});
