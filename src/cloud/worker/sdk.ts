import Parse from 'parse/node';

/**
 * The official Parse SDK (Node build): the global `Parse` of cloud code, as in Parse Server. Its
 * private helpers used here (`_encode`, `_decode`, the master-key argument of `initialize`) are
 * not in its typings; this module names them once.
 */
export { Parse };

interface SdkInternals {
  initialize(applicationId: string, javascriptKey: string, masterKey: string): void;
  serverURL: string;
  _encode(value: unknown): unknown;
  _decode(unused: null, value: unknown): unknown;
}

export const sdk = Parse as unknown as SdkInternals;

/** The value in wire JSON: SDK objects become `{__type: …}`, a Parse.Object a full `{__type: "Object"}`. */
export function encodeValue(value: unknown): unknown {
  if (value instanceof Parse.Object) return { ...(value.toJSON() as Record<string, unknown>), __type: 'Object', className: value.className };
  if (Array.isArray(value)) return value.map(encodeValue);
  if (value !== null && typeof value === 'object' && isPlain(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) if (item !== undefined) out[key] = encodeValue(item);
    return out;
  }
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return null;
  return sdk._encode(value);
}

export function decodeValue(value: unknown): unknown {
  return sdk._decode(null, value);
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
