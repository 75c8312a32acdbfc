import { BULK_SIZE, ITEM_NAMES } from '../helpers/query-data.ts';
import { queryTable, type QueryCase, type Seed } from '../helpers/query-table.ts';

/**
 * Spec 4.2: `order` (several keys, `-` descending, ties broken by objectId so paging is stable),
 * `limit` (default 100, at most 1000, clamped), `skip`, `count`, and the limit of inner queries
 * (default 100, `limit` up to 1000). Objects missing a sort key come first ascending and last
 * descending. Expectations that depend on objectIds are computed from the seeded ids.
 */

const byScore = ['foxtrot', 'hotel', 'golf', 'lima', 'alpha', 'bravo', 'charlie', 'delta', 'echo', 'india'];
/** `order=active`: missing, then false, then true; each group in objectId order. */
const byActive = (s: Seed) => [
  ...s.byId(['hotel', 'juliet', 'kilo', 'lima']),
  ...s.byId(['bravo', 'delta', 'foxtrot']),
  ...s.byId(['alpha', 'charlie', 'echo', 'golf', 'india']),
];

/** The items whose `owner` is each person. */
const OWNED: Record<string, string[]> = { ann: ['alpha', 'delta'], bob: ['bravo', 'echo'], cid: ['charlie', 'india'], dee: ['foxtrot'] };

