import fc from 'fast-check';

/**
 * JSON as the fuzzer writes it: objects are lists of pairs (so that `__proto__` keys and
 * duplicate keys survive), and Raw text stands for what JSON.stringify cannot write (1e400,
 * `\u0000` escapes, nesting thousands of levels deep, broken syntax).
 */
export class Raw {
  constructor(readonly text: string) {}
}

export class Obj {
  constructor(readonly entries: readonly (readonly [string, Json])[]) {}
}

export type Json = null | boolean | number | string | Raw | Obj | readonly Json[];

export function obj(fields: Record<string, Json>): Obj {
  return new Obj(Object.entries(fields));
}

export function jsonText(value: Json): string {
  if (value instanceof Raw) return value.text;
  if (value instanceof Obj) return `{${value.entries.map(([key, item]) => `${JSON.stringify(key)}:${jsonText(item)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  return JSON.stringify(value) ?? 'null';
}

/** Strings meant to break out of SQL, LIKE, regular expressions, JSON paths or file paths. */
export const INJECTIONS = [
  "' OR '1'='1", "'; DROP TABLE \"_User\"; --", '" OR ""="', "\\'; SELECT pg_sleep(10); --", "'||pg_sleep(10)||'",
  '1; SELECT 1', "') OR 1=1 --", '%', '_', '%_%', '\\', '\\\\', '$1', '?', '?1', ':name', '@p0', '--', '/*', '*/',
  "$$; SELECT 1; $$", 'E\'\\x00\'', "jsonb_set('{}', '{a}', '1')", '{"$gt":""}', '[$ne]=1', 'a.b.c', '$.a', 'a[0]',
  '(a+)+$', '(a|a)*b', '(.*a){30}', '^(([a-z])+.)+[A-Z]([a-z])+$', 'a{1000}', 'a{256}', 'x{0,65535}', '[', '(', '\\Q', '\\E',
  '(?i)a', '(?<name>a)\\k<name>', '\\p{L}', '[[:alpha:]]', '\\1', '(?=a)', '(?<!a)b', '.*.*.*.*.*.*.*=.*', '\\u0000',
  '../../etc/passwd', '..\\..\\windows', '%2e%2e%2f', '/dev/zero', 'con', 'nul.txt', '<script>alert(1)</script>',
  '${7*7}', '{{7*7}}', '#{7*7}', '\r\nSet-Cookie: a=b', 'constructor', '__proto__', 'prototype', 'toString', 'hasOwnProperty',
];

/** Characters and strings that are awkward for Unicode handling, storage or comparison. */
export const UNICODE_EDGES = [
  '', ' ', '\u0000', 'a\u0000b', '\ud800', '\udfff', 'a\udc00b', '\ud83d\ude00', '\u2028\u2029', '\ufeff', '\uffff', '\u{10ffff}',
  'e\u0301', '\u00e9', 'I\u0307', '\u0130', '\u0131', '\u00df', 'SS', '\u212a', '\u03a3\u03c3\u03c2', '\u0645\u0631\u062d\u0628\u0627',
  '\u202etxt.exe', '\t\n\r\u000b\f', '\u00a0', '\u3000', '\u200b', '\u{1f468}\u200d\u{1f469}\u200d\u{1f467}', '\u{e0001}',
];

/** Number literals JSON allows but a JS number, a 64-bit integer or a database column may not. */
export const NUMBER_LITERALS = [
  '1e400', '-1e400', '1e-400', '-0', '0.0', '9007199254740993', '-9007199254740993', '18446744073709551616',
  '123456789012345678901234567890', '1E+308', '1.7976931348623157e308', '4.9e-324', '5e-324', '2147483648', '-2147483649',
  '0.1e1', '1.0000000000000000000000001',
];

export const hugeString = fc.integer({ min: 1_000, max: 300_000 }).map((length) => 'x'.repeat(length));

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 6, arbitrary: fc.constantFrom(...INJECTIONS) },
  { weight: 6, arbitrary: fc.constantFrom(...UNICODE_EDGES) },
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 2_000 }).map((length) => 'y'.repeat(length)) },
  { weight: 2, arbitrary: fc.constantFrom('true', 'null', '1', '{}', '[]', 'NaN', 'Infinity', '2024-02-30T25:61:61Z', '0000-00-00', 'r:deadbeef') },
);

export const hostileNumber: fc.Arbitrary<Json> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -1, 1, 2 ** 31, 2 ** 53, -(2 ** 53), Number.MAX_SAFE_INTEGER + 2, Number.MAX_VALUE, Number.MIN_VALUE, 1e21, 0.1 + 0.2),
  fc.constantFrom(...NUMBER_LITERALS).map((text) => new Raw(text)),
);

/** Keys that are special to JavaScript, to Parse, to Basalt's storage or to SQL. */
export const SPECIAL_KEYS = [
  '__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__',
  'objectId', 'createdAt', 'updatedAt', 'ACL', '_rperm', '_wperm', '_acl', '_hashed_password', 'sessionToken', 'authData',
  '_id', 'id', 'data', 'className', '__type', '__op', '$where', '$or', '$regex', 'a.b', 'a..b', '.a', 'a.', '',
  ' ', 'name ', 'x'.repeat(300), '\u0000', 'k\u0000', '\ud800', '\u00e9', '1st', '-x', 'select', 'SELECT', '"', "'", '`', '\\',
];

export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SPECIAL_KEYS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 3, arbitrary: fc.constantFrom('name', 'score', 'tags', 'when', 'owner', 'place', 'meta', 'flag', 'blob') },
);

