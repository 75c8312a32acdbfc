import { Errors } from '../errors/index.ts';
import type { FieldType } from '../schema/types.ts';
import { isValidClassName } from '../schema/names.ts';
import { quote } from '../errors/quote.ts';

/**
 * Wire values are stored as they travel (Parse's JSON with `__type` objects), after being checked
 * and normalised here: Dates to millisecond UTC ISO strings, Files to their name, GeoPoints within
 * bounds. `decodeValue` also reports the schema type the value gives its field.
 */
const MAX_DEPTH = 64;

export type JsonObject = Record<string, unknown>;

export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface Decoded {
  readonly value: unknown;
  /** The schema type this value gives its field; null for null (which fixes no type). */
  readonly type: FieldType | null;
}

// The types of plain values, shared by every write (frozen: a schema copies them, never edits them).
const STRING: FieldType = Object.freeze({ type: 'String' });
const NUMBER: FieldType = Object.freeze({ type: 'Number' });
const BOOLEAN: FieldType = Object.freeze({ type: 'Boolean' });
const ARRAY: FieldType = Object.freeze({ type: 'Array' });
const OBJECT: FieldType = Object.freeze({ type: 'Object' });

export function decodeValue(value: unknown, field: string): Decoded {
  if (value === null) return { value: null, type: null };
  switch (typeof value) {
    case 'string':
      return { value: checkString(value, field), type: STRING };
    case 'number':
      return { value, type: NUMBER };
    case 'boolean':
      return { value, type: BOOLEAN };
  }
  if (Array.isArray(value)) return { value: value.map((item) => decodeNested(item, field, 1)), type: ARRAY };
  if (isPlainObject(value)) {
    if ('__type' in value) return decodeTyped(value, field);
    return { value: decodeNestedObject(value, field, 1), type: OBJECT };
  }
  throw Errors.incorrectType(`Field ${field} has a value of an unsupported type.`);
}

/** Values inside arrays and objects: typed values are checked, but they fix no schema type. */
function decodeNested(value: unknown, field: string, depth: number): unknown {
  if (depth > MAX_DEPTH) throw Errors.invalidJson(`Field ${field} is nested more than ${MAX_DEPTH} levels deep.`);
  if (Array.isArray(value)) return value.map((item) => decodeNested(item, field, depth + 1));
  if (isPlainObject(value)) {
    if ('__type' in value) {
      // A Relation lives in the schema and the join table, never inside a document.
      if (value.__type === 'Relation') throw Errors.incorrectType(`Field ${field}: a Relation cannot be nested inside an object or array.`);
      return decodeTyped(value, field).value;
    }
    if ('__op' in value) throw Errors.incorrectType(`Operators are not allowed inside ${field}.`);
    return decodeNestedObject(value, field, depth + 1);
  }
  if (typeof value === 'string') return checkString(value, field);
  return value;
}

function decodeNestedObject(value: JsonObject, field: string, depth: number): JsonObject {
  const decoded: JsonObject = {};
  for (const key of Object.keys(value)) {
    if (key.includes('$') || key.includes('.')) throw Errors.invalidNestedKey(`Nested key ${quote(key)} in ${field} must not contain "$" or ".".`);
    checkString(key, field);
    const item = decodeNested(value[key], field, depth);
    // Assigning "__proto__" would set a prototype: it is defined as data, as any other key is.
    if (key === '__proto__') Object.defineProperty(decoded, key, { value: item, enumerable: true, writable: true, configurable: true });
    else decoded[key] = item;
  }
  return decoded;
}

// PostgreSQL's jsonb cannot hold U+0000, nor text that is not valid UTF-8 (a lone surrogate);
// refusing them everywhere keeps both backends storing exactly the same values. The body parser
// already refuses NUL with the same code; lone surrogates pass JSON.parse and stop here.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function checkString(value: string, field: string): string {
  if (UNSTORABLE.test(value)) throw Errors.invalidJson(`Field ${field} holds a NUL character or an unpaired surrogate, which cannot be stored.`);
  return value;
}