const CASES: QueryCase[] = [
  { title: 'no order: objectId order', where: {}, ordered: true, expect: (s) => s.byId(ITEM_NAMES) },
  { title: 'order by a Number, missing first', order: 'score', expect: (s) => [...s.byId(['juliet', 'kilo']), ...byScore] },
  { title: 'order by a Number descending, missing last', order: '-score', expect: (s) => [...[...byScore].reverse(), ...s.byId(['juliet', 'kilo'])] },
  { title: 'order by a String', order: 'name', expect: [...ITEM_NAMES] },
  { title: 'order by a String descending', order: '-name', expect: [...ITEM_NAMES].reverse() },
  { title: 'order by a Boolean: ties by objectId', order: 'active', expect: byActive },
  { title: 'paging through ties is stable', order: 'active', limit: 4, skip: 2, expect: (s) => byActive(s).slice(2, 6) },
  { title: 'paging: the last page', order: 'active', limit: 5, skip: 10, expect: (s) => byActive(s).slice(10) },
  { title: 'paging past the end', order: 'active', limit: 5, skip: 12, expect: [] },
  {
    title: 'order by two keys',
    order: 'active,-score',
    expect: (s) => ['lima', 'hotel', ...s.byId(['juliet', 'kilo']), 'delta', 'bravo', 'foxtrot', 'india', 'echo', 'charlie', 'alpha', 'golf'],
  },
  { title: 'order by two keys, descending first', order: '-active,name', expect: ['alpha', 'charlie', 'echo', 'golf', 'india', 'bravo', 'delta', 'foxtrot', 'hotel', 'juliet', 'kilo', 'lima'] },
  { title: 'order by a Date, missing first', order: 'when', expect: (s) => [...s.byId(['hotel', 'juliet', 'kilo', 'lima']), 'foxtrot', 'alpha', 'bravo', 'charlie', 'delta', 'echo', 'golf', 'india'] },
  {
    title: 'order by a String beyond ASCII: byte by byte',
    order: 'body',
    expect: (s) => [...s.byId(['juliet', 'kilo', 'lima']), 'charlie', 'bravo', 'foxtrot', 'delta', 'alpha', 'india', 'golf', 'hotel', 'echo'],
  },
  {
    title: 'order by a Pointer: by the objectId it holds',
    order: 'owner',
    expect: (s) => [...s.byId(['golf', 'hotel', 'juliet', 'kilo', 'lima']), ...s.byId(['ann', 'bob', 'cid', 'dee']).flatMap((person) => s.byId(OWNED[person]!))],
  },
  { title: 'order by createdAt descending', order: '-createdAt', expect: [...ITEM_NAMES].reverse() },
  { title: 'order by updatedAt', order: 'updatedAt', expect: ['alpha', 'charlie', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima', 'bravo', 'delta'] },
  { title: 'order by objectId descending', order: '-objectId', expect: (s) => s.byId(ITEM_NAMES).reverse() },
  { title: 'unknown order keys are ignored', order: 'nothere,-name', expect: [...ITEM_NAMES].reverse() },
  { title: 'order with a where, limit and skip', where: { score: { $gte: 0 } }, order: '-score', limit: 3, skip: 1, expect: ['echo', 'delta', 'charlie'] },
  {
    title: 'dot notation: numbers, then strings, then booleans',
    order: 'meta.level',
    expect: (s) => [...s.byId(['foxtrot', 'hotel', 'juliet', 'kilo']), 'alpha', 'bravo', 'charlie', 'delta', 'echo', 'india', 'golf', 'lima'],
  },
  {
    title: 'dot notation: strings byte by byte, after numbers',
    order: 'meta.color',
    expect: (s) => [...s.byId(['golf', 'hotel', 'juliet', 'kilo']), 'lima', 'echo', ...s.byId(['bravo', 'india']), 'charlie', ...s.byId(['alpha', 'delta', 'foxtrot'])],
  },
  {
    title: 'dot notation descending: missing last',
    order: '-meta.level',
    expect: (s) => ['lima', 'golf', 'india', 'echo', 'delta', 'charlie', 'bravo', 'alpha', ...s.byId(['foxtrot', 'hotel', 'juliet', 'kilo'])],
  },

  // count
  { title: 'count with limit 0: only the count', where: { active: true }, limit: 0, count: true, expect: [], expectCount: 5 },
  { title: 'count with a limit: results and the count of all', where: { active: true }, order: 'name', limit: 2, count: true, expect: ['alpha', 'charlie'], expectCount: 5 },
  { title: 'count ignores skip', where: { active: true }, order: 'name', skip: 4, count: true, expect: ['india'], expectCount: 5 },
  { title: 'count with a skip past the last result', where: { active: true }, order: 'name', skip: 9, count: true, expect: [], expectCount: 5 },
  { title: 'count with a skip past the end and limit 0', where: { active: true }, skip: 9, limit: 0, count: true, expect: [], expectCount: 5 },
  { title: 'count of every object', count: true, limit: 0, expect: [], expectCount: 12 },
  { title: 'count of nothing', where: { score: { $gt: 1000 } }, count: true, expect: [], expectCount: 0 },

  // limits (the bulk class holds 1005 objects)
  { on: 'bulk', title: 'limit defaults to 100', where: {}, expectLength: 100 },
  { on: 'bulk', title: 'limit 1000 is allowed', limit: 1000, expectLength: 1000 },
  { on: 'bulk', title: 'a limit over 1000 is clamped to 1000', limit: 5000, expectLength: 1000 },
  { on: 'bulk', title: 'the clamped limit still pages with skip', limit: 5000, skip: 1000, order: 'n', expect: ['b1000', 'b1001', 'b1002', 'b1003', 'b1004'] },
  { on: 'bulk', title: 'count is not limited', limit: 0, count: true, expect: [], expectCount: BULK_SIZE },

  // The inner query of $select/$inQuery takes the limit too: 100 by default, `limit` up to 1000.
  { on: 'bulk', title: '$inQuery: the inner query returns 100 by default', where: (s) => ({ objectId: { $inQuery: { className: s.classes.bulk, where: {} } } }), limit: 0, count: true, expectCount: 100 },
  { on: 'bulk', title: '$inQuery: the inner limit applies', where: (s) => ({ objectId: { $inQuery: { className: s.classes.bulk, where: { n: { $lt: 10 } }, limit: 3 } } }), limit: 0, count: true, expectCount: 3 },
  { on: 'bulk', title: '$inQuery: an inner limit of 1000', where: (s) => ({ objectId: { $inQuery: { className: s.classes.bulk, where: {}, limit: 1000 } } }), limit: 0, count: true, expectCount: 1000 },
  { on: 'bulk', title: '$inQuery: an inner limit over 1000 is clamped', where: (s) => ({ objectId: { $inQuery: { className: s.classes.bulk, where: {}, limit: 5000 } } }), limit: 0, count: true, expectCount: 1000 },
  { on: 'bulk', title: '$notInQuery: the inner limit applies', where: (s) => ({ objectId: { $notInQuery: { className: s.classes.bulk, where: {}, limit: 1000 } } }), limit: 0, count: true, expectCount: BULK_SIZE - 1000 },
  { on: 'bulk', title: '$select: the inner query returns 100 by default', where: (s) => ({ n: { $select: { query: { className: s.classes.bulk, where: {} }, key: 'n' } } }), limit: 0, count: true, expectCount: 100 },
  { on: 'bulk', title: '$select: an inner limit over 1000 is clamped', where: (s) => ({ n: { $select: { query: { className: s.classes.bulk, where: {}, limit: 2000 }, key: 'n' } } }), limit: 0, count: true, expectCount: 1000 },
  { on: 'bulk', title: '$dontSelect: the inner limit applies', where: (s) => ({ n: { $dontSelect: { query: { className: s.classes.bulk, where: { n: { $gte: 5 } }, limit: 1000 }, key: 'n' } } }), limit: 0, count: true, expectCount: 5 },
];

queryTable('query order, paging and limits', CASES, { bulk: true });
