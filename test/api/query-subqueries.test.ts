import { ITEM_NAMES } from '../helpers/query-data.ts';
import { queryTable, type QueryCase } from '../helpers/query-table.ts';

/**
 * Spec 4.2: inner queries ($inQuery, $notInQuery, $select, $dontSelect), $relatedTo, Relations
 * queried like arrays of Pointers (spec 2.2), and $or, $and and $nor with constraints beside them.
 * Persons: ann (30, Oslo, fav red), bob (40, Rome, green), cid (50, Oslo, purple), dee (60);
 * ann likes alpha and charlie, bob likes bravo.
 */

const except = (...names: string[]) => ITEM_NAMES.filter((name) => !names.includes(name));

const CASES: QueryCase[] = [
  // $inQuery and $notInQuery
  { title: '$inQuery on a Pointer', where: (s) => ({ owner: { $inQuery: { className: s.classes.person, where: { city: 'Oslo' } } } }), expect: ['alpha', 'charlie', 'delta', 'india'] },
  { title: '$notInQuery on a Pointer, missing Pointers included', where: (s) => ({ owner: { $notInQuery: { className: s.classes.person, where: { city: 'Oslo' } } } }), expect: except('alpha', 'charlie', 'delta', 'india') },
  { title: '$inQuery with an empty inner where', where: (s) => ({ owner: { $inQuery: { className: s.classes.person, where: {} } } }), expect: ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'india'] },
  { title: '$inQuery finding nothing', where: (s) => ({ owner: { $inQuery: { className: s.classes.person, where: { age: { $gt: 100 } } } } }), expect: [] },
  { title: '$inQuery on an Array of Pointers', where: (s) => ({ owners: { $inQuery: { className: s.classes.person, where: { city: 'Oslo' } } } }), expect: ['alpha', 'charlie', 'echo', 'india'] },
  { title: '$notInQuery on an Array of Pointers', where: (s) => ({ owners: { $notInQuery: { className: s.classes.person, where: { city: 'Oslo' } } } }), expect: except('alpha', 'charlie', 'echo', 'india') },
  { title: '$inQuery with $or inside', where: (s) => ({ owner: { $inQuery: { className: s.classes.person, where: { $or: [{ age: 30 }, { age: 60 }] } } } }), expect: ['alpha', 'delta', 'foxtrot'] },
  { title: '$inQuery with $regex inside', where: (s) => ({ owner: { $inQuery: { className: s.classes.person, where: { name: { $regex: '^[ab]' } } } } }), expect: ['alpha', 'bravo', 'delta', 'echo'] },
  { title: '$inQuery with a limit that keeps every match', where: (s) => ({ owner: { $inQuery: { className: s.classes.person, where: { age: 30 }, limit: 1 } } }), expect: ['alpha', 'delta'] },
  // Above 100 inner values PostgreSQL keeps `IN (SELECT …)` rather than an array (docs/architecture.md "Query plans").
  { title: '$inQuery and $notInQuery with an inner limit above 100', where: (s) => ({ owner: { $inQuery: { className: s.classes.person, where: { city: 'Oslo' }, limit: 500 } }, owners: { $notInQuery: { className: s.classes.person, where: { city: 'Oslo' }, limit: 1000 } } }), expect: ['delta'] },
  { title: '$inQuery of a class that does not exist', where: { owner: { $inQuery: { className: 'NoSuchClass', where: {} } } }, expect: [] },
  { title: '$notInQuery of a class that does not exist', where: { owner: { $notInQuery: { className: 'NoSuchClass', where: {} } } }, expect: [...ITEM_NAMES] },
  { title: '$inQuery beside another constraint on the key', where: (s) => ({ owner: { $inQuery: { className: s.classes.person, where: {} }, $ne: s.pointer('ann') } }), expect: ['bravo', 'charlie', 'echo', 'foxtrot', 'india'] },

  // $select and $dontSelect
  { title: '$select', where: (s) => ({ score: { $select: { query: { className: s.classes.person, where: { city: 'Oslo' } }, key: 'age' } } }), expect: ['charlie', 'echo'] },
  { title: '$dontSelect, missing values included', where: (s) => ({ score: { $dontSelect: { query: { className: s.classes.person, where: { city: 'Oslo' } }, key: 'age' } } }), expect: except('charlie', 'echo') },
  { title: '$select on an Array', where: (s) => ({ tags: { $select: { query: { className: s.classes.person, where: {} }, key: 'fav' } } }), expect: ['alpha', 'charlie', 'foxtrot', 'india'] },
  { title: '$dontSelect on an Array', where: (s) => ({ tags: { $dontSelect: { query: { className: s.classes.person, where: {} }, key: 'fav' } } }), expect: ['bravo', 'delta', 'echo', 'golf', 'hotel', 'juliet', 'kilo', 'lima'] },
  { title: '$select with dot notation', where: (s) => ({ 'meta.color': { $select: { query: { className: s.classes.person, where: {} }, key: 'fav' } } }), expect: ['alpha', 'charlie', 'delta', 'foxtrot'] },
  { title: '$select of a key the inner class lacks', where: (s) => ({ score: { $select: { query: { className: s.classes.person, where: {} }, key: 'nothere' } } }), expect: [] },
  { title: '$dontSelect of a key the inner class lacks', where: (s) => ({ score: { $dontSelect: { query: { className: s.classes.person, where: {} }, key: 'nothere' } } }), expect: [...ITEM_NAMES] },

  // $relatedTo
  { title: '$relatedTo', where: (s) => ({ $relatedTo: { object: s.pointer('ann'), key: 'likes' } }), expect: ['alpha', 'charlie'] },
  { title: '$relatedTo of another owner', where: (s) => ({ $relatedTo: { object: s.pointer('bob'), key: 'likes' } }), expect: ['bravo'] },
  { title: '$relatedTo of an owner with no members', where: (s) => ({ $relatedTo: { object: s.pointer('cid'), key: 'likes' } }), expect: [] },
  { title: '$relatedTo beside other constraints', where: (s) => ({ $relatedTo: { object: s.pointer('ann'), key: 'likes' }, score: { $gt: 10 } }), expect: ['charlie'] },
  { title: '$relatedTo of a key that is no Relation', where: (s) => ({ $relatedTo: { object: s.pointer('ann'), key: 'city' } }), expect: [] },
  { title: '$relatedTo inside $or', where: (s) => ({ $or: [{ $relatedTo: { object: s.pointer('ann'), key: 'likes' } }, { name: 'echo' }] }), expect: ['alpha', 'charlie', 'echo'] },

  // A Relation is queried like an array of Pointers (spec 2.2)
  { on: 'person', title: 'a Relation contains a Pointer', where: (s) => ({ likes: s.pointer('alpha') }), expect: ['ann'] },
  { on: 'person', title: '$in on a Relation', where: (s) => ({ likes: { $in: [s.pointer('bravo'), s.pointer('charlie')] } }), expect: ['ann', 'bob'] },
  { on: 'person', title: '$nin on a Relation', where: (s) => ({ likes: { $nin: [s.pointer('alpha')] } }), expect: ['bob', 'cid', 'dee'] },
  { on: 'person', title: '$ne on a Relation', where: (s) => ({ likes: { $ne: s.pointer('alpha') } }), expect: ['bob', 'cid', 'dee'] },
  { on: 'person', title: '$all on a Relation', where: (s) => ({ likes: { $all: [s.pointer('alpha'), s.pointer('charlie')] } }), expect: ['ann'] },
  { on: 'person', title: '$all on a Relation, one missing', where: (s) => ({ likes: { $all: [s.pointer('alpha'), s.pointer('bravo')] } }), expect: [] },
  { on: 'person', title: '$inQuery on a Relation', where: (s) => ({ likes: { $inQuery: { className: s.classes.item, where: { score: { $lt: 25 } } } } }), expect: ['ann', 'bob'] },
  { on: 'person', title: '$notInQuery on a Relation', where: (s) => ({ likes: { $notInQuery: { className: s.classes.item, where: { score: { $lt: 25 } } } } }), expect: ['cid', 'dee'] },
  { on: 'person', title: 'a Relation beside other constraints', where: (s) => ({ likes: s.pointer('bravo'), age: { $gte: 40 } }), expect: ['bob'] },

  // $or, $and, $nor
  { title: '$or with a constraint beside it', where: { $or: [{ score: { $lt: 0 } }, { score: { $gt: 45 } }], active: true }, expect: ['echo', 'india'] },
  { title: '$or of different keys', where: { $or: [{ name: 'alpha' }, { tags: 'yellow' }] }, expect: ['alpha', 'golf'] },
  { title: '$or of one branch', where: { $or: [{ score: 20 }] }, expect: ['bravo'] },
  { title: '$or with $and inside', where: { $or: [{ $and: [{ active: true }, { score: { $gt: 40 } }] }, { name: 'hotel' }] }, expect: ['echo', 'hotel', 'india'] },
  { title: '$or with $exists false', where: { $or: [{ owner: { $exists: false } }, { score: { $lt: 0 } }] }, expect: ['foxtrot', 'golf', 'hotel', 'juliet', 'kilo', 'lima'] },
  { title: '$or with $inQuery inside', where: (s) => ({ $or: [{ owner: { $inQuery: { className: s.classes.person, where: { city: 'Rome' } } } }, { name: 'golf' }] }), expect: ['bravo', 'echo', 'golf'] },
  { title: '$or nested in $or', where: { $or: [{ $or: [{ score: 10 }, { score: 20 }] }, { $or: [{ name: 'lima' }] }] }, expect: ['alpha', 'bravo', 'lima'] },
  { title: '$and of two containments', where: { $and: [{ tags: 'red' }, { tags: 'blue' }] }, expect: ['alpha', 'charlie'] },
  { title: '$and of two $or', where: { $and: [{ $or: [{ score: 10 }, { score: 20 }] }, { $or: [{ active: true }, { name: 'bravo' }] }] }, expect: ['alpha', 'bravo'] },
  { title: '$and beside the same key', where: { score: { $gt: 5 }, $and: [{ score: { $lt: 25 } }] }, expect: ['alpha', 'bravo', 'lima'] },
  { title: '$nor', where: { $nor: [{ tags: 'red' }, { score: { $gte: 40 } }] }, expect: ['bravo', 'golf', 'hotel', 'juliet', 'kilo', 'lima'] },
  { title: '$nor with a constraint beside it', where: { $nor: [{ active: true }], score: { $exists: true } }, expect: ['bravo', 'delta', 'foxtrot', 'hotel', 'lima'] },
  { title: '$eq and $ne inside $or', where: { $or: [{ score: { $eq: 2.5 } }, { name: { $ne: 'alpha' }, score: { $lt: 5 } }] }, expect: ['foxtrot', 'golf', 'hotel'] },
];

queryTable('query subqueries and logic', CASES);
