import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { AppClient, newApp, unique } from '../helpers/client.ts';
import { expectIndexScanned } from '../helpers/index-scans.ts';
import { start, stop, tempDatabase, tempDir, type Started } from '../helpers/process.ts';
import { ADMIN, targets } from '../helpers/targets.ts';

/**
 * Automatic indexes: a field that a class's queries keep scanning gets its index, made by the
 * server itself (docs/api.md "Scans"). Each suite starts its own server with low thresholds: 4
 * scans within a minute, at most 2 automatic indexes per class, and an index is reported unused
 * at once; the app counts a class of more than 20 objects as large.
 */

type Json = Record<string, any>;
const MASTER = { key: 'master' } as const;
const SCANS = 4;
const ROWS = 60;

function serverEnv(dataDir: string, databaseUrl: string | null): Record<string, string> {
  return {
    BASALT_DATA_DIR: dataDir,
    ...(databaseUrl ? { BASALT_DATABASE_URL: databaseUrl } : {}),
    BASALT_ADMIN_EMAIL: ADMIN.email,
    BASALT_ADMIN_PASSWORD: ADMIN.password,
    BASALT_LOG_LEVEL: 'info',
    BASALT_AUTO_INDEX_SCANS: String(SCANS),
    BASALT_AUTO_INDEX_WINDOW: '60000',
    BASALT_AUTO_INDEX_MAX_PER_CLASS: '2',
    BASALT_AUTO_INDEX_UNUSED_DAYS: '0',
    BASALT_QUEUE_SWEEP_INTERVAL: '300',
  };
}

async function seed(app: AppClient, className: string, fields: Record<string, string>, count: number, acl?: Json): Promise<void> {
  const created = await app.post(`/1/schemas/${className}`, { fields: Object.fromEntries(Object.entries(fields).map(([name, type]) => [name, { type }])) }, MASTER);
  assert.equal(created.status, 201, created.text);
  for (let i = 0; i < count; i += 50) {
    const requests = Array.from({ length: Math.min(50, count - i) }, (_, j) => {
      const n = i + j;
      return { method: 'POST', path: `/1/classes/${className}`, body: { score: (n * 37) % 101, a: `a${n % 7}`, b: n % 5, c: `c${n % 3}`, rare: n % 2 === 0, ...(acl ? { ACL: acl } : {}) } };
    });
    const response = await app.post('/1/batch', { requests });
    assert.equal(response.status, 200, response.text);
  }
}

async function find(app: AppClient, className: string, query: Json): Promise<Json[]> {
  const response = await app.get(`/1/classes/${className}`, { query });
  assert.equal(response.status, 200, response.text);
  return response.body.results;
}

async function schemaOf(app: AppClient, className: string): Promise<Json> {
  const response = await app.get(`/1/schemas/${className}`, MASTER);
  assert.equal(response.status, 200, response.text);
  return response.body;
}

async function until<T>(what: string, check: () => Promise<T | null>): Promise<T> {
  for (let attempt = 0; attempt < 300; attempt++) {
    const value = await check();
    if (value !== null) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`timed out waiting for ${what}`);
}

/** Waits for the automatic index `name` to be in the class's schema. */
function autoIndexMade(app: AppClient, className: string, name: string): Promise<Json> {
  return until(`${name} on ${className}`, async () => {
    const schema = await schemaOf(app, className);
    return Object.hasOwn(schema.indexes, name) ? schema : null;
  });
}

async function jobCount(app: AppClient): Promise<number> {
  const response = await app.get('/1/queue/jobs', { ...MASTER, query: { count: 1, limit: 0 } });
  assert.equal(response.status, 200, response.text);
  return response.body.count;
}

/** The plan the server answers for `query` (the `explain` option), as text. */
async function planText(app: AppClient, className: string, query: Json): Promise<string> {
  const response = await app.get(`/1/classes/${className}`, { ...MASTER, query: { ...query, explain: 'true' } });
  assert.equal(response.status, 200, response.text);
  return JSON.stringify(response.body.results);
}

