import fc from 'fast-check';
import { hostileString, INJECTIONS, Obj, obj, Raw, type Json } from './json.ts';
import type { World } from './requests.ts';

/** The fields of the fuzz class (requests.ts creates it with a value of each type). */
export const FIELDS = ['name', 'score', 'tags', 'when', 'owner', 'place', 'meta', 'flag', 'blob', 'objectId', 'createdAt', 'updatedAt', 'ACL'];

const OPERATORS = [
  '$lt', '$lte', '$gt', '$gte', '$ne', '$eq', '$in', '$nin', '$exists', '$select', '$dontSelect', '$inQuery', '$notInQuery', '$all',
  '$regex', '$options', '$text', '$search', '$term', '$language', '$caseSensitive', '$diacriticSensitive', '$nearSphere', '$maxDistance',
  '$maxDistanceInRadians', '$maxDistanceInKilometers', '$maxDistanceInMiles', '$within', '$box', '$geoWithin', '$polygon', '$centerSphere',
  '$geoIntersects', '$point', '$relatedTo', '$containedBy', '$elemMatch', '$size', '$type', '$mod', '$not', '$foo', '$where', '$expr',
  '__proto__', 'constructor', '$', '$$', 'key', 'query', 'where', 'className', 'object',
];

const REGEX_PARTS = ['a', 'b', '.', '*', '+', '?', '|', '(', ')', '[', ']', '{', '}', ',', '^', '$', '\\', 'd', 'w', 's', 'Q', 'E', '1', '3', '0', '-', ':', '=', '!', '<', '>', 'p', 'P', 'x'];

export const regexText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: fc.constantFrom(...REGEX_PARTS), maxLength: 24 }),
  fc.constantFrom(...INJECTIONS.filter((text) => /[()[\]{}*+?\\]/.test(text))),
  fc.integer({ min: 1, max: 70_000 }).map((count) => `a{${count}}`),
  fc.integer({ min: 1, max: 40 }).map((count) => `${'(a+)+'.repeat(count)}$`),
  hostileString,
);

const regexOptions = fc.oneof(fc.constantFrom('', 'i', 'm', 'x', 's', 'imxs', 'g', 'u', 'y', 'z', 'ii'), hostileString);

/** Any where: field maps, logical operators, every operator known or not, operands of any shape, nesting deep. */
export function hostileWhere(fieldName: fc.Arbitrary<string>, className: fc.Arbitrary<string>, value: fc.Arbitrary<Json>): fc.Arbitrary<Json> {
  const { where } = fc.letrec<{ where: Json; constraint: Json; operand: Json }>((tie) => ({
    where: fc.oneof(
      { depthSize: 'small', maxDepth: 3 },
      { weight: 12, arbitrary: fc.array(fc.tuple(fieldName, tie('constraint')), { maxLength: 3 }).map((entries) => new Obj(entries)) },
      { weight: 4, arbitrary: fc.tuple(fc.constantFrom('$or', '$and', '$nor', '$not', '$foo', '$where'), fc.oneof(fc.array(tie('where'), { maxLength: 3 }), value)).map(([op, items]) => new Obj([[op, items]])) },
      { weight: 1, arbitrary: fc.integer({ min: 10, max: 1_500 }).map((depth) => new Raw(`${'{"$or":['.repeat(depth)}{}${']}'.repeat(depth)}`)) },
      { weight: 2, arbitrary: value },
    ),
    constraint: fc.oneof(
      { weight: 2, arbitrary: value },
      { weight: 4, arbitrary: fc.array(fc.tuple(fc.constantFrom(...OPERATORS), tie('operand')), { minLength: 1, maxLength: 3 }).map((entries) => new Obj(entries)) },
      { weight: 2, arbitrary: fc.tuple(regexText, regexOptions).map(([pattern, options]) => obj({ $regex: pattern, $options: options })) },
    ),
    operand: fc.oneof(
      { weight: 4, arbitrary: value },
      { weight: 2, arbitrary: fc.array(value, { maxLength: 4 }) },
      { weight: 1, arbitrary: fc.record({ where: tie('where'), className, key: fieldName }).map((fields) => obj(fields)) },
      { weight: 1, arbitrary: fc.record({ query: fc.record({ where: tie('where'), className }).map((fields) => obj(fields)), key: fieldName }).map((fields) => obj(fields)) },
      { weight: 1, arbitrary: fc.record({ $search: hostileString, $language: hostileString, $caseSensitive: value }).map((fields) => obj(fields)) },
    ),
  }));
  return where;
}

