import type { FieldRef, LatLng } from '../query/ast.ts';
import type { Params } from './params.ts';
import { capBox, cellsOf, CELLS_PER_DEGREE, type Box } from './geo.ts';
import { DdlCompiler } from './compiler-ddl.ts';

/**
 * The compiler's geo constraints: the box of a GeoPoint index (sql/geo.ts holds the geometry),
 * distances, polygons.
 */
export abstract class GeoCompiler extends DdlCompiler {
  /** The point lies strictly inside the polygon (a list of latitude/longitude corners). */
  abstract pointInPolygon(latitude: string, longitude: string, polygon: readonly LatLng[], params: Params): string;
  /** The Polygon value at `path` contains the point. */
  abstract polygonContains(path: readonly string[], point: LatLng, params: Params): string;

  protected geoExprs(field: FieldRef): { latitude: string; longitude: string } {
    const path = this.docPath(field);
    return { latitude: this.docNumber([...path, 'latitude']), longitude: this.docNumber([...path, 'longitude']) };
  }

  /**
   * The box around a search area, in the shape of a GeoPoint index (sql/geo.ts): latitude cells,
   * then longitudes, then latitudes. Exact for `$within`; a necessary condition otherwise.
   * (Parameters are added in text order: SQLite's "?" are numbered by position.)
   */
  protected geoBox(field: FieldRef, box: Box, params: Params): string {
    const { latitude, longitude } = this.geoExprs(field);
    const cell = this.latitudeCell(latitude);
    const cells = cellsOf(box);
    const parts = ['each' in cells ? this.cellIn(cell, cells.each, params) : `${cell} BETWEEN ${params.add(cells.from)} AND ${params.add(cells.to)}`];
    const lng = box.longitudes;
    if (lng) parts.push(lng.west <= lng.east ? `${longitude} BETWEEN ${params.add(lng.west)} AND ${params.add(lng.east)}` : `(${longitude} >= ${params.add(lng.west)} OR ${longitude} <= ${params.add(lng.east)})`);
    parts.push(`${latitude} BETWEEN ${params.add(box.south)} AND ${params.add(box.north)}`);
    return parts.join(' AND ');
  }

  /** The latitude cell is one of `cells`: one seek each. */
  cellIn(cell: string, cells: readonly number[], params: Params): string {
    return `${cell} IN (${cells.map((c) => params.add(c)).join(', ')})`;
  }

  /** The first column of a GeoPoint index; queries must write it exactly so. */
  latitudeCell(latitude: string): string {
    return `floor(${latitude} * ${CELLS_PER_DEGREE})`;
  }

  protected withinDistance(field: FieldRef, point: LatLng, radians: number, params: Params): string {
    const { latitude, longitude } = this.geoExprs(field);
    const box = capBox(point, radians);
    // Without a box the point must still exist: PostgreSQL's LEAST skips a NULL, which would put
    // an object without a GeoPoint at distance π.
    const bound = box ? this.geoBox(field, box, params) : `${latitude} IS NOT NULL`;
    return `${bound} AND ${this.distance(latitude, longitude, point, params)} <= ${params.add(radians)}`;
  }

  /** Great-circle distance in radians (haversine), in functions both databases have. */
  distance(latitude: string, longitude: string, point: LatLng, params: Params): string {
    // Each placeholder is used once: SQLite numbers "?" by position.
    const dLat = `radians(${latitude} - ${params.add(point.latitude)})`;
    const cosLat0 = `cos(radians(${params.add(point.latitude)}))`;
    const dLng = `radians(${longitude} - ${params.add(point.longitude)})`;
    const a = `power(sin(${dLat} / 2), 2) + ${cosLat0} * cos(radians(${latitude})) * power(sin(${dLng} / 2), 2)`;
    return `(2 * asin(sqrt(min_of(1.0, ${a}))))`.replace('min_of', this.leastFunction);
  }
  /** LEAST in PostgreSQL, the two-argument MIN in SQLite. */
  protected abstract readonly leastFunction: string;
}
