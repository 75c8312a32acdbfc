import { ITEM_NAMES } from '../helpers/query-data.ts';
import { queryTable, type QueryCase } from '../helpers/query-table.ts';

/**
 * Spec 4.2, field constraints: equality (containment on arrays), comparisons, $in/$nin, $exists,
 * $all, $containedBy, Pointers, Dates, the built-in dates and dot notation into Objects. The data
 * set is in test/helpers/query-data.ts; every answer is the exact set of item names.
 */

const date = (iso: string) => ({ __type: 'Date', iso });
const except = (...names: string[]) => ITEM_NAMES.filter((name) => !names.includes(name));

const CASES: QueryCase[] = [
  // Equality
  { title: 'a Number equals a number', where: { score: 20 }, expect: ['bravo'] },
  { title: 'a Number equals a fraction', where: { score: 2.5 }, expect: ['golf'] },
  { title: 'a Number equals zero', where: { score: 0 }, expect: ['hotel'] },
  { title: 'a Number never equals a string', where: { score: '20' }, expect: [] },
  { title: 'a Boolean equals true', where: { active: true }, expect: ['alpha', 'charlie', 'echo', 'golf', 'india'] },
  { title: 'a Boolean equals false', where: { active: false }, expect: ['bravo', 'delta', 'foxtrot'] },
  { title: 'a String equals a string', where: { name: 'alpha' }, expect: ['alpha'] },
  { title: 'null matches a missing or null field', where: { score: null }, expect: ['juliet', 'kilo'] },
  { title: '$eq is equality', where: { score: { $eq: 30 } }, expect: ['charlie'] },
  { title: 'a Date equals a Date', where: { when: date('2024-03-01T00:00:00.000Z') }, expect: ['charlie'] },
  { title: 'a Date equals the same instant written with an offset', where: { when: date('2024-03-01T01:00:00+01:00') }, expect: ['charlie'] },
  { title: 'several keys must all match', where: { active: true, score: 30 }, expect: ['charlie'] },
  { title: 'an unknown field equals nothing', where: { nothere: 1 }, expect: [] },

  // Arrays: equality with a value means "contains"; with an array, the whole array
  { title: 'an Array contains a string', where: { tags: 'red' }, expect: ['alpha', 'charlie', 'foxtrot'] },
  { title: 'Array containment is case-sensitive', where: { tags: 'Red' }, expect: ['echo'] },
  { title: 'an Array contains a number', where: { tags: 3 }, expect: ['lima'] },
  { title: 'an Array of a number does not contain its string', where: { tags: '3' }, expect: [] },
  { title: 'an Array contains a boolean', where: { tags: true }, expect: ['lima'] },
  { title: 'an Array equals a whole array', where: { tags: ['red', 'blue'] }, expect: ['alpha'] },
  { title: 'whole-array equality keeps element order', where: { tags: ['blue', 'red'] }, expect: [] },
  { title: 'an Array equals the empty array', where: { tags: [] }, expect: ['delta'] },
  { title: 'an Array of Pointers contains a Pointer', where: (s) => ({ owners: s.pointer('ann') }), expect: ['alpha', 'echo'] },

  // Pointers
  { title: 'a Pointer equals a Pointer', where: (s) => ({ owner: s.pointer('ann') }), expect: ['alpha', 'delta'] },
  { title: '$ne on a Pointer also matches objects without it', where: (s) => ({ owner: { $ne: s.pointer('ann') } }), expect: except('alpha', 'delta') },

  // Objects and dot notation
  { title: 'an Object equals an object', where: { meta: { level: 4, color: 'red' } }, expect: ['delta'] },
  { title: 'Object equality ignores key order', where: { meta: { color: 'red', level: 4 } }, expect: ['delta'] },
  { title: 'Object equality needs every key', where: { meta: { color: 'red' } }, expect: [] },
  { title: 'dot notation: a nested string', where: { 'meta.color': 'red' }, expect: ['alpha', 'delta', 'foxtrot'] },
  { title: 'dot notation: two levels deep', where: { 'meta.size.w': 1 }, expect: ['alpha', 'foxtrot'] },
  { title: 'dot notation: four levels deep', where: { 'meta.deep.x.y': 'z' }, expect: ['india'] },
  { title: 'dot notation: a nested object', where: { 'meta.size': { w: 1 } }, expect: ['foxtrot'] },
  { title: 'dot notation: 1 does not equal true', where: { 'meta.level': 1 }, expect: ['alpha'] },
  { title: 'dot notation: true does not equal 1', where: { 'meta.level': true }, expect: ['lima'] },
  { title: 'dot notation: a string does not equal a number', where: { 'meta.level': '5' }, expect: [] },
  { title: 'dot notation: a number does not equal a string', where: { 'meta.color': 5 }, expect: ['lima'] },
  { title: 'dot notation: null matches a missing key', where: { 'meta.size': null }, expect: ['delta', 'echo', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'] },
  { title: 'dot notation: an index into an Array', where: { 'tags.0': 'red' }, expect: ['alpha', 'foxtrot'] },
  { title: 'dot notation: a second index into an Array', where: { 'tags.1': 3 }, expect: ['lima'] },
  { title: 'a string never equals an Object field', where: { meta: '{"level":4,"color":"red"}' }, expect: [] },

  // Comparisons on numbers, strings and Dates
  { title: '$lt on a Number', where: { score: { $lt: 10 } }, expect: ['foxtrot', 'golf', 'hotel', 'lima'] },
  { title: '$lte on a Number', where: { score: { $lte: 10 } }, expect: ['alpha', 'foxtrot', 'golf', 'hotel', 'lima'] },
  { title: '$gt on a Number', where: { score: { $gt: 40 } }, expect: ['echo', 'india'] },
  { title: '$gte on a Number', where: { score: { $gte: 40 } }, expect: ['delta', 'echo', 'india'] },
  { title: 'a range on a Number', where: { score: { $gt: 0, $lt: 30 } }, expect: ['alpha', 'bravo', 'golf', 'lima'] },
  { title: '$ne on a Number also matches objects without it', where: { score: { $ne: 20 } }, expect: except('bravo') },
  { title: '$ne null matches objects with the field', where: { score: { $ne: null } }, expect: except('juliet', 'kilo') },
  { title: 'a Number compared with a string matches nothing', where: { score: { $gt: '5' } }, expect: [] },
  { title: '$gt on a String', where: { name: { $gt: 'india' } }, expect: ['juliet', 'kilo', 'lima'] },
  { title: '$lte on a String', where: { name: { $lte: 'bravo' } }, expect: ['alpha', 'bravo'] },
  { title: 'strings compare byte by byte', where: { 'meta.color': { $gte: 'a' } }, expect: ['alpha', 'bravo', 'charlie', 'delta', 'foxtrot', 'india'] },
  { title: 'dot notation: $lt on strings skips numbers', where: { 'meta.color': { $lt: 'a' } }, expect: ['echo'] },
  { title: 'dot notation: $gt on numbers skips strings', where: { 'meta.level': { $gt: 2 } }, expect: ['charlie', 'delta', 'echo', 'india'] },
  { title: 'dot notation: $lte on numbers skips booleans', where: { 'meta.level': { $lte: 1 } }, expect: ['alpha'] },
  { title: '$lt on a Date', where: { when: { $lt: date('2024-01-01T00:00:00.000Z') } }, expect: ['foxtrot'] },
  { title: '$lte on a Date', where: { when: { $lte: date('2024-01-01T00:00:00.000Z') } }, expect: ['alpha', 'foxtrot'] },
  { title: 'a range on a Date', where: { when: { $gt: date('2024-03-01T00:00:00.000Z'), $lt: date('2024-06-15T12:30:00.000Z') } }, expect: ['delta', 'echo'] },
  { title: '$gte on a Date given with an offset', where: { when: { $gte: date('2024-06-15T14:30:00+02:00') } }, expect: ['golf', 'india'] },
  { title: '$ne on a Date', where: { when: { $ne: date('2024-01-01T00:00:00.000Z') } }, expect: except('alpha') },
  { title: 'createdAt $lt', where: (s) => ({ createdAt: { $lt: s.created('delta') } }), expect: ['alpha', 'bravo', 'charlie'] },
  { title: 'createdAt $gte', where: (s) => ({ createdAt: { $gte: s.created('kilo') } }), expect: ['kilo', 'lima'] },
  { title: 'createdAt equality', where: (s) => ({ createdAt: s.created('echo') }), expect: ['echo'] },
  { title: 'updatedAt $gt', where: (s) => ({ updatedAt: { $gt: s.created('lima') } }), expect: ['bravo', 'delta'] },
  { title: 'updatedAt $lte', where: (s) => ({ updatedAt: { $lte: s.created('lima') } }), expect: except('bravo', 'delta') },
  { title: 'objectId equality', where: (s) => ({ objectId: s.ids.golf }), expect: ['golf'] },

  // $in and $nin
  { title: '$in on a Number', where: { score: { $in: [10, 30, 999] } }, expect: ['alpha', 'charlie'] },
  { title: '$nin on a Number also matches objects without it', where: { score: { $nin: [10, 30] } }, expect: except('alpha', 'charlie') },
  { title: '$in with null also matches objects without the field', where: { score: { $in: [null, 20] } }, expect: ['bravo', 'juliet', 'kilo'] },
  { title: '$in on a String', where: { name: { $in: ['alpha', 'zulu'] } }, expect: ['alpha'] },
  { title: '$in on objectId', where: (s) => ({ objectId: { $in: [s.ids.alpha, s.ids.kilo] } }), expect: ['alpha', 'kilo'] },
  { title: '$in of nothing matches nothing', where: { score: { $in: [] } }, expect: [] },
  { title: '$nin of nothing matches everything', where: { score: { $nin: [] } }, expect: [...ITEM_NAMES] },
  { title: '$in on Dates', where: { when: { $in: [date('2024-02-01T00:00:00.000Z'), date('2025-01-01T00:00:00.000Z')] } }, expect: ['bravo', 'india'] },
  { title: '$in on an Array: any element', where: { tags: { $in: ['green', 'yellow'] } }, expect: ['charlie', 'golf', 'india'] },
  { title: '$nin on an Array: no element', where: { tags: { $nin: ['red', 'blue'] } }, expect: ['delta', 'echo', 'golf', 'hotel', 'juliet', 'kilo'] },
  { title: '$in on a Pointer', where: (s) => ({ owner: { $in: [s.pointer('ann'), s.pointer('dee')] } }), expect: ['alpha', 'delta', 'foxtrot'] },
  { title: '$nin on a Pointer', where: (s) => ({ owner: { $nin: [s.pointer('ann'), s.pointer('dee')] } }), expect: except('alpha', 'delta', 'foxtrot') },
  { title: '$in on an Array of Pointers', where: (s) => ({ owners: { $in: [s.pointer('cid'), s.pointer('dee')] } }), expect: ['charlie', 'echo', 'foxtrot', 'india'] },
  { title: '$nin on an Array of Pointers', where: (s) => ({ owners: { $nin: [s.pointer('ann'), s.pointer('bob')] } }), expect: ['charlie', 'delta', 'foxtrot', 'golf', 'hotel', 'juliet', 'kilo', 'lima'] },

  // $exists
  { title: '$exists true on a Pointer', where: { owner: { $exists: true } }, expect: ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'india'] },
  { title: '$exists false on a Pointer', where: { owner: { $exists: false } }, expect: ['golf', 'hotel', 'juliet', 'kilo', 'lima'] },
  { title: '$exists true counts an empty array', where: { tags: { $exists: true } }, expect: except('hotel', 'juliet', 'kilo') },
  { title: '$exists false counts null as missing', where: { meta: { $exists: false } }, expect: ['hotel', 'juliet', 'kilo'] },
  { title: '$exists on a Number', where: { score: { $exists: true } }, expect: except('juliet', 'kilo') },
  { title: '$exists with dot notation', where: { 'meta.size': { $exists: true } }, expect: ['alpha', 'bravo', 'charlie', 'foxtrot'] },
  { title: '$exists on a field set by an update', where: { touched: { $exists: true } }, expect: ['bravo', 'delta'] },
  { title: '$exists false on an unknown field matches everything', where: { nothere: { $exists: false } }, expect: [...ITEM_NAMES] },
  { title: '$exists true on an unknown field matches nothing', where: { nothere: { $exists: true } }, expect: [] },

  // $all and $containedBy
  { title: '$all on an Array', where: { tags: { $all: ['red', 'blue'] } }, expect: ['alpha', 'charlie'] },
  { title: '$all of one value', where: { tags: { $all: ['red'] } }, expect: ['alpha', 'charlie', 'foxtrot'] },
  { title: '$all of nothing matches nothing', where: { tags: { $all: [] } }, expect: [] },
  { title: '$all on an Array of Pointers', where: (s) => ({ owners: { $all: [s.pointer('bob'), s.pointer('cid')] } }), expect: ['india'] },
  { title: '$all of one Pointer', where: (s) => ({ owners: { $all: [s.pointer('ann')] } }), expect: ['alpha', 'echo'] },
  { title: '$containedBy on an Array', where: { tags: { $containedBy: ['red', 'blue'] } }, expect: ['alpha', 'bravo', 'delta', 'foxtrot'] },
  { title: '$containedBy of nothing: only empty arrays', where: { tags: { $containedBy: [] } }, expect: ['delta'] },
  { title: '$containedBy on an Array of Pointers', where: (s) => ({ owners: { $containedBy: [s.pointer('ann'), s.pointer('bob')] } }), expect: ['alpha', 'bravo', 'delta', 'golf'] },

  // Booleans
  { title: '$ne on a Boolean', where: { active: { $ne: true } }, expect: ['bravo', 'delta', 'foxtrot', 'hotel', 'juliet', 'kilo', 'lima'] },
  { title: 'a Boolean never equals 1', where: { active: 1 }, expect: [] },
];

queryTable('query operators', CASES);