/** Nesting `depth` levels deep, as text: objects, arrays, or a mix. */
export function deepText(depth: number, shape: 'object' | 'array' | 'mixed', leaf = '1'): string {
  if (shape === 'object') return '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);
  if (shape === 'array') return '['.repeat(depth) + leaf + ']'.repeat(depth);
  const half = Math.floor(depth / 2);
  return '{"a":['.repeat(half) + leaf + ']}'.repeat(half);
}

export const deepJson: fc.Arbitrary<Raw> = fc
  .tuple(fc.integer({ min: 50, max: 3_000 }), fc.constantFrom('object' as const, 'array' as const, 'mixed' as const))
  .map(([depth, shape]) => new Raw(deepText(depth, shape)));

const TYPES = ['Date', 'Pointer', 'Relation', 'File', 'GeoPoint', 'Polygon', 'Bytes', 'Object', 'Array', 'String', 'Number', 'ACL', 'Foo', '', 'date', '__proto__'];

export const TYPED_VALUES = (className: fc.Arbitrary<string>, objectId: fc.Arbitrary<string>, leaf: fc.Arbitrary<Json>): fc.Arbitrary<Json> =>
  fc.oneof(
    fc.record({ iso: fc.oneof(hostileString, fc.date({ noInvalidDate: true }).map((date) => date.toISOString())) }).map(({ iso }) => obj({ __type: 'Date', iso })),
    fc.record({ className, objectId }).map(({ className, objectId }) => obj({ __type: 'Pointer', className, objectId })),
    className.map((name) => obj({ __type: 'Relation', className: name })),
    fc.record({ name: hostileString, url: hostileString }).map(({ name, url }) => obj({ __type: 'File', name, url })),
    fc.record({ latitude: hostileNumber, longitude: hostileNumber }).map(({ latitude, longitude }) => obj({ __type: 'GeoPoint', latitude, longitude })),
    fc.array(fc.tuple(hostileNumber, hostileNumber), { maxLength: 5 }).map((points) => obj({ __type: 'Polygon', coordinates: points.map(([a, b]) => [a, b]) })),
    fc.oneof(hostileString, fc.base64String({ maxLength: 40 })).map((base64) => obj({ __type: 'Bytes', base64 })),
    fc.tuple(fc.constantFrom(...TYPES), fc.array(fc.tuple(hostileKey, leaf), { maxLength: 3 })).map(([type, rest]) => new Obj([['__type', type], ...rest])),
  );

const OPS = ['Increment', 'Add', 'AddUnique', 'Remove', 'Delete', 'AddRelation', 'RemoveRelation', 'Batch', 'SetOnInsert', 'Unset', 'Foo', '', '__proto__'];

export const FIELD_OPS = (leaf: fc.Arbitrary<Json>): fc.Arbitrary<Json> =>
  fc.tuple(fc.constantFrom(...OPS), fc.array(fc.tuple(fc.constantFrom('amount', 'objects', 'ops', 'value', '__proto__', 'x'), leaf), { maxLength: 2 })).map(([op, rest]) => new Obj([['__op', op], ...rest]));

/** Any JSON value, hostile at every level: typed values, operators, deep nesting, odd numbers. */
export function hostileValue(className: fc.Arbitrary<string>, objectId: fc.Arbitrary<string>): fc.Arbitrary<Json> {
  const { value } = fc.letrec<{ value: Json; leaf: Json }>((tie) => ({
    leaf: fc.oneof(
      { weight: 4, arbitrary: hostileString },
      { weight: 3, arbitrary: hostileNumber },
      { weight: 1, arbitrary: fc.constantFrom<Json>(true, false, null) },
    ),
    // Deep nesting and huge strings are rare in any one value: a request holds many values, and
    // one of them is enough to have it refused before the rest is looked at.
    value: fc.oneof(
      { depthSize: 'small', maxDepth: 4 },
      { weight: 24, arbitrary: tie('leaf') },
      { weight: 6, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
      { weight: 6, arbitrary: fc.array(fc.tuple(hostileKey, tie('value')), { maxLength: 4 }).map((entries) => new Obj(entries)) },
      { weight: 6, arbitrary: TYPED_VALUES(className, objectId, tie('leaf')) },
      { weight: 3, arbitrary: FIELD_OPS(tie('value')) },
      { weight: 1, arbitrary: deepJson },
      { weight: 1, arbitrary: hugeString },
    ),
  }));
  return value;
}

/** Request bodies that are not a JSON object, or not JSON at all. */
export const MALFORMED_BODIES = [
  '', ' ', '{', '}', '{"a":}', '{"a":1,}', "{'a':1}", '{a:1}', 'nul', '[1,2', '{"a":NaN}', '{"a":Infinity}', '{"a":-Infinity}',
  '{"a":undefined}', '{"a":1}{"b":2}', '{"a":"\\x41"}', '{"a":"\\ud800"}', '{"a":"\\u0000"}', '{"\\u0000":1}', '{"a":"\u0000"}',
  '{"__proto__":{"x":1}}', '{"__pro\\u0074o__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}', '"a string"', '42', 'true', 'null',
  '[]', '[{}]', '{"a":1e400}', '{"a":01}', '{"a":.5}', '{"a":+1}', '{"a":0x10}', '\ufeff{}', '{"a":"\t"}', '{"a"\u00001}', '\u0000',
  '{"a":1 /* c */}', '{"a":[1,]}', '{"a":"' + 'z'.repeat(5000),
];
