import { words } from '../../query/words.ts';

/**
 * SQL functions SQLite lacks and PostgreSQL has built in; the SQLite driver registers them. They
 * follow PostgreSQL's behaviour so both backends answer a query alike.
 */

/** Ray casting over [latitude, longitude] corners, as PostgreSQL's `point <@ polygon`. */
export function pointInPolygon(latitude: unknown, longitude: unknown, polygonJson: unknown): number {
  if (typeof latitude !== 'number' || typeof longitude !== 'number' || typeof polygonJson !== 'string') return 0;
  let corners: unknown;
  try {
    corners = JSON.parse(polygonJson);
  } catch {
    return 0;
  }
  if (!Array.isArray(corners) || corners.length < 3) return 0;
  let inside = false;
  for (let i = 0, j = corners.length - 1; i < corners.length; j = i++) {
    const [yi, xi] = corners[i] as [number, number];
    const [yj, xj] = corners[j] as [number, number];
    if (yi > latitude !== yj > latitude && longitude < ((xj - xi) * (latitude - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside ? 1 : 0;
}

/** 1 when every word of `terms` is a word of `text`; PostgreSQL runs the same test as regular expressions. */
export function textMatch(text: unknown, terms: unknown): number {
  if (typeof text !== 'string' || typeof terms !== 'string') return 0;
  const wanted = words(terms);
  if (wanted.length === 0) return 0;
  const present = new Set(words(text));
  return wanted.every((word) => present.has(word)) ? 1 : 0;
}

/**
 * The distinct words of `text`, joined by spaces: what a text index holds for it (the FTS5 table
 * of sql/sqlite/dialect.ts, filled by triggers that call this). Words are found here, in
 * JavaScript, so that the index and the query read them by the same definition.
 */
export function textWords(text: unknown): string {
  return typeof text === 'string' ? [...new Set(words(text))].join(' ') : '';
}
