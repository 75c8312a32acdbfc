import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FIRST_PAGE, nextCursor, pageQuery, tailQueries } from '../../dashboard/src/pages/browser/paging.ts';
import { filterClause, filtersWhere, opsFor, RELATED_TO } from '../../dashboard/src/pages/browser/filters.ts';
import { viewFromUrl, viewSearch } from '../../dashboard/src/pages/browser/view-url.ts';
import { editedValue } from '../../dashboard/src/pages/browser/edit-values.ts';
import { installationsQuery, shortToken } from '../../dashboard/src/pages/installations/installations-query.ts';
import { givenName, humanSize, previewKind } from '../../dashboard/src/pages/files/file-preview.ts';

/**
 * The queries the data browser sends (docs/dashboard.md "The data grid"): keyset pages and filters.
 * Their answers are checked in Chromium against both backends (data-browser.test.ts); these pin
 * the shapes, including the corners the browser test does not reach.
 */
const row = (objectId: string, fields: Record<string, unknown> = {}) => ({ objectId, ...fields });

describe('dashboard: keyset pages', () => {
  it('by objectId: $gt the last id, never skip', () => {
    assert.deepEqual(pageQuery({}, { field: 'objectId', descending: false }, FIRST_PAGE), { where: {}, order: 'objectId' });
    const cursor = nextCursor({ field: 'objectId', descending: false }, FIRST_PAGE, [row('a'), row('b')], 2)!;
    assert.deepEqual(pageQuery({}, { field: 'objectId', descending: false }, cursor), { where: { objectId: { $gt: 'b' } }, order: 'objectId' });
    assert.deepEqual(pageQuery({ x: 1 }, { field: 'objectId', descending: true }, cursor), { where: { $and: [{ x: 1 }, { objectId: { $lt: 'b' } }] }, order: '-objectId' });
  });

  it('by a column: the value and objectId as one key; then the rows without a value, by objectId', () => {
    const sort = { field: 'score', descending: true };
    assert.deepEqual(pageQuery({}, sort, FIRST_PAGE), { where: { score: { $exists: true } }, order: '-score,-objectId' });
    const cursor = nextCursor(sort, FIRST_PAGE, [row('a', { score: 9 }), row('b', { score: 7 })], 2)!;
    assert.deepEqual(pageQuery({}, sort, cursor), {
      where: { $and: [{ score: { $exists: true } }, { $or: [{ score: { $lt: 7 } }, { score: 7, objectId: { $lt: 'b' } }] }] },
      order: '-score,-objectId',
    });
    const missing = nextCursor(sort, cursor, [row('c', { score: 1 })], 2);
    assert.deepEqual(missing, { phase: 'missing' });
    assert.deepEqual(pageQuery({}, sort, missing!), { where: { score: { $exists: false } }, order: 'objectId' });
    const after = nextCursor(sort, missing!, [row('d'), row('e')], 2)!;
    assert.deepEqual(pageQuery({}, sort, after), { where: { $and: [{ score: { $exists: false } }, { objectId: { $gt: 'e' } }] }, order: 'objectId' });
    assert.equal(nextCursor(sort, after, [row('f')], 2), null);
  });

  it('by createdAt: compared as a Date, and no second phase (every object has one)', () => {
    const sort = { field: 'createdAt', descending: false };
    const cursor = nextCursor(sort, FIRST_PAGE, [row('a', { createdAt: '2024-01-01T00:00:00.000Z' })], 1)!;
    const date = { __type: 'Date', iso: '2024-01-01T00:00:00.000Z' };
    assert.deepEqual(pageQuery({}, sort, cursor), { where: { $or: [{ createdAt: { $gt: date } }, { createdAt: date, objectId: { $gt: 'a' } }] }, order: 'createdAt,objectId' });
    assert.equal(nextCursor(sort, cursor, [], 1), null);
  });
});

