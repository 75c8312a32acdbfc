/**
 * A config parameter's value as text in an editor, and back (docs/dashboard.md "Config"). Each
 * type has the text a person types: a Date its ISO text, a GeoPoint "latitude, longitude", a
 * Boolean true/false; Array, Object and File are JSON.
 */
export const PARAM_TYPES = ['String', 'Number', 'Boolean', 'Date', 'Array', 'Object', 'GeoPoint', 'File'] as const;
export type ParamType = (typeof PARAM_TYPES)[number];

export function typeOfValue(value: unknown): ParamType {
  if (typeof value === 'string') return 'String';
  if (typeof value === 'number') return 'Number';
  if (typeof value === 'boolean') return 'Boolean';
  if (Array.isArray(value)) return 'Array';
  const tag = (value as { __type?: unknown } | null)?.__type;
  if (tag === 'Date' || tag === 'GeoPoint' || tag === 'File') return tag;
  return 'Object';
}

export function valueText(value: unknown, type: ParamType): string {
  switch (type) {
    case 'String':
      return String(value);
    case 'Number':
    case 'Boolean':
      return String(value);
    case 'Date':
      return String((value as { iso: unknown }).iso);
    case 'GeoPoint': {
      const point = value as { latitude: unknown; longitude: unknown };
      return `${String(point.latitude)}, ${String(point.longitude)}`;
    }
    default:
      return JSON.stringify(value, null, 2);
  }
}

/** The value a text stands for in a type; throws a sentence saying why it does not fit. */
export function parseValue(text: string, type: ParamType): unknown {
  switch (type) {
    case 'String':
      return text;
    case 'Number': {
      const n = Number(text);
      if (text.trim() === '' || !Number.isFinite(n)) throw new Error('A Number is digits, such as 42 or -1.5.');
      return n;
    }
    case 'Boolean':
      if (text !== 'true' && text !== 'false') throw new Error('A Boolean is true or false.');
      return text === 'true';
    case 'Date': {
      const time = Date.parse(text);
      if (Number.isNaN(time)) throw new Error('A Date is ISO text, such as 2026-03-01T09:30:00.000Z.');
      return { __type: 'Date', iso: new Date(time).toISOString() };
    }
    case 'GeoPoint': {
      const [latitude, longitude, extra] = text.split(',').map((part) => Number(part.trim()));
      if (extra !== undefined || latitude === undefined || longitude === undefined || !Number.isFinite(latitude) || !Number.isFinite(longitude)) throw new Error('A GeoPoint is "latitude, longitude".');
      if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) throw new Error('Latitude is within ±90 and longitude within ±180.');
      return { __type: 'GeoPoint', latitude, longitude };
    }
    default: {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new Error(`The ${type} is not valid JSON.`);
      }
      if (type === 'Array' && !Array.isArray(parsed)) throw new Error('An Array is JSON in [ ].');
      if (type === 'Object' && (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))) throw new Error('An Object is JSON in { }.');
      if (type === 'File' && (parsed as { __type?: unknown } | null)?.__type !== 'File') throw new Error('A File is {"__type": "File", "name": "…"}.');
      return parsed;
    }
  }
}