function decodeTyped(value: JsonObject, field: string): Decoded {
  switch (value.__type) {
    case 'Date':
      return { value: { __type: 'Date', iso: normalizeIso(value.iso, field) }, type: { type: 'Date' } };
    case 'Bytes': {
      if (typeof value.base64 !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(value.base64) || value.base64.length % 4 !== 0) {
        throw Errors.incorrectType(`Field ${field}: Bytes need a base64 string.`);
      }
      return { value: { __type: 'Bytes', base64: value.base64 }, type: { type: 'Bytes' } };
    }
    case 'Pointer': {
      const pointer = decodePointer(value, field);
      return { value: pointer, type: { type: 'Pointer', targetClass: pointer.className } };
    }
    case 'Relation': {
      if (typeof value.className !== 'string' || !isValidClassName(value.className)) throw Errors.incorrectType(`Field ${field}: a Relation needs the className of its targets.`);
      return { value: undefined, type: { type: 'Relation', targetClass: value.className } };
    }
    case 'File': {
      if (typeof value.name !== 'string' || value.name.length === 0) throw Errors.incorrectType(`Field ${field}: a File needs the name returned by the upload.`);
      return { value: { __type: 'File', name: value.name }, type: { type: 'File' } };
    }
    case 'GeoPoint':
      return { value: decodeGeoPoint(value, field), type: { type: 'GeoPoint' } };
    case 'Polygon': {
      const coordinates = value.coordinates;
      if (!Array.isArray(coordinates) || coordinates.length < 3 || !coordinates.every((point) => Array.isArray(point) && point.length === 2 && point.every((n) => typeof n === 'number' && Number.isFinite(n)))) {
        throw Errors.incorrectType(`Field ${field}: a Polygon needs at least three [latitude, longitude] pairs.`);
      }
      return { value: { __type: 'Polygon', coordinates }, type: { type: 'Polygon' } };
    }
    default:
      throw Errors.incorrectType(`Field ${field}: unknown __type ${quote(value.__type, 40)}.`);
  }
}

export interface Pointer {
  readonly __type: 'Pointer';
  readonly className: string;
  readonly objectId: string;
}

export function decodePointer(value: unknown, field: string): Pointer {
  if (!isPlainObject(value) || value.__type !== 'Pointer' || typeof value.className !== 'string' || typeof value.objectId !== 'string' || value.objectId.length === 0) {
    throw Errors.invalidPointer(`Field ${field}: a Pointer needs a className and an objectId.`);
  }
  if (!isValidClassName(value.className)) throw Errors.invalidPointer(`Field ${field}: ${quote(value.className)} is not a class name.`);
  checkString(value.objectId, field);
  return { __type: 'Pointer', className: value.className, objectId: value.objectId };
}

export function decodeGeoPoint(value: JsonObject, field: string): JsonObject {
  const { latitude, longitude } = value;
  if (typeof latitude !== 'number' || typeof longitude !== 'number' || !Number.isFinite(latitude) || !Number.isFinite(longitude)) {
    throw Errors.incorrectType(`Field ${field}: a GeoPoint needs numeric latitude and longitude.`);
  }
  // Spec 2.2: the bounds themselves are refused too.
  if (latitude <= -90 || latitude >= 90) throw Errors.invalidJson(`Field ${field}: latitude must be greater than -90.0 and less than 90.0.`);
  if (longitude <= -180 || longitude >= 180) throw Errors.invalidJson(`Field ${field}: longitude must be greater than -180.0 and less than 180.0.`);
  return { __type: 'GeoPoint', latitude, longitude };
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:Z|([+-])(\d{2}):?(\d{2}))$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Dates are kept as `YYYY-MM-DDTHH:MM:SS.MMMZ` so that text order is time order. The fields are
 * checked one by one rather than handed to `Date.parse`, which rolls 2024-02-30 over into March.
 */
export function normalizeIso(iso: unknown, field: string): string {
  const match = typeof iso === 'string' ? ISO.exec(iso) : null;
  if (!match) throw Errors.incorrectType(`Field ${field}: a Date needs an ISO 8601 "iso" string like 2024-01-31T12:00:00.000Z.`);
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const millis = Number((match[7] ?? '').padEnd(3, '0').slice(0, 3));
  const offsetMinutes = match[8] ? (match[8] === '-' ? -1 : 1) * (Number(match[9]) * 60 + Number(match[10])) : 0;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const monthDays = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
  if (monthDays === undefined || day < 1 || day > monthDays || hour > 23 || minute > 59 || second > 59 || Number(match[9] ?? 0) > 23 || Number(match[10] ?? 0) > 59) {
    throw Errors.incorrectType(`Field ${field}: ${JSON.stringify(iso)} is not a valid date.`);
  }
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  date.setTime(date.getTime() - offsetMinutes * 60_000);
  const utcYear = date.getUTCFullYear();
  if (utcYear < 0 || utcYear > 9999) throw Errors.incorrectType(`Field ${field}: ${JSON.stringify(iso)} is outside the years 0000 to 9999.`);
  return date.toISOString();
}

/** A key to compare values by (AddUnique, Remove): pointers by class and id, others by JSON. */
export function valueKey(value: unknown): string {
  if (isPlainObject(value) && value.__type === 'Pointer') return `P:${String(value.className)}:${String(value.objectId)}`;
  return `J:${canonicalJson(value)}`;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isPlainObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
