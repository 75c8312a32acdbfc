import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { FieldRef, FindQuery, WhereNode } from '../query/ast.ts';
import { sqliteDialect } from './sqlite/dialect.ts';
import { postgresDialect } from './postgres/dialect.ts';

const table = (className: string) => `"${className}"`;
const page: FindQuery = {
  where: { kind: 'compare', field: { kind: 'doc', path: ['score'] }, op: 'gte', value: 10, as: 'number' },
  order: [{ field: { kind: 'doc', path: ['score'] }, as: 'number', descending: true }],
  limit: 20,
  skip: 40,
};

it("SQLite writes a page's LIMIT as a number and binds its OFFSET; PostgreSQL binds both", () => {
  const sqlite = sqliteDialect.select(table, 'Item', page);
  assert.match(sqlite.sql, / LIMIT 20 OFFSET \?$/);
  assert.deepEqual(sqlite.params, [10, 40]);
  const postgres = postgresDialect.select(table, 'Item', page);
  assert.match(postgres.sql, / LIMIT \$2 OFFSET \$3$/);
  assert.deepEqual(postgres.params, [10, 20, 40]);
});

it('SQLite writes the limit of an inner query as a number', () => {
  const inner: FindQuery = {
    ...page,
    where: { kind: 'inSubquery', field: { kind: 'doc', path: ['owner'] }, as: 'text', element: null, query: { className: 'Owner', where: { kind: 'const', value: true }, select: { kind: 'column', column: 'objectId' }, limit: 7 } },
  };
  const { sql } = sqliteDialect.select(table, 'Item', inner);
  assert.match(sql, /"objectId" IS NOT NULL ORDER BY "objectId" LIMIT 7\)/);
});

it('a nearest-first page on PostgreSQL keeps one plan; other pages are planned per run', () => {
  const loc = { kind: 'doc', path: ['loc'] } as const;
  const point = { latitude: 48.85, longitude: 2.35 };
  const near: FindQuery = {
    where: { kind: 'geoWithinDistance', field: loc, point, maxRadians: 0.01, indexed: true },
    order: [{ field: loc, as: 'number', descending: false, distanceFrom: point }],
    limit: 20,
    skip: 0,
  };
  const [rings, ...more] = postgresDialect.findStatements(table, 'Item', near);
  assert.equal(more.length, 0);
  const ringed = rings!();
  assert.match(ringed.sql, / FROM generate_series\(1, \d+\) AS "_k"\("k"\) CROSS JOIN LATERAL /);
  assert.equal(ringed.planOnce, true);
  assert.equal(postgresDialect.select(table, 'Item', page).planOnce, undefined);
});

function nearQuery(point: { latitude: number; longitude: number }, maxRadians: number): FindQuery {
  const loc = { kind: 'doc', path: ['loc'] } as const;
  return {
    where: {
      kind: 'and',
      nodes: [
        { kind: 'geoWithinDistance', field: loc, point, maxRadians, indexed: true },
        { kind: 'acl', access: 'read', principals: ['*', 'u1'] },
      ],
    },
    order: [{ field: loc, as: 'number', descending: false, distanceFrom: point }],
    limit: 20,
    skip: 0,
  };
}

it('PostgreSQL plans one ring of a nearest-first page and reads it again for each radius', () => {
  const { sql, params } = postgresDialect.select(table, 'Item', nearQuery({ latitude: 48.85, longitude: 2.35 }, 0.01));
  const rings = Number(/generate_series\(1, (\d+)\)/.exec(sql)![1]);
  assert.ok(rings >= 2);
  // One index scan and one haversine, whatever the number of rings; the first full ring ends the loop.
  assert.equal(sql.match(/ FROM "Item" /g)!.length, 1);
  assert.equal(sql.match(/asin\(/g)!.length, 1);
  assert.match(sql, /\) AS "_y" LIMIT 20\) AS "_t" ORDER BY "_d" ASC NULLS FIRST, \("objectId" COLLATE "C"\) ASC LIMIT 20 OFFSET 0$/);
  // The point (latitude twice, longitude), the ACL, every cell, each ring's cell slice, box and radius.
  assert.equal(params.length, 3 + 1 + 1 + 2 + 4 + 1);
  const radii = params.at(-1) as string[];
  assert.equal(radii.length, rings);
  assert.deepEqual(radii.map(Number), [...radii.map(Number)].sort((a, b) => a - b));
});

