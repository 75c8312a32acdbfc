import { queryTable, type QueryCase } from '../helpers/query-table.ts';

/**
 * Queries that must fail, and with which code: 102 for an unknown operator or a wrong operand,
 * for geo constraints and query options inside $or/$and/$nor (spec 4.2); 107 for a where that is
 * not JSON; 105 for a bad key; 117/118 for a bad limit or skip.
 */

const INVALID_QUERY = { status: 400, code: 102 };
const geo = (latitude: number, longitude: number) => ({ __type: 'GeoPoint', latitude, longitude });

const CASES: QueryCase[] = [
  { title: 'an unknown operator', where: { score: { $foo: 1 } }, error: INVALID_QUERY },
  { title: 'an unknown top-level operator', where: { $foo: [{ score: 1 }] }, error: INVALID_QUERY },
  { title: 'an unknown operator beside a known one', where: { score: { $gt: 1, $size: 2 } }, error: INVALID_QUERY },
  { title: '$in with a non-array', where: { score: { $in: 5 } }, error: INVALID_QUERY },
  { title: '$nin with a non-array', where: { score: { $nin: 'x' } }, error: INVALID_QUERY },
  { title: '$all with a non-array', where: { tags: { $all: 'red' } }, error: INVALID_QUERY },
  { title: '$all on a field that is no Array', where: { score: { $all: [1] } }, error: INVALID_QUERY },
  { title: '$containedBy with a non-array', where: { tags: { $containedBy: 'red' } }, error: INVALID_QUERY },
  { title: '$exists with a string', where: { score: { $exists: 'yes' } }, error: INVALID_QUERY },
  { title: '$exists with a number', where: { score: { $exists: 1 } }, error: INVALID_QUERY },
  { title: '$lt with a Pointer', where: (s) => ({ owner: { $lt: s.pointer('ann') } }), error: INVALID_QUERY },
  { title: '$gt with an object', where: { score: { $gt: { a: 1 } } }, error: INVALID_QUERY },
  { title: '$gte with an array', where: { score: { $gte: [1] } }, error: INVALID_QUERY },
  { title: 'equality with an unknown __type', where: { score: { __type: 'Foo' } }, error: INVALID_QUERY },
  { title: 'a Relation compared with a string', on: 'person', where: { likes: 'alpha' }, error: INVALID_QUERY },

  { title: '$regex with a number', where: { name: { $regex: 5 } }, error: INVALID_QUERY },
  { title: '$options with a letter other than i, m, s, x', where: { name: { $regex: 'a', $options: 'g' } }, error: INVALID_QUERY },
  { title: '$options that is not a string', where: { name: { $regex: 'a', $options: 1 } }, error: INVALID_QUERY },
  { title: '$options without $regex', where: { name: { $options: 'i' } }, error: INVALID_QUERY },
  { title: 'an invalid regular expression', where: { name: { $regex: '(' } }, error: INVALID_QUERY },
  { title: 'a Unicode property escape', where: { name: { $regex: '\\p{L}' } }, error: INVALID_QUERY },
  { title: 'an unknown POSIX class', where: { name: { $regex: '[[:foo:]]' } }, error: INVALID_QUERY },
  { title: 'a back-reference to no group', where: { name: { $regex: 'a\\1' } }, error: INVALID_QUERY },

  { title: '$text without $search', where: { body: { $text: { $term: 'x' } } }, error: INVALID_QUERY },
  { title: '$text with a blank term', where: { body: { $text: { $search: { $term: '   ' } } } }, error: INVALID_QUERY },
  { title: '$text with an unknown $language', where: { body: { $text: { $search: { $term: 'x', $language: 'klingon' } } } }, error: INVALID_QUERY },
  { title: '$text with $caseSensitive true', where: { body: { $text: { $search: { $term: 'x', $caseSensitive: true } } } }, error: INVALID_QUERY },
  { title: '$text on a Number field', where: { score: { $text: { $search: { $term: 'x' } } } }, error: INVALID_QUERY },

  { title: '$nearSphere inside $or', where: { $or: [{ place: { $nearSphere: geo(60, 10) } }, { score: 1 }] }, error: INVALID_QUERY },
  { title: '$within inside $or', where: { $or: [{ place: { $within: { $box: [geo(57, 10), geo(61, 12)] } } }] }, error: INVALID_QUERY },
  { title: '$geoWithin inside $and', where: { $and: [{ place: { $geoWithin: { $centerSphere: [[10, 60], 0.1] } } }] }, error: INVALID_QUERY },
  { title: '$geoIntersects inside $nor', where: { $nor: [{ area: { $geoIntersects: { $point: geo(2, 2) } } }] }, error: INVALID_QUERY },
  { title: 'limit inside $or', where: { $or: [{ score: 1, limit: 1 }] }, error: INVALID_QUERY },
  { title: 'order inside $or', where: { $or: [{ score: 1 }, { order: 'name' }] }, error: INVALID_QUERY },
  { title: 'skip inside $and', where: { $and: [{ skip: 1 }] }, error: INVALID_QUERY },
  { title: '$or with a non-array', where: { $or: { score: 1 } }, error: INVALID_QUERY },
  { title: '$or with an empty array', where: { $or: [] }, error: INVALID_QUERY },
  { title: '$and with a non-object branch', where: { $and: [1] }, error: INVALID_QUERY },

  { title: '$nearSphere with a non-GeoPoint', where: { place: { $nearSphere: [10, 60] } }, error: INVALID_QUERY },
  { title: '$nearSphere at latitude 90', where: { place: { $nearSphere: geo(90, 0) } }, error: INVALID_QUERY },
  { title: '$nearSphere on a field that is no GeoPoint', where: { name: { $nearSphere: geo(60, 10) } }, error: INVALID_QUERY },
  { title: '$maxDistance without $nearSphere', where: { place: { $maxDistance: 1 } }, error: INVALID_QUERY },
  { title: 'a negative $maxDistanceInMiles', where: { place: { $nearSphere: geo(60, 10), $maxDistanceInMiles: -1 } }, error: INVALID_QUERY },
  { title: 'two maximum distances', where: { place: { $nearSphere: geo(60, 10), $maxDistanceInMiles: 1, $maxDistanceInKilometers: 1 } }, error: INVALID_QUERY },
  { title: '$box with one corner', where: { place: { $within: { $box: [geo(57, 10)] } } }, error: INVALID_QUERY },
  { title: '$box with the south-west corner north of the north-east one', where: { place: { $within: { $box: [geo(61, 10), geo(57, 12)] } } }, error: INVALID_QUERY },
  { title: '$polygon of two points', where: { place: { $geoWithin: { $polygon: [[1, 1], [2, 2]] } } }, error: INVALID_QUERY },
  { title: '$centerSphere with a negative radius', where: { place: { $geoWithin: { $centerSphere: [[10, 60], -1] } } }, error: INVALID_QUERY },
  { title: '$geoWithin without a shape', where: { place: { $geoWithin: { $circle: 1 } } }, error: INVALID_QUERY },
  { title: '$geoIntersects on a GeoPoint field', where: { place: { $geoIntersects: { $point: geo(2, 2) } } }, error: INVALID_QUERY },
  { title: '$geoIntersects without $point', where: { area: { $geoIntersects: geo(2, 2) } }, error: INVALID_QUERY },

  { title: '$inQuery without a className', where: { owner: { $inQuery: { where: {} } } }, error: INVALID_QUERY },
  { title: '$inQuery on a field that is no Pointer', where: (s) => ({ score: { $inQuery: { className: s.classes.person, where: {} } } }), error: INVALID_QUERY },
  { title: '$select without a key', where: (s) => ({ score: { $select: { query: { className: s.classes.person, where: {} } } } }), error: INVALID_QUERY },
  { title: '$dontSelect with a query that is no object', where: { score: { $dontSelect: { query: 'x', key: 'age' } } }, error: INVALID_QUERY },
  { title: '$inQuery with a negative limit', where: (s) => ({ owner: { $inQuery: { className: s.classes.person, where: {}, limit: -1 } } }), error: { status: 400, code: 117 } },
  { title: '$relatedTo without a Pointer', where: { $relatedTo: { object: 'x', key: 'likes' } }, error: INVALID_QUERY },
  { title: '$relatedTo without a key', where: (s) => ({ $relatedTo: { object: s.pointer('ann') } }), error: INVALID_QUERY },

  { title: 'a where that is not JSON', rawWhere: '{"score":', error: { status: 400, code: 107 } },
  { title: 'a where that is not JSON at all', rawWhere: 'score=1', error: { status: 400, code: 107 } },
  { title: 'a where that is an array', rawWhere: '[1]', error: INVALID_QUERY },
  { title: 'a key with a space', where: { 'a b': 1 }, error: { status: 400, code: 105 } },
  { title: 'dot notation with an operator in the path', where: { 'meta.$x': 1 }, error: { status: 400, code: 105 } },
  { title: 'a negative limit', limit: -1, error: { status: 400, code: 117 } },
  { title: 'a limit that is not a number', limit: 'ten', error: { status: 400, code: 117 } },
  { title: 'a negative skip', skip: -1, error: { status: 400, code: 118 } },
];

queryTable('query refusals', CASES);
