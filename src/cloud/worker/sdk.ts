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

/**
 * A function's result in wire JSON, as Parse Server encodes it (the SDK's encoder): a saved or
 * fetched Parse.Object becomes a full `{__type: "Object", className, …}`, a bare one a Pointer,
 * Dates, GeoPoints, Files typed; plain objects and arrays are walked.
 */
export function encodeValue(value: unknown): unknown {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return null;
  return sdk._encode(value);
}

export function decodeValue(value: unknown): unknown {
  return sdk._decode(null, value);
}