const RANGE = { where: { score: { $gte: 60 } }, order: '-score', limit: 20 };
/** A range few rows are in: with an index, any planner reads it through the index. */
const SELECTIVE = { where: { score: { $gte: 99 } }, order: '-score', limit: 20 };

for (const { backend } of targets()) {
  describe(`automatic indexes [${backend}]`, () => {
    let server: Started;
    let dataDir: string;
    let database: Awaited<ReturnType<typeof tempDatabase>> | null = null;
    let app: AppClient;

    before(async () => {
      dataDir = tempDir();
      database = backend === 'postgres' ? await tempDatabase() : null;
      server = await start(serverEnv(dataDir, database?.url ?? null));
      app = await newApp({ backend, url: server.url }, { rateLimits: { scanWarningRows: 20 } });
    });

    after(async () => {
      if (server) await stop(server);
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('on a class of objects anyone may not read, comes with its reader index; on a public one, without', async () => {
      const names = async (className: string) => (backend === 'postgres' ? await indexNames(database!.url, className) : sqliteIndexNames(dataDir, className));
      const owned = unique('Owned');
      const open = unique('Open');
      await seed(app, owned, { score: 'Number', a: 'String', b: 'Number', c: 'String', rare: 'Boolean' }, 100, { someone: { read: true } });
      await seed(app, open, { score: 'Number', a: 'String', b: 'Number', c: 'String', rare: 'Boolean' }, 100);
      for (let i = 0; i < SCANS; i++) await Promise.all([find(app, owned, RANGE), find(app, open, RANGE)]);
      await autoIndexMade(app, owned, 'auto_score');
      await autoIndexMade(app, open, 'auto_score');
      assert.deepEqual((await names(owned)).filter((name) => name.includes('auto_score')).sort(), [`${owned}_idx:auto_score`, `${owned}_rdr:auto_score`]);
      assert.deepEqual((await names(open)).filter((name) => name.includes('auto_score')), [`${open}_idx:auto_score`]);
    });

    it('appears after the threshold, is marked automatic, is used, and answers what the scan did', async () => {
      const cls = unique('Scored');
      // Enough rows that PostgreSQL's planner, with statistics, prefers the index for a selective range.
      await seed(app, cls, { score: 'Number', a: 'String', b: 'Number', c: 'String', rare: 'Boolean' }, 1500);
      // A field needed fewer times than the threshold gets nothing.
      for (let i = 0; i < SCANS - 1; i++) await find(app, cls, { where: { rare: true }, limit: 5 });
      const before = await find(app, cls, RANGE);
      assert.ok(before.length > 0);
      for (let i = 1; i < SCANS; i++) await find(app, cls, RANGE);

      const schema = await autoIndexMade(app, cls, 'auto_score');
      assert.deepEqual(Object.keys(schema.indexes).filter((name) => name.startsWith('auto_')), ['auto_score']);
      assert.deepEqual(schema.indexes.auto_score, { score: 1 });
      assert.deepEqual(Object.keys(schema.autoIndexes), ['auto_score']);
      assert.deepEqual(Object.keys(schema.autoIndexes.auto_score), ['createdAt']);
      assert.match(schema.autoIndexes.auto_score.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      // The job is done and gone, and none was queued for the rarely queried field.
      await until('the queue to drain', async () => ((await jobCount(app)) === 0 ? true : null));
      assert.ok(!Object.hasOwn((await schemaOf(app, cls)).indexes, 'auto_rare'));

      const listed = await app.get('/1/scans', MASTER);
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(Object.keys(listed.body), ['results', 'automaticIndexes']);
      const entry = listed.body.results.find((scan: Json) => scan.className === cls && scan.index?.score === 1);
      assert.deepEqual(entry.automaticIndex, { name: 'auto_score', createdAt: schema.autoIndexes.auto_score.createdAt });
      const rare = listed.body.results.find((scan: Json) => scan.className === cls && scan.index?.rare === 1);
      assert.deepEqual(Object.keys(rare).sort(), ['className', 'count', 'index', 'lastSeenAt']);
      const made = listed.body.automaticIndexes.filter((index: Json) => index.className === cls);
      assert.equal(made.length, 1);
      assert.deepEqual(Object.keys(made[0]), ['className', 'name', 'keys', 'createdAt', 'scans', 'unused']);
      assert.deepEqual([made[0].name, made[0].keys, made[0].createdAt], ['auto_score', { score: 1 }, schema.autoIndexes.auto_score.createdAt]);
      if (backend === 'postgres') {
        // Not read yet, and older than the 0 days the server was given: reported unused.
        assert.deepEqual([made[0].scans, made[0].unused], [0, true]);
      } else {
        assert.deepEqual([made[0].scans, made[0].unused], [null, null]);
      }

      if (backend === 'postgres') {
        await expectIndexScanned(app, cls, '%auto_score%', async () => {
          await find(app, cls, SELECTIVE);
        }, database!.url);
      }
      const plan = await planText(app, cls, SELECTIVE);
      assert.ok(plan.includes('auto_score'), `the plan reads the automatic index: ${plan}`);
      assert.deepEqual(await find(app, cls, RANGE), before, 'the same results with the index');
      assert.deepEqual(await find(app, cls, SELECTIVE), before.filter((object) => object.score >= 99), 'the same results with the index');
      // No longer a scan: the entry's count stays where it was.
      const again = (await app.get('/1/scans', MASTER)).body.results.find((scan: Json) => scan.className === cls && scan.index?.score === 1);
      assert.equal(again.count, SCANS);
    });

    // Stored columns are PostgreSQL's only: on SQLite the test is not registered, rather than skipped.
    if (backend === 'postgres') it('on PostgreSQL, is over columns a trigger keeps, read alone for an anonymous count, and gone with its columns when dropped', async () => {
      const cls = unique('Kept');
      await seed(app, cls, { score: 'Number', a: 'String', b: 'Number', c: 'String', rare: 'Boolean' }, 600);
      const pg = (await import('pg')).default;
      const client = new pg.Client({ connectionString: database!.url });
      await client.connect();
      try {
        const { rows: found } = await client.query('SELECT schemaname FROM pg_tables WHERE tablename = $1', [cls]);
        const schemaName = String(found[0].schemaname);
        const table = `"${schemaName}"."${cls}"`;
        const kept = async () => {
          const { rows } = await client.query(
            `SELECT column_name || ' ' || is_generated AS c FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND (column_name LIKE 'f.%' OR column_name = '_public') ORDER BY 1`,
            [schemaName, cls],
          );
          const triggers = await client.query(`SELECT count(*)::int AS n FROM pg_trigger WHERE tgrelid = $1::regclass AND NOT tgisinternal`, [table]);
          return { columns: rows.map((row) => String(row.c)), triggers: Number(triggers.rows[0].n) };
        };
        const differing = async () =>
          Number((await client.query(`SELECT count(*)::int AS n FROM ${table} WHERE "f.score" IS DISTINCT FROM (("data"->>'score')::float8) OR "_public" IS DISTINCT FROM ("_rperm" && '{*}')`)).rows[0].n);
        // Made while the rows exist: the build fills the columns of all of them.
        for (let i = 0; i < SCANS; i++) await find(app, cls, RANGE);
        await autoIndexMade(app, cls, 'auto_score');
        assert.deepEqual(await kept(), { columns: ['_public NEVER', 'f.score NEVER'], triggers: 1 });
        assert.equal(await differing(), 0);
        const { rows: stored } = await client.query(`SELECT "schema" FROM "${schemaName}"."_SCHEMA" WHERE "className" = $1`, [cls]);
        const record = JSON.parse(String(stored[0].schema));
        assert.deepEqual([record.storedIndexes, record.publicColumn], [{ auto_score: [{ path: ['score'], as: 'number', column: 'f.score' }] }, true]);
        const { rows: stats } = await client.query(`SELECT count(*)::int AS n FROM pg_stats WHERE schemaname = $1 AND tablename = $2 AND attname = 'f.score'`, [schemaName, cls]);
        assert.equal(Number(stats[0].n), 1, 'the build analyzed the table');

        // Writes of every kind keep the column: Increment, a set, Delete, a private ACL, a new object.
        const ids = (await find(app, cls, { order: 'createdAt', limit: 4, keys: 'score' })).map((object) => object.objectId as string);
        const put = async (objectId: string, body: Json) => assert.equal((await app.put(`/1/classes/${cls}/${objectId}`, body, MASTER)).status, 200);
        await put(ids[0]!, { score: { __op: 'Increment', amount: 1000 } });
        await put(ids[1]!, { score: 2000.5 });
        await put(ids[2]!, { score: { __op: 'Delete' } });
        await put(ids[3]!, { ACL: {} });
        assert.equal((await app.post(`/1/classes/${cls}`, { score: 3000 })).status, 201);
        const refused = await app.put(`/1/classes/${cls}/${ids[1]}`, { score: 'high' }, MASTER);
        assert.deepEqual([refused.status, refused.body.code], [400, 111], 'a value of another type is refused as before');
        assert.equal(await differing(), 0, 'the trigger kept every column');
        await assert.rejects(client.query(`UPDATE ${table} SET "data" = '{"score":"high"}' WHERE "objectId" = $1`, [ids[1]]), /invalid input syntax for type double precision/);

        // An anonymous count of a range: the answer the document gives, read from the index alone.
        const expected = Number((await client.query(`SELECT count(*)::int AS n FROM ${table} WHERE (("data"->>'score')::float8) >= 60 AND "_rperm" && '{*}'`)).rows[0].n);
        await client.query(`VACUUM ${table}`);
        const { rows: plan } = await client.query(`EXPLAIN (FORMAT JSON) SELECT count(*) FROM ${table} WHERE "f.score" >= 60 AND "_public"`);
        assert.match(JSON.stringify(plan[0]['QUERY PLAN']), /"Node Type":"Index Only Scan".*auto_score/);
        await expectIndexScanned(app, cls, '%auto_score%', async () => {
          const counted = await app.get(`/1/classes/${cls}`, { query: { where: { score: { $gte: 60 } }, count: 1, limit: 0 } });
          assert.equal(counted.status, 200, counted.text);
          assert.equal(counted.body.count, expected);
        }, database!.url);

        // Dropped through the schema API: the columns and the trigger go with it, and writes go on.
        assert.equal((await app.put(`/1/schemas/${cls}`, { indexes: { auto_score: { __op: 'Delete' } } }, MASTER)).status, 200);
        assert.deepEqual(await kept(), { columns: [], triggers: 0 });
        await put(ids[0]!, { score: 1 });
        assert.deepEqual((await find(app, cls, { where: { score: { $gte: 2999 } }, keys: 'score' })).map((object) => object.score), [3000]);
      } finally {
        await client.end();
      }
    });

    it('queries asked while the index is built, some made to wait their turn, each answer exactly what the class holds', async () => {
      const cls = unique('Busy');
      await seed(app, cls, { score: 'Number', a: 'String', b: 'Number', c: 'String', rare: 'Boolean' }, 1500);
      // Every object, read in objectId order (no scan of `score` to count); each page is then
      // worked out here: score descending, then objectId in byte order, as the server sorts.
      const halves = await Promise.all([0, 1000].map((skip) => find(app, cls, { order: 'objectId', limit: 1000, skip, keys: 'score' })));
      const all = halves.flat().map((object) => ({ id: object.objectId as string, score: object.score as number }));
      assert.equal(all.length, 1500);
      all.sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
      const expected = (bound: number) => all.filter((object) => object.score >= bound).slice(0, 20).map((object) => object.id);
      const page = async (bound: number) => (await find(app, cls, { where: { score: { $gte: bound } }, order: '-score', limit: 20, keys: 'score' })).map((object) => object.objectId);
      // Waves of queries at once from before the threshold until the index is listed, and one after.
      let listed = false;
      for (let wave = 0; wave < 200 && !listed; wave++) {
        const bounds = Array.from({ length: 12 }, (_, i) => (wave * 7 + i * 13) % 101);
        const answers = await Promise.all(bounds.map(page));
        bounds.forEach((bound, i) => assert.deepEqual(answers[i], expected(bound), `score >= ${bound} in wave ${wave}`));
        listed = Object.hasOwn((await schemaOf(app, cls)).indexes, 'auto_score');
      }
      assert.ok(listed, 'the automatic index was made');
      const bounds = [0, 50, 99, 100];
      assert.deepEqual(await Promise.all(bounds.map(page)), bounds.map(expected), 'and read through it');
    });

    it('never more than the set number per class; the scans of the field left out stay listed', async () => {
      const cls = unique('Capped');
      await seed(app, cls, { score: 'Number', a: 'String', b: 'Number', c: 'String', rare: 'Boolean' }, ROWS);
      for (const [field, value, name] of [['a', 'a3', 'auto_a'], ['b', 2, 'auto_b']] as const) {
        for (let i = 0; i < SCANS; i++) await find(app, cls, { where: { [field]: value } });
        await autoIndexMade(app, cls, name);
      }
      for (let i = 0; i < SCANS; i++) await find(app, cls, { where: { c: 'c1' } });
      await until('the capped job to finish', async () => (server.stdout().includes(`No automatic index on ${cls}.c`) ? true : null));
      const schema = await schemaOf(app, cls);
      assert.deepEqual(Object.keys(schema.autoIndexes).sort(), ['auto_a', 'auto_b']);
      assert.ok(!Object.hasOwn(schema.indexes, 'auto_c'));
      assert.equal(await jobCount(app), 0);
      const scans = (await app.get('/1/scans', MASTER)).body.results.filter((scan: Json) => scan.className === cls);
      assert.deepEqual(scans.find((scan: Json) => scan.index?.c === 1)?.automaticIndex, undefined);
      assert.equal(scans.find((scan: Json) => scan.index?.c === 1)?.count, SCANS);

      // Dropped through the schema API, it leaves the schema's list of automatic indexes too.
      const dropped = await app.put(`/1/schemas/${cls}`, { indexes: { auto_a: { __op: 'Delete' } } }, MASTER);
      assert.equal(dropped.status, 200, dropped.text);
      assert.deepEqual(Object.keys(dropped.body.autoIndexes), ['auto_b']);
      assert.ok(!Object.hasOwn(dropped.body.indexes, 'auto_a'));
    });

    it('a field a built-in class indexes itself (_User username) is served: neither counted nor indexed again', async () => {
      const users = await newApp({ backend, url: server.url }, { rateLimits: { scanWarningRows: 20 } });
      for (let i = 0; i < 25; i++) {
        const created = await users.post('/1/users', { username: `u${i}`, password: 'secret-password', tag: `t${i % 3}` });
        assert.equal(created.status, 201, created.text);
      }
      for (let i = 0; i < SCANS; i++) {
        for (const where of [{ username: 'u3' }, { tag: 't1' }]) {
          const found = await users.get('/1/users', { ...MASTER, query: { where } });
          assert.equal(found.status, 200, found.text);
        }
      }
      // The unindexed field is counted (and gets its index); username is not.
      const schema = await autoIndexMade(users, '_User', 'auto_tag');
      assert.deepEqual(Object.keys(schema.autoIndexes), ['auto_tag']);
      const scans = (await users.get('/1/scans', MASTER)).body.results;
      assert.deepEqual(scans.map((scan: Json) => [scan.className, scan.index]), [['_User', { tag: 1 }]]);
    });

    it('updatedAt has no index from the start: sorting by it scans until its automatic index is made', async () => {
      const cls = unique('Recent');
      // Enough rows that PostgreSQL's planner prefers the index to sorting the whole table.
      await seed(app, cls, { score: 'Number', a: 'String', b: 'Number', c: 'String', rare: 'Boolean' }, 1500);
      const recent = { order: '-updatedAt', limit: 5, keys: 'score' };
      const before = await find(app, cls, recent);
      assert.equal(before.length, 5);
      for (let i = 1; i < SCANS; i++) await find(app, cls, recent);
      const schema = await autoIndexMade(app, cls, 'auto_updatedAt');
      assert.deepEqual(schema.indexes, { auto_updatedAt: { updatedAt: -1 } });
      const scans = (await app.get('/1/scans', MASTER)).body.results.filter((scan: Json) => scan.className === cls);
      assert.deepEqual(scans.map((scan: Json) => [scan.index, scan.count]), [[{ updatedAt: -1 }, SCANS]]);
      assert.deepEqual(await find(app, cls, recent), before, 'the same results with the index');
      if (backend === 'postgres') {
        await expectIndexScanned(app, cls, '%auto_updatedAt%', async () => {
          await find(app, cls, recent);
        }, database!.url);
      }
      const plan = await planText(app, cls, recent);
      assert.ok(plan.includes('auto_updatedAt'), `the plan reads the automatic index: ${plan}`);
    });

    it('an app with autoIndexes: false gets none; the setting is a boolean', async () => {
      const off = await newApp({ backend, url: server.url }, { rateLimits: { scanWarningRows: 20 }, autoIndexes: false });
      const cls = unique('Manual');
      await seed(off, cls, { score: 'Number', a: 'String', b: 'Number', c: 'String', rare: 'Boolean' }, ROWS);
      for (let i = 0; i < SCANS * 2; i++) await find(off, cls, RANGE);
      assert.equal(await jobCount(off), 0, 'no job was queued');
      const schema = await schemaOf(off, cls);
      assert.deepEqual(schema.indexes, {});
      assert.equal(schema.autoIndexes, undefined);
      const scans = (await off.get('/1/scans', MASTER)).body;
      assert.deepEqual(Object.keys(scans), ['results']);
      assert.equal(scans.results[0].count, SCANS * 2);

      const refused = await newApp({ backend, url: server.url }, { autoIndexes: 'no' }).then(
        () => null,
        (error: Error) => error.message,
      );
      assert.match(refused ?? '', /^could not create a test app: 400 .*autoIndexes must be a boolean/);
    });
  });
}

describe('automatic indexes across processes [postgres]', () => {
  it('two servers on one PostgreSQL, each past the threshold, make the index once', { timeout: 180_000 }, async () => {
    if (!targets().some((target) => target.backend === 'postgres')) return;
    const dataDir = tempDir();
    const database = await tempDatabase();
    const servers: Started[] = [];
    try {
      servers.push(await start(serverEnv(dataDir, database.url)));
      servers.push(await start(serverEnv(tempDir(), database.url)));
      const first = await newApp({ backend: 'postgres', url: servers[0]!.url }, { rateLimits: { scanWarningRows: 20 } });
      const second = new AppClient({ backend: 'postgres', url: servers[1]!.url }, first.app);
      const cls = unique('Shared');
      await seed(first, cls, { score: 'Number', a: 'String', b: 'Number', c: 'String', rare: 'Boolean' }, ROWS);
      // Each process counts its own scans: both reach the threshold and both queue the job.
      for (let i = 0; i < SCANS; i++) await Promise.all([find(first, cls, RANGE), find(second, cls, RANGE)]);
      await autoIndexMade(second, cls, 'auto_score');
      await until('both jobs to finish', async () => ((await jobCount(first)) === 0 ? true : null));
      const output = servers.map((server) => server.stdout()).join('\n');
      const requested = output.split('\n').filter((line) => line.includes(cls) && line.includes('an automatic index is requested'));
      assert.equal(requested.length, 2, 'each process asked');
      const created = output.split('\n').filter((line) => line.includes(`Created the automatic index auto_score on ${cls}`));
      assert.equal(created.length, 1, 'one made it');
      assert.ok(output.includes(`No automatic index on ${cls}.score: `), 'the other found it made');
      const pgIndexes = await indexNames(database.url, cls);
      // Once, and without a reader index: every object is one anyone may read (docs/architecture.md, "Reader indexes").
      assert.deepEqual(pgIndexes.filter((name) => name.includes('auto_score')).sort(), [`${cls}_idx:auto_score`]);
    } finally {
      for (const server of servers) await stop(server);
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('automatic indexes after a failed build [postgres]', () => {
  it('an INVALID index left by a failed concurrent build under the same name is dropped and the index built', { timeout: 180_000 }, async () => {
    if (!targets().some((target) => target.backend === 'postgres')) return;
    const dataDir = tempDir();
    const database = await tempDatabase();
    const server = await start(serverEnv(dataDir, database.url));
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const app = await newApp({ backend: 'postgres', url: server.url }, { rateLimits: { scanWarningRows: 20 } });
      const cls = unique('Broken');
      await seed(app, cls, { score: 'Number', a: 'String', b: 'Number', c: 'String', rare: 'Boolean' }, ROWS);
      const { rows } = await client.query('SELECT schemaname FROM pg_tables WHERE tablename = $1', [cls]);
      const table = `"${rows[0].schemaname}"."${cls}"`;
      // A unique build over repeated values fails and, being concurrent, leaves its index behind, INVALID.
      await assert.rejects(client.query(`CREATE UNIQUE INDEX CONCURRENTLY "${cls}_idx:auto_score" ON ${table} ((data->>'rare'))`));
      // And so may the reader index's build.
      await assert.rejects(client.query(`CREATE UNIQUE INDEX CONCURRENTLY "${cls}_rdr:auto_score" ON ${table} ((data->>'rare'))`));
      assert.deepEqual(await validity(client, cls), [[`${cls}_idx:auto_score`, false], [`${cls}_rdr:auto_score`, false]]);

      for (let i = 0; i < SCANS; i++) await find(app, cls, RANGE);
      await autoIndexMade(app, cls, 'auto_score');
      // The reader index's leftover went too; none is built, as anyone may read every object.
      assert.deepEqual(await validity(client, cls), [[`${cls}_idx:auto_score`, true]]);
      const definition = await client.query('SELECT indexdef FROM pg_indexes WHERE tablename = $1 AND indexname = $2', [cls, `${cls}_idx:auto_score`]);
      assert.match(String(definition.rows[0].indexdef), /\("f\.score" NULLS FIRST, "objectId"\) INCLUDE \(_rperm, _public\)$/);
      assert.doesNotMatch(String(definition.rows[0].indexdef), /UNIQUE/);
    } finally {
      await client.end();
      await stop(server);
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/** The class's indexes other than the built-in ones, with whether each is valid. */
async function validity(client: { query: (sql: string, params: unknown[]) => Promise<{ rows: Json[] }> }, className: string): Promise<[string, boolean][]> {
  const { rows } = await client.query(
    `SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid WHERE t.relname = $1 AND c.relname LIKE '%auto%' ORDER BY 1`,
    [className],
  );
  return rows.map((row) => [String(row.name), row.valid === true]);
}

/** The names of the class's indexes, in whichever app's SQLite file under `dataDir` holds it. */
function sqliteIndexNames(dataDir: string, className: string): string[] {
  return readdirSync(join(dataDir, 'apps'))
    .filter((name) => name.endsWith('.db'))
    .flatMap((file) => {
      const db = new Database(join(dataDir, 'apps', file), { readonly: true });
      try {
        return (db.prepare(`SELECT "name" FROM sqlite_master WHERE "type" = 'index' AND "tbl_name" = ?`).all(className) as { name: string }[]).map((row) => row.name);
      } finally {
        db.close();
      }
    });
}

async function indexNames(url: string, className: string): Promise<string[]> {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT indexname FROM pg_indexes WHERE tablename = $1', [className]);
    return rows.map((row) => String(row.indexname));
  } finally {
    await client.end();
  }
}

