import type Database from 'better-sqlite3';
import { words } from '../../query/words.ts';
import { TIMED_REGEXP } from './regex.ts';

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

/**
 * Registers every function above on a connection: the main one (driver.ts) and each reader's
 * (reader-worker.ts), so a statement means the same wherever it runs.
 */
export function registerFunctions(db: Database.Database): void {
  // SQLite has no REGEXP function of its own; the query compiler relies on this one.
  db.function('regexp', { deterministic: true }, regexp);
  // The same function, for patterns that may backtrack: a statement calling it runs under a time limit (driver.ts).
  db.function(TIMED_REGEXP, { deterministic: true }, regexp);
  db.function('basalt_point_in_polygon', { deterministic: true }, pointInPolygon);
  db.function('basalt_text_match', { deterministic: true }, textMatch);
  db.function('basalt_text_words', { deterministic: true }, textWords);
}

function regexp(pattern: unknown, value: unknown): number {
  if (typeof value !== 'string' || typeof pattern !== 'string') return 0;
  return cachedRegExp(pattern).test(value) ? 1 : 0;
}

const regexps = new Map<string, RegExp>();
function cachedRegExp(source: string): RegExp {
  let re = regexps.get(source);
  if (!re) {
    // The compiler passes flags as a leading "(?flags)" group, which JavaScript does not read.
    const match = /^\(\?([ims]+)\)/.exec(source);
    re = match ? new RegExp(source.slice(match[0].length), match[1]) : new RegExp(source);
    if (regexps.size > 500) regexps.clear();
    regexps.set(source, re);
  }
  return re;
}