describe('dashboard: filters', () => {
  it('each operator in the query language, with values of the column\'s type', () => {
    const cases: [Parameters<typeof filterClause>[0], Parameters<typeof filterClause>[1], unknown][] = [
      [{ field: 'n', op: 'eq', value: '3' }, 'Number', { n: 3 }],
      [{ field: 'n', op: 'gte', value: '2.5' }, 'Number', { n: { $gte: 2.5 } }],
      [{ field: 'n', op: 'in', value: '1, 2,3' }, 'Number', { n: { $in: [1, 2, 3] } }],
      [{ field: 'b', op: 'ne', value: 'true' }, 'Boolean', { b: { $ne: true } }],
      [{ field: 's', op: 'contains', value: 'a.b*' }, 'String', { s: { $regex: 'a\\.b\\*' } }],
      [{ field: 's', op: 'startsWith', value: '(x' }, 'String', { s: { $regex: '^\\(x' } }],
      [{ field: 's', op: 'exists', value: '' }, 'String', { s: { $exists: true } }],
      [{ field: 's', op: 'notExists', value: '' }, 'Pointer', { s: { $exists: false } }],
      [{ field: 'd', op: 'between', value: '2024-01-01..2024-02-01' }, 'Date', { d: { $gte: { __type: 'Date', iso: '2024-01-01T00:00:00.000Z' }, $lte: { __type: 'Date', iso: '2024-02-01T00:00:00.000Z' } } }],
      [{ field: 'd', op: 'between', value: '2024-01-01..' }, 'timestamp', { d: { $gte: { __type: 'Date', iso: '2024-01-01T00:00:00.000Z' } } }],
    ];
    for (const [filter, type, where] of cases) assert.deepEqual(filterClause(filter, type), where, JSON.stringify(filter));
  });

  it('several filters are joined with $and; a value of the wrong type is refused in words', () => {
    assert.deepEqual(filtersWhere([{ field: 'n', op: 'gt', value: '1' }, { field: 'n', op: 'lt', value: '5' }], () => 'Number'), { $and: [{ n: { $gt: 1 } }, { n: { $lt: 5 } }] });
    assert.throws(() => filterClause({ field: 'n', op: 'eq', value: 'x' }, 'Number'), { message: '"x" is not a number.' });
    assert.throws(() => filterClause({ field: 'b', op: 'eq', value: 'yes' }, 'Boolean'), { message: 'Write true or false.' });
    assert.throws(() => filterClause({ field: 'd', op: 'lt', value: 'soon' }, 'Date'), /is not a date/);
  });
});

describe('dashboard: edited values', () => {
  it('each editable type in its wire form; empty unsets, except a String', () => {
    assert.equal(editedValue({ name: 's', type: 'String' }, ''), '');
    assert.deepEqual(editedValue({ name: 'n', type: 'Number' }, ''), { __op: 'Delete' });
    assert.equal(editedValue({ name: 'n', type: 'Number' }, '-4.5'), -4.5);
    assert.deepEqual(editedValue({ name: 'g', type: 'GeoPoint' }, '48.85, 2.35'), { __type: 'GeoPoint', latitude: 48.85, longitude: 2.35 });
    assert.deepEqual(editedValue({ name: 'p', type: 'Pointer', targetClass: 'Team' }, ' abc123 '), { __type: 'Pointer', className: 'Team', objectId: 'abc123' });
    assert.deepEqual(editedValue({ name: 'a', type: 'Array' }, '[1, "x"]'), [1, 'x']);
    assert.deepEqual(editedValue({ name: 'o', type: 'Object' }, '{"k": {"n": 1}}'), { k: { n: 1 } });
    assert.deepEqual(editedValue({ name: 'ACL', type: 'ACL' }, '{"*": {"read": true}}'), { '*': { read: true } });
  });

  it('values that do not fit are refused before anything is sent', () => {
    assert.throws(() => editedValue({ name: 'g', type: 'GeoPoint' }, '91, 0'), /between -90 and 90/);
    assert.throws(() => editedValue({ name: 'g', type: 'GeoPoint' }, '1'), /latitude, longitude/);
    assert.throws(() => editedValue({ name: 'a', type: 'Array' }, '{}'), { message: 'An Array column takes a JSON array: [ … ].' });
    assert.throws(() => editedValue({ name: 'o', type: 'Object' }, '[]'), { message: 'An Object column takes a JSON object: { … }.' });
    assert.throws(() => editedValue({ name: 'o', type: 'Object' }, '{'), /^Error: Not valid JSON/);
    assert.throws(() => editedValue({ name: 'p', type: 'Pointer', targetClass: 'Team' }, 'a b'), { message: 'Write the objectId of a Team object.' });
  });
});

