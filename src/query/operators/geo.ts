import { Errors } from '../../errors/index.ts';
import { isPlainObject } from '../../encoding/values.ts';
import type { LatLng, WhereNode } from '../ast.ts';
import type { QueryScope } from '../scope.ts';
import { access, FALSE, TRUE, type Target } from '../target.ts';

const EARTH_RADIUS_MILES = 3958.8;
const EARTH_RADIUS_KM = 6371.0;
/** Spec 4.2: `$nearSphere` alone keeps results within 100 miles. */
const DEFAULT_NEAR_RADIANS = 100 / EARTH_RADIUS_MILES;
const DISTANCE_OPERATORS = ['$maxDistance', '$maxDistanceInRadians', '$maxDistanceInMiles', '$maxDistanceInKilometers'];
export const GEO_OPERATORS = new Set(['$nearSphere', '$within', '$geoWithin', '$geoIntersects', ...DISTANCE_OPERATORS]);

/** Geo constraints of spec 4.2 and the Parse extensions `$geoWithin` and `$geoIntersects`. */
export function parseGeo(target: Target, op: string, operand: unknown, all: Record<string, unknown>, scope: QueryScope): WhereNode {
  if (scope.inBranch) throw Errors.invalidQuery(`${op} is not allowed inside $or, $and or $nor.`);
  if (DISTANCE_OPERATORS.includes(op)) {
    if (!('$nearSphere' in all)) throw Errors.invalidQuery(`${op} is only valid with $nearSphere.`);
    return TRUE;
  }
  if (op === '$geoIntersects') return geoIntersects(target, operand);
  if (target.known && target.type?.type !== 'GeoPoint') throw Errors.invalidQuery(`${op} needs a GeoPoint field; ${target.name} is not one.`);
  switch (op) {
    case '$nearSphere': {
      const point = latLng(operand, '$nearSphere');
      const maxRadians = maxDistance(all);
      if (!target.known) return FALSE;
      const { field } = access(target);
      if (scope.nesting === 0) scope.found.nearest = { field, as: 'json', descending: false, distanceFrom: point };
      return { kind: 'geoWithinDistance', field, point, maxRadians, ...(leadsAnIndex(scope, target.name) ? { indexed: true } : {}) };
    }
    case '$within': {
      if (!isPlainObject(operand) || !Array.isArray(operand.$box) || operand.$box.length !== 2) throw Errors.invalidQuery('$within needs {$box: [southwest, northeast]}.');
      const [sw, ne] = operand.$box.map((corner) => latLng(corner, '$box'));
      if (sw!.latitude > ne!.latitude) throw Errors.invalidQuery('$box: the south-west corner must be south of the north-east corner.');
      if (!target.known) return FALSE;
      return { kind: 'geoWithinBox', field: access(target).field, south: sw!.latitude, west: sw!.longitude, north: ne!.latitude, east: ne!.longitude };
    }
    case '$geoWithin': {
      if (!isPlainObject(operand)) throw Errors.invalidQuery('$geoWithin needs {$polygon} or {$centerSphere}.');
      if ('$polygon' in operand) {
        const polygon = polygonOf(operand.$polygon);
        return target.known ? { kind: 'geoWithinPolygon', field: access(target).field, polygon } : FALSE;
      }
      if ('$centerSphere' in operand) {
        const sphere = operand.$centerSphere;
        if (!Array.isArray(sphere) || sphere.length !== 2 || typeof sphere[1] !== 'number' || !(sphere[1] >= 0)) {
          throw Errors.invalidQuery('$centerSphere needs [[longitude, latitude] or a GeoPoint, radius in radians].');
        }
        // MongoDB's order, which the Parse SDKs send: longitude first.
        const center = Array.isArray(sphere[0]) ? latLng({ __type: 'GeoPoint', latitude: sphere[0][1], longitude: sphere[0][0] }, '$centerSphere') : latLng(sphere[0], '$centerSphere');
        return target.known ? { kind: 'geoWithinDistance', field: access(target).field, point: center, maxRadians: sphere[1] } : FALSE;
      }
      throw Errors.invalidQuery('$geoWithin needs {$polygon} or {$centerSphere}.');
    }
    default:
      throw Errors.invalidQuery(`Unknown geo operator ${op}.`);
  }
}

/** An index of the class starts with the field: then it serves the field's geo constraints. */
function leadsAnIndex(scope: QueryScope, field: string): boolean {
  return Object.values(scope.schema?.indexes ?? {}).some((keys) => {
    const first = Object.entries(keys)[0];
    return first !== undefined && first[0] === field && first[1] !== 'text';
  });
}

function geoIntersects(target: Target, operand: unknown): WhereNode {
  if (target.known && target.type?.type !== 'Polygon') throw Errors.invalidQuery(`$geoIntersects needs a Polygon field; ${target.name} is not one.`);
  if (!isPlainObject(operand) || !('$point' in operand)) throw Errors.invalidQuery('$geoIntersects needs {$point: GeoPoint}.');
  const point = latLng(operand.$point, '$point');
  return target.known ? { kind: 'polygonContains', field: access(target).field, point } : FALSE;
}

function maxDistance(all: Record<string, unknown>): number {
  const given = DISTANCE_OPERATORS.filter((op) => op in all);
  if (given.length > 1) throw Errors.invalidQuery('Give at most one of $maxDistance, $maxDistanceInRadians, $maxDistanceInMiles and $maxDistanceInKilometers.');
  if (given.length === 0) return DEFAULT_NEAR_RADIANS;
  const op = given[0]!;
  const value = all[op];
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw Errors.invalidQuery(`${op} needs a number, 0 or more.`);
  if (op === '$maxDistanceInMiles') return value / EARTH_RADIUS_MILES;
  if (op === '$maxDistanceInKilometers') return value / EARTH_RADIUS_KM;
  return value;
}

export function latLng(value: unknown, where: string): LatLng {
  if (!isPlainObject(value) || value.__type !== 'GeoPoint') throw Errors.invalidQuery(`${where} needs a GeoPoint.`);
  const { latitude, longitude } = value;
  if (typeof latitude !== 'number' || typeof longitude !== 'number' || latitude <= -90 || latitude >= 90 || longitude <= -180 || longitude >= 180) {
    throw Errors.invalidQuery(`${where}: a GeoPoint needs a latitude strictly between -90 and 90 and a longitude strictly between -180 and 180.`);
  }
  return { latitude, longitude };
}

/** `$polygon`: three or more GeoPoints, [latitude, longitude] pairs, or a Polygon value. */
function polygonOf(value: unknown): LatLng[] {
  const corners = isPlainObject(value) && value.__type === 'Polygon' ? value.coordinates : value;
  if (!Array.isArray(corners) || corners.length < 3) throw Errors.invalidQuery('$polygon needs at least three points.');
  return corners.map((corner) => (Array.isArray(corner) ? latLng({ __type: 'GeoPoint', latitude: corner[0], longitude: corner[1] }, '$polygon') : latLng(corner, '$polygon')));
}
