import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { expectIndexScanned } from '../helpers/index-scans.ts';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient, type Response } from '../helpers/client.ts';
import { openStorage, type Storage } from '../helpers/storage.ts';
import { start, stop, tempDatabase, tempDir } from '../helpers/process.ts';
import { ADMIN, targets, type Target } from '../helpers/targets.ts';

/**
 * Queries and indexes: an anchored prefix regex is answered through a schema-API index, and a
 * query that no index serves on a large table is logged and counted (GET /1/scans).
 */

const MASTER = { key: 'master' } as const;

/**
 * The range the SQL compiler writes for `{name: {$regex: '^abc'}}` on a String field, and its
 * ORDER BY without `order` (src/sql/<dialect>): the plans below are for exactly this text. On
 * PostgreSQL the indexed field is read from the column its index made.
 */
const PREFIX_RANGE: Record<Target['backend'], { where: string; orderBy: string }> = {
  postgres: {
    where: `("f.name" COLLATE "C") >= 'abc' AND ("f.name" COLLATE "C") < 'abd'`,
    orderBy: `ORDER BY ("objectId" COLLATE "C") ASC LIMIT 100`,
  },
  sqlite: {
    where: `json_extract("data", '$.name') >= 'abc' AND json_extract("data", '$.name') < 'abd'`,
    orderBy: `ORDER BY "objectId" ASC LIMIT 100`,
  },
};

function assertError(response: Response, status: number, code: number, label = ''): void {
  assert.equal(response.status, status, `${label}: status (body ${response.text})`);
  assert.deepEqual(Object.keys(response.body ?? {}).sort(), ['code', 'error'], `${label}: body ${response.text}`);
  assert.equal(response.body.code, code, label);
}

async function seed(app: AppClient, className: string, objects: Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < objects.length; i += 50) {
    const requests = objects.slice(i, i + 50).map((body) => ({ method: 'POST', path: `/1/classes/${className}`, body }));
    const response = await app.post('/1/batch', { requests });
    assert.equal(response.status, 200, response.text);
    for (const entry of response.body) assert.ok(entry.success, JSON.stringify(entry));
  }
}

interface Scan {
  className: string;
  index: Record<string, number> | null;
  count: number;
  lastSeenAt: string;
}

async function scans(app: AppClient): Promise<Scan[]> {
  const response = await app.get('/1/scans', MASTER);
  assert.equal(response.status, 200, response.text);
  assert.deepEqual(Object.keys(response.body), ['results']);
  for (const scan of response.body.results) {
    assert.deepEqual(Object.keys(scan).sort(), ['className', 'count', 'index', 'lastSeenAt']);
    assert.match(scan.lastSeenAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  }
  return response.body.results;
}

/** The counts as `<class> <index>` → count, for comparing whole states. */
async function scanCounts(app: AppClient): Promise<Record<string, number>> {
  return Object.fromEntries((await scans(app)).map((scan) => [`${scan.className} ${JSON.stringify(scan.index)}`, scan.count]));
}

eachBackend('prefix regex and indexes', (target) => {
  let app: AppClient;
  let storage: Storage;
  const cls = unique('Prefixed');

  before(async () => {
    app = await newApp(target);
    const created = await app.post(`/1/schemas/${cls}`, { fields: { name: { type: 'String' } }, indexes: { byName: { name: 1 } } }, MASTER);
    assert.equal(created.status, 201, created.text);
    await seed(app, cls, ['abc', 'abcd', 'abc\u00e9', 'abd', 'ab', 'ABC', 'xabc', 'abb\uffff'].map((name) => ({ name })));
    storage = await openStorage(target, cls);
  });

  after(async () => {
    await storage?.close();
  });

  it('the range written for {$regex: "^abc"} is answered by the schema index on the field', async () => {
    const [physical] = await storage.indexesNamed(cls, 'byName');
    assert.ok(physical, 'the schema index exists in the database');
    const { where, orderBy } = PREFIX_RANGE[target.backend];
    // On PostgreSQL sequential scans are priced out (see storage.ts), so a table of a few rows
    // still shows which index the planner can use; SQLite's planner needs no such nudge.
    for (const sql of [where, `${where} ${orderBy}`]) {
      const plan = await storage.plan(cls, sql);
      assert.ok(plan.includes(physical[0]), `the plan for ${sql} uses ${physical[0]}:\n${plan}`);
      if (target.backend === 'sqlite') assert.match(plan, /USING (COVERING )?INDEX/);
      else assert.match(plan, /Index (Only )?Scan|Bitmap Index Scan/);
    }
  });

  it('the range answers exactly what the regex does', async () => {
    const found = await app.get(`/1/classes/${cls}`, { query: { where: { name: { $regex: '^abc' } }, order: 'name' } });
    assert.equal(found.status, 200, found.text);
    assert.deepEqual(found.body.results.map((object: { name: string }) => object.name), ['abc', 'abcd', 'abc\u00e9']);
    const quoted = await app.get(`/1/classes/${cls}`, { query: { where: { name: { $regex: '^\\Qabb\uffff\\E' } } } });
    assert.deepEqual(quoted.body.results.map((object: { name: string }) => object.name), ['abb\uffff']);
  });
});

/**
 * PostgreSQL counts every scan of an index, so there the statement the server itself sends can be
 * checked, not only a plan for text written to match it. (SQLite keeps no such counts; the plan
 * test above is its proof.)
 */
describe('prefix regex on PostgreSQL', () => {
  it('the statement the server runs for {$regex: "^n012"} scans the schema index', async () => {
    const target = targets().find((candidate) => candidate.backend === 'postgres');
    assert.ok(target, 'a PostgreSQL server under test');
    const app = await newApp(target);
    // Enough rows, analysed, that the planner of the server's own session (sequential scans
    // allowed) prefers the index for a selective prefix.
    const many = unique('Prefixed');
    const created = await app.post(`/1/schemas/${many}`, { fields: { name: { type: 'String' } }, indexes: { byName: { name: 1 } } }, MASTER);
    assert.equal(created.status, 201, created.text);
    await seed(app, many, Array.from({ length: 1000 }, (_, i) => ({ name: `n${String(i).padStart(4, '0')}` })));
    await expectIndexScanned(app, many, '%byName%', async () => {
      const response = await app.get(`/1/classes/${many}`, { query: { where: { name: { $regex: '^n012' } } } });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.results.length, 10);
    });
  });
});