/**
 * A query that is well formed but for one thing: a known operator on a field the class has,
 * with a value of about the right shape (or of a wrong one). Queries drawn from hostileWhere are
 * mostly refused at their first fault; these reach the compiler and the database.
 */
export function plausibleWhere(w: World, anyValue: fc.Arbitrary<Json>): fc.Arbitrary<Json> {
  const field = fc.constantFrom(...FIELDS.filter((name) => name !== 'ACL'), 'tags.0', 'meta.a', 'meta.a.b');
  const plain: fc.Arbitrary<Json> = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.integer({ min: -100, max: 100 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom(...w.objectIds),
    fc.date({ noInvalidDate: true }).map((date) => obj({ __type: 'Date', iso: date.toISOString() })),
    fc.constantFrom(...w.objectIds).map((objectId) => obj({ __type: 'Pointer', className: w.fuzzClass, objectId })),
    fc.constant(obj({ __type: 'Pointer', className: '_User', objectId: w.fuzzUserId })),
    fc.tuple(fc.double({ min: -90, max: 90, noNaN: true }), fc.double({ min: -180, max: 180, noNaN: true })).map(([latitude, longitude]) => obj({ __type: 'GeoPoint', latitude, longitude })),
  );
  const value: fc.Arbitrary<Json> = fc.oneof(
    { weight: 8, arbitrary: plain },
    { weight: 2, arbitrary: fc.array(plain, { maxLength: 3 }) },
    { weight: 2, arbitrary: fc.array(fc.tuple(fc.constantFrom('a', 'b', 'name', '$in', '__type', 'objectId'), plain), { minLength: 1, maxLength: 2 }).map((entries) => new Obj(entries)) },
    { weight: 2, arbitrary: anyValue },
  );
  const inner = fc.record({ className: fc.oneof(fc.constant(w.fuzzClass), fc.constantFrom('_User', 'Nope', '')), where: fc.oneof(fc.constant(obj({})), field.chain((name) => value.map((v) => obj({ [name]: v })))) }).map((fields) => obj(fields));
  const constraint: fc.Arbitrary<Json> = fc.oneof(
    { weight: 4, arbitrary: value },
    { weight: 4, arbitrary: fc.tuple(fc.constantFrom('$lt', '$lte', '$gt', '$gte', '$ne', '$eq'), value).map(([op, v]) => new Obj([[op, v]])) },
    { weight: 3, arbitrary: fc.tuple(fc.constantFrom('$in', '$nin', '$all', '$containedBy'), fc.oneof({ weight: 4, arbitrary: fc.array(value, { maxLength: 4 }) }, { weight: 1, arbitrary: value })).map(([op, v]) => new Obj([[op, v]])) },
    { weight: 1, arbitrary: fc.oneof(fc.boolean(), value).map((v) => obj({ $exists: v })) },
    { weight: 3, arbitrary: fc.tuple(regexText, fc.constantFrom('', 'i', 'm', 'x', 's', 'im', 'ixs')).map(([pattern, options]) => obj({ $regex: pattern, $options: options })) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom('$select', '$dontSelect'), inner, field).map(([op, query, key]) => new Obj([[op, obj({ query, key })]])) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom('$inQuery', '$notInQuery'), inner).map(([op, query]) => new Obj([[op, query]])) },
    { weight: 1, arbitrary: fc.tuple(value, fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), value)).map(([point, distance]) => obj({ $nearSphere: point, $maxDistance: distance })) },
    { weight: 1, arbitrary: fc.array(value, { maxLength: 3 }).map((box) => obj({ $within: obj({ $box: box }) })) },
    { weight: 1, arbitrary: fc.record({ $search: fc.string({ maxLength: 10 }), $caseSensitive: fc.boolean(), $diacriticSensitive: fc.boolean() }).map((search) => obj({ $text: obj(search) })) },
  );
  const single = fc.array(fc.tuple(field, constraint), { minLength: 1, maxLength: 2 }).map((entries) => new Obj(entries));
  return fc.oneof(
    { weight: 6, arbitrary: single },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('$or', '$and', '$nor'), fc.array(single, { minLength: 1, maxLength: 3 })).map(([op, items]) => new Obj([[op, items]])) },
    { weight: 1, arbitrary: fc.record({ $relatedTo: fc.record({ object: fc.constantFrom(...w.objectIds).map((objectId) => obj({ __type: 'Pointer', className: w.fuzzClass, objectId })), key: field }).map((fields) => obj(fields)) }).map((fields) => obj(fields)) },
  );
}