it('across the antimeridian, PostgreSQL writes every ring out, computing the distance once per row and sharing the point and the filter', () => {
  const { sql, params } = postgresDialect.select(table, 'Item', nearQuery({ latitude: 10, longitude: 179.999 }, 0.01));
  const rings = sql.match(/"_r\d+" AS MATERIALIZED/g)!.length + 1;
  assert.ok(rings >= 2);
  // One haversine per ring (its sort key); the radius is tested on that column where the ring is read.
  assert.equal(sql.match(/asin\(/g)!.length, rings);
  assert.equal(sql.match(/"_d" <= \$\d+/g)!.length, 2 * rings - 1);
  // The point (latitude twice, longitude) and the ACL are bound once; each ring binds its box
  // (cells, two longitudes, two latitudes) and its radius.
  assert.equal(params.filter((value) => Array.isArray(value) && value.includes('u1')).length, 1);
  assert.equal(params.length, 3 + 1 + 6 * rings);
});

it('a page with its count is one statement, the count a scalar subquery bound first; not for a nearest-first page', () => {
  const countWhere = { kind: 'acl', access: 'read', principals: ['u1'] } as const;
  const sqlite = sqliteDialect.countedSelect(table, 'Item', page, countWhere)!;
  assert.match(sqlite.sql, /^SELECT "objectId", "createdAt", "updatedAt", json\("data"\) AS "data", \(SELECT count\(\*\) FROM "Item" WHERE .+\) AS "_n" FROM "Item" WHERE .+ LIMIT 20 OFFSET \?$/);
  // SQLite numbers "?" by position: the count's principal comes before the page's values.
  assert.deepEqual(sqlite.params, ['["u1"]', 'u1', 10, 40]);
  const postgres = postgresDialect.countedSelect(table, 'Item', page, countWhere)!;
  assert.match(postgres.sql, /^SELECT "objectId", "createdAt", "updatedAt", "data"::text AS "data", \(SELECT count\(\*\) FROM "Item" WHERE "_rperm" && \$1::text\[\]\) AS "_n" FROM "Item" WHERE .+ LIMIT \$3 OFFSET \$4$/);
  assert.deepEqual(postgres.params, [['u1'], 10, 20, 40]);
  // Planned for its values, as the count alone is.
  assert.equal(postgres.planOnce, undefined);
  const loc = { kind: 'doc', path: ['loc'] } as const;
  const point = { latitude: 48.85, longitude: 2.35 };
  const near: FindQuery = { where: { kind: 'geoWithinDistance', field: loc, point, maxRadians: 0.01, indexed: true }, order: [{ field: loc, as: 'number', descending: false, distanceFrom: point }], limit: 20, skip: 0 };
  assert.equal(postgresDialect.countedSelect(table, 'Item', near, countWhere), null);
});

it("on PostgreSQL a user's page of an indexed range picks its ids first, then reads their rows; SQLite and other pages read rows as they go", () => {
  const score = { kind: 'doc', path: ['score'], stored: { column: 'f.score', as: 'number', publicColumn: true } } as const;
  const acl = (principals: string[]) => ({ kind: 'acl', access: 'read', principals }) as const;
  const ranged = (principals: string[]): FindQuery => ({
    where: { kind: 'and', nodes: [{ kind: 'compare', field: score, op: 'gte', value: 10, as: 'number' }, acl(principals)] },
    order: [{ field: score, as: 'number', descending: true }],
    limit: 20,
    skip: 0,
  });
  const user = postgresDialect.select(table, 'Item', ranged(['*', 'u1']));
  assert.equal(
    user.sql,
    'SELECT "objectId", "createdAt", "updatedAt", "data"::text AS "data" FROM "Item" WHERE "objectId" = ANY(ARRAY(' +
      'SELECT "objectId" FROM "Item" WHERE ("f.score" >= $1) AND ("_public" OR "_rperm" && $2::text[]) ORDER BY "f.score" DESC NULLS LAST, ("objectId" COLLATE "C") ASC LIMIT $3 OFFSET $4' +
      ')) ORDER BY "f.score" DESC NULLS LAST, ("objectId" COLLATE "C") ASC',
  );
  assert.deepEqual(user.params, [10, ['u1'], 20, 0]);
  // Anyone's page: every entry of the range passes or fails on "*" alone, and rows are read as found.
  assert.doesNotMatch(postgresDialect.select(table, 'Item', ranged(['*'])).sql, /ANY\(ARRAY/);
  // A range of the document, not of an index's column.
  assert.doesNotMatch(postgresDialect.select(table, 'Item', { ...page, where: { kind: 'and', nodes: [page.where, acl(['*', 'u1'])] } }).sql, /ANY\(ARRAY/);
  assert.doesNotMatch(sqliteDialect.select(table, 'Item', ranged(['*', 'u1'])).sql, /ANY\(ARRAY/);
  // The count beside the page counts the range as before.
  const counted = postgresDialect.countedSelect(table, 'Item', ranged(['*', 'u1']), ranged(['*', 'u1']).where)!;
  assert.match(counted.sql, /^SELECT "objectId", "createdAt", "updatedAt", "data"::text AS "data", \(SELECT count\(\*\) FROM "Item" WHERE .*\) AS "_n" FROM "Item" WHERE "objectId" = ANY\(ARRAY\(/);
});

it('a page of a range of the indexed column it is ordered by is planned for any values; other pages and counts per run', () => {
  const score = { kind: 'doc', path: ['score'], stored: { column: 'f.score', as: 'number', publicColumn: true } } as const;
  const name = { kind: 'doc', path: ['name'], stored: { column: 'f.name', as: 'text', publicColumn: true } } as const;
  const order = [{ field: score, as: 'number', descending: true }] as const;
  const range = { kind: 'compare', field: score, op: 'gte', value: 10, as: 'number' } as const;
  const acl = (...principals: string[]) => ({ kind: 'acl', access: 'read', principals }) as const;
  const planned = (where: WhereNode, by: FindQuery['order'] = order) => postgresDialect.select(table, 'Item', { where, order: by, limit: 20, skip: 0 }).planForAnyValues === true;
  assert.equal(planned(range), true, 'the master key');
  assert.equal(planned({ kind: 'and', nodes: [range, acl('*')] }), true, 'anyone');
  assert.equal(planned({ kind: 'and', nodes: [{ kind: 'and', nodes: [range, { ...range, op: 'lt', value: 90 }] }, acl('*', 'u1')] }), true, 'a user, the range one level down');
  assert.equal(planned(acl('*', 'u1')), false, 'no range: the permission list, which its GIN index serves');
  assert.equal(planned({ kind: 'and', nodes: [range, acl('u1')] }), false, 'a caller without "*": the list');
  assert.equal(planned({ kind: 'and', nodes: [range, { kind: 'compare', field: name, op: 'eq', value: 'a', as: 'text' }, acl('*')] }), false, 'a second field');
  assert.equal(planned({ kind: 'and', nodes: [range, acl('*')] }, [{ field: name, as: 'text', descending: false }]), false, 'ordered by another field');
  assert.equal(planned({ kind: 'and', nodes: [{ ...range, op: 'ne' }, acl('*')] }), false, '$ne');
  assert.equal(postgresDialect.countedSelect(table, 'Item', { where: range, order, limit: 20, skip: 0 }, range)!.planForAnyValues, undefined, 'a count beside');
});

/**
 * A user's pages of `score >= 10` in `-score` order, for the reader page tests: `ranged` asks
 * for the principals' page past `skip`, with `more` of the query replaced.
 */
function userPages(score: Extract<FieldRef, { kind: 'doc' }>) {
  const acl = (principals: string[]) => ({ kind: 'acl', access: 'read', principals }) as const;
  const range = { kind: 'compare', field: score, op: 'gte', value: 10, as: 'number' } as const;
  const ranged = (principals: string[], skip = 0, more: Partial<FindQuery> = {}): FindQuery => ({
    where: { kind: 'and', nodes: [{ kind: 'and', nodes: [range] }, acl(principals)] },
    order: [{ field: score, as: 'number', descending: true }],
    limit: 20,
    skip,
    ...more,
  });
  return { acl, range, ranged };
}

it("on PostgreSQL a user's page of a range of the column leading a schema index reads each principal's own entries of the reader index", () => {
  const score = { kind: 'doc', path: ['score'], stored: { column: 'f.score', as: 'number', publicColumn: true }, leadsReaderIndex: true } as const;
  const { acl, range, ranged } = userPages(score);
  const key = `(CASE WHEN cardinality("_rperm") = 1 THEN "_rperm"[1] ELSE '' END)`;
  const order = '"f.score" DESC NULLS LAST, ("objectId" COLLATE "C") ASC';
  const first = postgresDialect.select(table, 'Item', ranged(['*', 'u1', 'u1', '']));
  const arm = (placeholder: string) => `(SELECT "objectId", "createdAt", "updatedAt", "data", "f.score" FROM "Item" WHERE ${key} = ${placeholder}::text AND "f.score" >= $1 ORDER BY ${order} LIMIT ($4::int8 + $5::int8))`;
  const shared = `SELECT "objectId" FROM "Item" WHERE ${key} = '' AND (("f.score" >= $2)) AND ("_public" OR "_rperm" && $3::text[]) ORDER BY ${order} LIMIT ($4::int8 + $5::int8)`;
  assert.equal(
    first.sql,
    `SELECT "objectId", "createdAt", "updatedAt", "data"::text AS "data" FROM (${arm('$6')} UNION ALL ${arm('$7')} UNION ALL ` +
      `(SELECT "objectId", "createdAt", "updatedAt", "data", "f.score" FROM "Item" WHERE "objectId" = ANY(ARRAY(${shared})) ORDER BY ${order})) AS "_r" ORDER BY ${order} LIMIT $4 OFFSET $5`,
  );
  // A principal named twice has one arm, and '' none (its lists are those of the last arm).
  assert.deepEqual(first.params, [10, 10, ['u1', 'u1', ''], 20, 0, '*', 'u1']);
  assert.equal(first.planForAnyValues, true);
  // Where the class holds no list but lists of one principal besides "*": the caller's own arms,
  // and a row of NULLs where the reader index has any entry of '' or "*".
  const own = first.ownListsOnly!;
  const check = `UNION ALL SELECT NULL, NULL, NULL, NULL WHERE (SELECT ${key} FROM "Item" WHERE ${key} <= '*' ORDER BY ${key} LIMIT 1) IS NOT NULL`;
  // One arm is the page itself.
  assert.equal(
    own.sql,
    `(SELECT "objectId", "createdAt", "updatedAt", "data"::text AS "data" FROM "Item" WHERE ${key} = $4::text AND "f.score" >= $1 ORDER BY ${order} LIMIT $2 OFFSET $3) ${check}`,
  );
  assert.deepEqual(own.params, [10, 20, 0, 'u1']);
  assert.equal(own.planForAnyValues, true);
  assert.equal(own.ownListsOnly, undefined);
  // Several are merged, as in the full form.
  const inRoles = postgresDialect.select(table, 'Item', ranged(['*', 'u1', 'role:r']));
  const ownArm = (placeholder: string) => arm('$P').replaceAll('$4', '$2').replaceAll('$5', '$3').replace('$P', placeholder);
  assert.equal(
    inRoles.ownListsOnly!.sql,
    `(SELECT "objectId", "createdAt", "updatedAt", "data"::text AS "data" FROM (${ownArm('$4')} UNION ALL ${ownArm('$5')}) AS "_r" ORDER BY ${order} LIMIT $2 OFFSET $3) ${check}`,
  );
  assert.deepEqual(inRoles.ownListsOnly!.params, [10, 20, 0, 'u1', 'role:r']);
  // Past a skip: ids from the index alone, then only the page's rows, by primary key.
  const later = postgresDialect.select(table, 'Item', ranged(['*', 'u1'], 40));
  assert.match(later.sql, /^SELECT "objectId", "createdAt", "updatedAt", "data"::text AS "data" FROM "Item" WHERE "objectId" = ANY\(ARRAY\(SELECT "objectId" FROM \(\(SELECT "objectId", "f\.score" FROM "Item" WHERE /);
  assert.match(later.sql, /UNION ALL \(SELECT "objectId", "f\.score" FROM "Item" WHERE \(CASE .* = '' AND /);
  assert.deepEqual(later.params.slice(-2), ['*', 'u1']);
  const laterOwn = later.ownListsOnly!.sql;
  assert.ok(laterOwn.startsWith(`(SELECT "objectId", "createdAt", "updatedAt", "data"::text AS "data" FROM "Item" WHERE "objectId" = ANY(ARRAY(SELECT "objectId" FROM ((SELECT "objectId", "f.score" FROM "Item" WHERE ${key} = $4::text AND `), laterOwn);
  assert.ok(laterOwn.endsWith(`) ${check}`), laterOwn);
  assert.doesNotMatch(laterOwn, /= ''/, "no arm of ''");
  assert.deepEqual(later.ownListsOnly!.params, [10, 20, 40, 'u1']);
  const plain = (query: FindQuery) => !postgresDialect.select(table, 'Item', query).sql.includes('cardinality');
  assert.equal(plain(ranged(['*'])), true, 'anyone: every entry passes or fails on "*" alone');
  assert.equal(plain(ranged(['*', ...Array.from({ length: 16 }, (_, i) => `role:r${i}`)])), true, 'more principals than arms');
  assert.equal(plain(ranged(['*', 'u1'], 0, { hint: { kind: 'schemaIndex', name: 'byScore' } })), true, 'a hint');
  assert.equal(plain({ ...ranged(['*', 'u1']), order: [{ field: { kind: 'doc', path: ['name'] }, as: 'text', descending: false }] }), true, 'ordered by a field with no index');
  assert.equal(plain({ ...ranged(['*', 'u1']), order: [...ranged([]).order, { field: { kind: 'doc', path: ['name'] }, as: 'text', descending: false }] }), true, 'a second key read from the document');
  assert.equal(plain({ ...ranged(['*', 'u1']), where: { kind: 'and', nodes: [{ ...range, op: 'ne' }, acl(['*', 'u1'])] } }), true, '$ne bounds nothing');
  assert.equal(plain({ ...ranged(['*', 'u1']), order: [{ field: { kind: 'doc', path: ['score'], stored: score.stored }, as: 'number', descending: true }] }), true, 'a column that leads no index');
  assert.equal(plain({ ...ranged(['*', 'u1']), where: range }), true, 'the master key');
  assert.match(postgresDialect.countedSelect(table, 'Item', ranged(['*', 'u1']), ranged(['*', 'u1']).where)!.sql, /ANY\(ARRAY/, 'a count beside: the plain ids-first page');
});

it("on SQLite a user's page of a range of the field leading a schema index reads each principal's own entries of the reader index", () => {
  const score = { kind: 'doc', path: ['score'], leadsReaderIndex: true } as const;
  const { acl, range, ranged } = userPages(score);
  const key = `(CASE WHEN instr("_rperm", ',') = 0 THEN "_rperm" ELSE '' END)`;
  const value = `json_extract("data", '$.score')`;
  const columns = `"objectId", "createdAt", "updatedAt", json("data") AS "data"`;
  const arm = `SELECT ${columns}, ${value} AS "_k0" FROM "Item" WHERE ${key} = ? AND ${value} >= ?`;
  const listed = (n: number) => {
    const marks = Array.from({ length: n }, () => '?').join(', ');
    return `("_rperm" IN (${marks}) OR (instr("_rperm", ',') > 0 AND EXISTS (SELECT 1 FROM json_each("_rperm") WHERE "value" IN (${marks}))))`;
  };
  // The last arm tests the whole where, the caller's permission as asked.
  const shared = (n: number, columns_ = columns) => `SELECT ${columns_}, ${value} AS "_k0" FROM "Item" WHERE ${key} = '' AND ((${value} >= ?)) AND (${listed(n)})`;
  const first = sqliteDialect.select(table, 'Item', ranged(['*', 'u1', 'u1', '']));
  // The arms are merged under the compound's ORDER BY, which names their result columns.
  assert.equal(first.sql, `${arm} UNION ALL ${arm} UNION ALL ${shared(4)} ORDER BY "_k0" DESC, "objectId" ASC LIMIT 20 OFFSET 0`);
  // Parameters in text order: SQLite numbers "?" by position. A principal is compared as its list
  // of one; a principal named twice has one arm, and '' none (its lists are those of the last arm).
  assert.deepEqual(first.params, ['["*"]', 10, '["u1"]', 10, 10, '["*"]', '["u1"]', '["u1"]', '[""]', '*', 'u1', 'u1', '']);
  const check = `WHERE (SELECT ${key} FROM "Item" WHERE ${key} <= '["*"]' ORDER BY ${key} LIMIT 1) IS NOT NULL`;
  // One arm is the page itself; a row of NULLs where the reader index has any entry of '' or "*".
  const own = first.ownListsOnly!;
  assert.equal(own.sql, `SELECT * FROM (SELECT ${columns} FROM "Item" WHERE ${key} = ? AND ${value} >= ? ORDER BY ${value} DESC, "objectId" ASC LIMIT 20 OFFSET 0) UNION ALL SELECT NULL, NULL, NULL, NULL ${check}`);
  assert.deepEqual(own.params, ['["u1"]', 10]);
  // A user in a role: the own arms merged, and the row of NULLs as wide as their rows.
  const inRoles = sqliteDialect.select(table, 'Item', ranged(['*', 'u1', 'role:r'])).ownListsOnly!;
  assert.equal(inRoles.sql, `SELECT * FROM (${arm} UNION ALL ${arm} ORDER BY "_k0" DESC, "objectId" ASC LIMIT 20 OFFSET 0) UNION ALL SELECT NULL, NULL, NULL, NULL, NULL ${check}`);
  assert.deepEqual(inRoles.params, ['["u1"]', 10, '["role:r"]', 10]);
  // Past a skip: the ids first, then only the page's rows.
  const later = sqliteDialect.select(table, 'Item', ranged(['*', 'u1'], 40));
  const idArm = `SELECT "objectId", ${value} AS "_k0" FROM "Item" WHERE ${key} = ? AND ${value} >= ?`;
  assert.equal(
    later.sql,
    `SELECT ${columns} FROM "Item" WHERE "objectId" IN (SELECT "objectId" FROM (${idArm} UNION ALL ${idArm} UNION ALL ${shared(2, '"objectId"')} ORDER BY "_k0" DESC, "objectId" ASC LIMIT 20 OFFSET 40)) ORDER BY ${value} DESC, "objectId" ASC`,
  );
  // A second key, from the document or a column, is carried by every arm.
  const twoKeys = sqliteDialect.select(table, 'Item', ranged(['*', 'u1'], 0, { order: [{ field: score, as: 'number', descending: true }, { field: { kind: 'column', column: 'createdAt' }, as: 'text', descending: false }] }));
  assert.match(twoKeys.sql, /, json_extract\("data", '\$\.score'\) AS "_k0", "createdAt" AS "_k1" FROM .* ORDER BY "_k0" DESC, "_k1" ASC, "objectId" ASC LIMIT 20 OFFSET 0$/);
  const plain = (query: FindQuery) => !sqliteDialect.select(table, 'Item', query).sql.includes('CASE WHEN instr');
  assert.equal(plain(ranged(['*'])), true, 'anyone');
  assert.equal(plain(ranged(['*', 'u"1'])), true, 'a principal JSON escapes: its list of one may be spelled otherwise');
  assert.equal(plain(ranged(['*', ...Array.from({ length: 16 }, (_, i) => `role:r${i}`)])), true, 'more principals than arms');
  assert.equal(plain(ranged(['*', 'u1'], 0, { hint: { kind: 'schemaIndex', name: 'byScore' } })), true, 'a hint');
  assert.equal(plain({ ...ranged(['*', 'u1']), order: [{ field: { kind: 'doc', path: ['score'] }, as: 'number', descending: true }] }), true, 'a field that leads no index with a reader index');
  assert.equal(plain({ ...ranged(['*', 'u1']), order: [...ranged([]).order, { field: { kind: 'doc', path: ['meta'], untyped: true }, as: 'json', descending: false }] }), true, 'a key of no fixed type');
  assert.equal(plain({ ...ranged(['*', 'u1']), where: { kind: 'and', nodes: [{ ...range, op: 'ne' }, acl(['*', 'u1'])] } }), true, '$ne bounds nothing');
  assert.equal(plain({ ...ranged(['*', 'u1']), where: range }), true, 'the master key');
  assert.equal(sqliteDialect.countedSelect(table, 'Item', ranged(['*', 'u1']), ranged(['*', 'u1']).where)!.sql.includes('CASE WHEN instr'), false, 'a count beside');
});

it('on PostgreSQL a page of one value of a column an index holds alone, in objectId order, picks its ids from that index on a plan made once', () => {
  const category = { kind: 'doc', path: ['category'], stored: { column: 'f.category', as: 'text', publicColumn: true, indexedAlone: true } } as const;
  const equals = (value: string) => ({ kind: 'compare', field: category, op: 'eq', value, as: 'text' }) as const;
  const acl = (...principals: string[]) => ({ kind: 'acl', access: 'read', principals }) as const;
  const page = (where: WhereNode, more: Partial<FindQuery> = {}): FindQuery => ({ where, order: [], limit: 20, skip: 0, ...more });
  const anyone = postgresDialect.select(table, 'Item', page({ kind: 'and', nodes: [equals('c3'), acl('*')] }));
  const order = '("objectId" COLLATE "C") ASC';
  assert.equal(
    anyone.sql,
    `SELECT "objectId", "createdAt", "updatedAt", "data"::text AS "data" FROM "Item" WHERE "objectId" = ANY(ARRAY(SELECT "objectId" FROM "Item" WHERE (("f.category" COLLATE "C") = $1) AND ("_public") ORDER BY ${order} LIMIT $2 OFFSET $3)) ORDER BY ${order}`,
  );
  assert.deepEqual([anyone.params, anyone.planForAnyValues], [['c3', 20, 0], true]);
  const once = (query: FindQuery) => postgresDialect.select(table, 'Item', query).planForAnyValues === true;
  assert.equal(once(page(equals('c3'))), true, 'the master key');
  assert.equal(once(page({ kind: 'and', nodes: [equals('c3'), equals('c3'), acl('*')] })), true, 'the same column twice');
  assert.equal(once(page(equals('c3'), { order: [{ field: { kind: 'column', column: 'objectId' }, as: 'text', descending: false }] })), true, 'objectId order asked for');
  assert.equal(once(page({ kind: 'and', nodes: [equals('c3'), acl('*', 'u1')] })), false, 'a user: how many of the entries the user may read depends on the value');
  assert.equal(once(page(equals('c3'), { order: [{ field: { kind: 'column', column: 'objectId' }, as: 'text', descending: true }] })), false, 'newest ids first');
  // Ordered by the column, the value is a range of it read in order (onlyTheOrderedRange): the plain page.
  assert.equal(postgresDialect.select(table, 'Item', page(equals('c3'), { order: [{ field: category, as: 'text', descending: false }] })).sql.includes('ANY(ARRAY'), false, 'ordered by the column');
  assert.equal(once(page({ kind: 'in', field: category, values: ['c1', 'c2'], as: 'text' })), false, 'several values: their entries are not in one order');
  assert.equal(once(page({ ...equals('c3'), op: 'gte' })), false, 'a range');
  assert.equal(once(page({ kind: 'compare', field: { ...category, stored: { column: 'f.category', as: 'text', publicColumn: true } }, op: 'eq', value: 'c3', as: 'text' })), false, 'indexed only with another column after it');
  const name = { kind: 'doc', path: ['name'], stored: { column: 'f.name', as: 'text', publicColumn: true, indexedAlone: true } } as const;
  assert.equal(once(page({ kind: 'and', nodes: [equals('c3'), { kind: 'compare', field: name, op: 'eq', value: 'n', as: 'text' }] })), false, 'two columns');
  assert.equal(postgresDialect.countedSelect(table, 'Item', page(equals('c3')), equals('c3'))!.planForAnyValues, undefined, 'a count beside');
  assert.equal(sqliteDialect.select(table, 'Item', page(equals('c3'))).sql.includes('ANY(ARRAY'), false, 'SQLite plans every statement once anyway');
});