describe('dashboard: installations, files', () => {
  it('filters installations by channel (an array holding it) and device type, after the last objectId', () => {
    assert.deepEqual(installationsQuery('', ''), {});
    assert.deepEqual(installationsQuery('news', 'ios', 'abc'), { channels: 'news', deviceType: 'ios', objectId: { $gt: 'abc' } });
    assert.equal(shortToken('0123456789abcdef'), '0123456789abcdef');
    assert.equal(shortToken('0123456789abcdef0123'), '01234567…0123');
  });

  it('previews images inline (SVG as its source text), text and JSON as text, anything else as a link', () => {
    assert.equal(previewKind('image/png'), 'image');
    assert.equal(previewKind('image/svg+xml'), 'text', 'its source, never run');
    assert.equal(previewKind('text/plain; charset=utf-8'), 'text');
    assert.equal(previewKind('application/json'), 'text');
    assert.equal(previewKind('application/ld+json'), 'text');
    assert.equal(previewKind('application/pdf'), 'link');
    assert.equal(givenName('0123456789abcdef0123456789abcdef_notes.txt'), 'notes.txt');
    assert.equal(humanSize(1536), '1.5 KB');
  });
});

describe('dashboard: the end of a class, read through the reversed order', () => {
  it('by objectId or a timestamp: one query, the order reversed', () => {
    assert.deepEqual(tailQueries({}, { field: 'objectId', descending: false }), [{ where: {}, order: '-objectId' }]);
    assert.deepEqual(tailQueries({ x: 1 }, { field: 'objectId', descending: true }), [{ where: { x: 1 }, order: 'objectId' }]);
    assert.deepEqual(tailQueries({}, { field: 'createdAt', descending: false }), [{ where: {}, order: '-createdAt,-objectId' }]);
  });

  it('by a column: the rows without a value first (they end the order), then the values with the sort reversed', () => {
    assert.deepEqual(tailQueries({ x: 1 }, { field: 'score', descending: false }), [
      { where: { $and: [{ x: 1 }, { score: { $exists: false } }] }, order: '-objectId' },
      { where: { $and: [{ x: 1 }, { score: { $exists: true } }] }, order: '-score,-objectId' },
    ]);
    assert.deepEqual(tailQueries({}, { field: 'score', descending: true })[1], { where: { score: { $exists: true } }, order: 'score,objectId' });
  });
});

describe('dashboard: Pointer and Relation filters', () => {
  const pointer = { __type: 'Pointer', className: 'Team', objectId: 'abc123' };
  it('"points to" and "contains" are equality with a Pointer of the target class; "members of" is $relatedTo', () => {
    assert.deepEqual(filterClause({ field: 'team', op: 'pointsTo', value: ' abc123 ' }, 'Pointer', 'Team'), { team: pointer });
    assert.deepEqual(filterClause({ field: 'teams', op: 'holds', value: 'abc123' }, 'Relation', 'Team'), { teams: pointer });
    assert.deepEqual(filterClause({ field: RELATED_TO, op: 'memberOf', value: 'Team.abc123.members' }, 'String'), {
      $relatedTo: { object: pointer, key: 'members' },
    });
    assert.deepEqual(opsFor('Pointer'), ['pointsTo', 'exists', 'notExists']);
    assert.deepEqual(opsFor('Relation'), ['holds']);
  });

  it('an objectId that cannot be one, or an operator of the other type, is refused in words', () => {
    assert.throws(() => filterClause({ field: 'team', op: 'pointsTo', value: 'a b' }, 'Pointer', 'Team'), { message: '"a b" is not an objectId (letters, digits, _ and -).' });
    assert.throws(() => filterClause({ field: 'team', op: 'holds', value: 'abc' }, 'Pointer', 'Team'), { message: '"contains" does not apply to a Pointer.' });
    assert.throws(() => filterClause({ field: 'name', op: 'pointsTo', value: 'abc' }, 'String'), { message: 'name is not a Pointer or a Relation.' });
    assert.throws(() => filterClause({ field: RELATED_TO, op: 'memberOf', value: 'Team.abc' }, 'String'), { message: '"Team.abc" is not <class>.<objectId>.<relation field>.' });
    assert.throws(() => filterClause({ field: 'members', op: 'memberOf', value: 'Team.abc.members' }, 'String'), /not of a column/);
  });

  it('they keep the URL form field.op.value, dots in the value included', () => {
    const filters = [
      { field: 'team', op: 'pointsTo' as const, value: 'abc123' },
      { field: RELATED_TO, op: 'memberOf' as const, value: 'Team.abc123.members' },
    ];
    const search = viewSearch(filters, { field: 'objectId', descending: false });
    assert.equal(decodeURIComponent(search), '?filter=team.pointsTo.abc123&filter=$relatedTo.memberOf.Team.abc123.members');
    assert.deepEqual(viewFromUrl(search).filters, filters);
  });
});