eachBackend('scan log', (target) => {
  let app: AppClient;
  const big = unique('Big');
  const small = unique('Small');
  const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ color: i % 2 ? 'red' : 'blue', size: i, when: { __type: 'Date', iso: `2024-01-${String((i % 28) + 1).padStart(2, '0')}T00:00:00.000Z` }, ...(i % 3 ? { tag: 't' } : {}) }));

  before(async () => {
    // A low threshold stands in for the default 10,000 rows: 21 rows are "large" here, 20 are not.
    app = await newApp(target, { rateLimits: { scanWarningRows: 20 } });
    const fields = { color: { type: 'String' }, size: { type: 'Number' }, when: { type: 'Date' }, tag: { type: 'String' } };
    for (const className of [big, small]) assert.equal((await app.post(`/1/schemas/${className}`, { fields, indexes: { bySize: { size: 1 } } }, MASTER)).status, 201);
    await seed(app, big, rows(21));
    await seed(app, small, rows(20));
  });

  it('counts each query that no index serves on a large class, under the index that would serve it', async () => {
    assert.deepEqual(await scans(app), []);
    const date = { __type: 'Date', iso: '2024-01-10T00:00:00.000Z' };
    const steps: [string, Record<string, string | number | object>, string | null][] = [
      ['equality on an unindexed field', { where: { color: 'red' } }, '{"color":1}'],
      ['a range on an indexed field', { where: { size: { $gt: 3 } } }, null],
      ['an unindexed and an indexed constraint', { where: { color: 'red', size: 3 } }, null],
      ['objectId', { where: { objectId: 'abc' } }, null],
      ['createdAt', { where: { createdAt: { $gt: date } } }, null],
      ['no constraint, objectId order', {}, null],
      ['no constraint, indexed order', { order: '-size' }, null],
      ['no constraint, unindexed order', { order: '-color' }, '{"color":-1}'],
      ['$in on an unindexed field', { where: { color: { $in: ['red', 'green'] } } }, '{"color":1}'],
      ['$or with one unindexed branch', { where: { $or: [{ size: 1 }, { color: 'red' }] } }, '{"color":1}'],
      ['$or of indexed branches', { where: { $or: [{ size: 1 }, { size: { $gt: 10 } }] } }, null],
      ['a Date range', { where: { when: { $lt: date } } }, '{"when":1}'],
      ['an anchored prefix regex', { where: { color: { $regex: '^re' } } }, '{"color":1}'],
      ['an unanchored regex: no index would help', { where: { color: { $regex: 'e' } } }, 'null'],
      ['$ne: no index would help', { where: { color: { $ne: 'red' } } }, 'null'],
      ['$exists: no index would help', { where: { tag: { $exists: true } } }, 'null'],
      ['a count scans too', { where: { color: 'blue' }, count: 1, limit: 0 }, '{"color":1}'],
      ['limit 0 without count runs nothing', { where: { color: 'blue' }, limit: 0 }, null],
    ];
    const expected: Record<string, number> = {};
    for (const [label, query, index] of steps) {
      const response = await app.get(`/1/classes/${big}`, { query });
      assert.equal(response.status, 200, `${label}: ${response.text}`);
      if (index !== null) expected[`${big} ${index}`] = (expected[`${big} ${index}`] ?? 0) + 1;
      assert.deepEqual(await scanCounts(app), expected, label);
    }
    // Most frequent first.
    const listed = await scans(app);
    assert.deepEqual(listed.map((scan) => scan.count), [...listed.map((scan) => scan.count)].sort((a, b) => b - a));
    assert.deepEqual(listed[0], { className: big, index: { color: 1 }, count: 5, lastSeenAt: listed[0]!.lastSeenAt });
  });

  it('a class at the threshold is not large, and the same query on it is not counted', async () => {
    const before_ = await scanCounts(app);
    for (const where of [{ color: 'red' }, { tag: { $exists: false } }]) {
      const response = await app.get(`/1/classes/${small}`, { query: { where } });
      assert.equal(response.status, 200, response.text);
    }
    assert.deepEqual(await scanCounts(app), before_);
  });

  it('once the suggested index exists, the query is served and no longer counted', async () => {
    const key = `${big} {"tag":1}`;
    const query = { where: { tag: 't' } };
    assert.equal((await app.get(`/1/classes/${big}`, { query })).status, 200);
    const counted = (await scanCounts(app))[key];
    assert.ok(counted && counted >= 1, `${key} is counted`);
    const indexed = await app.put(`/1/schemas/${big}`, { indexes: { byTag: { tag: 1 } } }, MASTER);
    assert.equal(indexed.status, 200, indexed.text);
    assert.equal((await app.get(`/1/classes/${big}`, { query })).status, 200);
    assert.equal((await scanCounts(app))[key], counted);
  });

  it('the counts are per app, and only the master key reads them', async () => {
    assertError(await app.get('/1/scans'), 403, 119, 'REST key');
    const other = await newApp(target, { rateLimits: { scanWarningRows: 20 } });
    assert.deepEqual(await scans(other), []);
    assert.ok((await scans(app)).length > 0);
  });

  it('with the default threshold of 10,000 rows a small class is never counted', async () => {
    const plain = await newApp(target);
    const className = unique('Plain');
    await seed(plain, className, rows(25));
    assert.equal((await plain.get(`/1/classes/${className}`, { query: { where: { color: 'red' } } })).status, 200);
    assert.deepEqual(await scans(plain), []);
  });
});

describe('scan log lines', () => {
  for (const backend of targets().map((t) => t.backend)) {
    it(`a scanning query logs a warning with the app, class, where keys and the suggested index [${backend}]`, async () => {
      const dataDir = tempDir();
      const database = backend === 'postgres' ? await tempDatabase() : null;
      const env: Record<string, string> = { BASALT_DATA_DIR: dataDir, BASALT_ADMIN_EMAIL: ADMIN.email, BASALT_ADMIN_PASSWORD: ADMIN.password, BASALT_LOG_LEVEL: 'warn' };
      if (database) env.BASALT_DATABASE_URL = database.url;
      const server = await start(env);
      try {
        const app = await newApp({ backend, url: server.url }, { rateLimits: { scanWarningRows: 2 } });
        const className = unique('Logged');
        await seed(app, className, [{ color: 'a' }, { color: 'b' }, { color: 'c' }]);
        const response = await app.get(`/1/classes/${className}`, { query: { where: { color: 'b' }, order: '-createdAt' } });
        assert.equal(response.status, 200, response.text);
        const line = await logLine(() => server.stdout(), (entry) => entry.className === className);
        assert.equal(line.level, 40, 'warn');
        assert.equal(line.applicationId, app.app.applicationId);
        assert.deepEqual(line.where, ['color']);
        assert.deepEqual(line.order, ['-createdAt']);
        assert.deepEqual(line.index, { color: 1 });
        assert.equal(line.rowsOver, 2);
        assert.equal(typeof line.reqId, 'string');
        assert.match(line.msg, new RegExp(`${className}.*\\{"color":1\\}`));
      } finally {
        await stop(server);
        await database?.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  }
});

/** The first JSON log line that `match` accepts; polled, since output arrives in chunks. */
async function logLine(output: () => string, match: (entry: Record<string, any>) => boolean): Promise<Record<string, any>> {
  for (let attempt = 0; attempt < 100; attempt++) {
    for (const text of output().split('\n')) {
      if (!text.startsWith('{')) continue;
      const entry = JSON.parse(text) as Record<string, any>;
      if (match(entry)) return entry;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`no matching log line in:\n${output()}`);
}
