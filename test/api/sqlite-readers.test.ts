import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient, type Response } from '../helpers/client.ts';
import { sqliteApp } from '../helpers/app-database.ts';
import { start, stop, tempDir, type Started } from '../helpers/process.ts';
import { ADMIN, targets } from '../helpers/targets.ts';

/**
 * SQLite runs finds, counts and aggregates on reader threads beside the main one
 * (--sqlite-readers, docs/architecture.md "SQLite reader threads"). Most of this file is
 * SQLite's alone: PostgreSQL runs every statement on its own server, and its statement time
 * limit is another option. What both backends share (the answers, read-after-write) runs on both.
 */

const MASTER = { key: 'master' } as const;
const SCAN_ROWS = 200_000;
// A pattern the linear-time check lets through (no time limit of its own), slow enough over
// SCAN_ROWS names of 300 characters to take seconds: each row's match is tried at every position.
const SLOW_PATTERN = '(A|B)*Z$';

/** Objects written straight into the app's file: 200,000 over HTTP would take minutes. */
function fillFile(db: Database.Database, className: string, rows: number): void {
  db.pragma('busy_timeout = 10000');
  db.prepare(
    `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?)
     INSERT INTO "${className}" ("objectId", "createdAt", "updatedAt", "_rperm", "_wperm", "data")
     SELECT printf('s%09d', x), "createdAt", "updatedAt", "_rperm", "_wperm", jsonb_set("data", '$.name', printf('%s-%d', hex(randomblob(150)), x))
     FROM c, (SELECT * FROM "${className}" LIMIT 1)`,
  ).run(rows);
  db.close();
}

async function created(app: AppClient, className: string, fields: Record<string, unknown>): Promise<string> {
  const response = await app.post(`/1/classes/${className}`, fields);
  assert.equal(response.status, 201, response.text);
  return String(response.body.objectId);
}

function slowScan(app: AppClient, className: string): Promise<Response> {
  return app.get(`/1/classes/${className}`, { query: { where: { name: { $regex: SLOW_PATTERN } }, count: 1, limit: 1 } });
}

eachBackend('reads right after writes', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newApp(target);
  });

  it('a find sent as soon as a create is answered finds it, 200 times over', async () => {
    const className = unique('AfterWrite');
    for (let i = 0; i < 200; i++) {
      await created(app, className, { i });
      const found = await app.get(`/1/classes/${className}`, { query: { where: { i } } });
      assert.equal(found.status, 200, found.text);
      assert.deepEqual(found.body.results.map((object: { i: number }) => object.i), [i], `object ${i}`);
    }
  });
});

/** The same answers from SQLite with readers, SQLite without, and PostgreSQL. */
describe('query answers with and without reader threads', () => {
  const dataDir = tempDir();
  let noReaders: Started;
  before(async () => {
    noReaders = await start({ BASALT_DATA_DIR: dataDir, BASALT_ADMIN_EMAIL: ADMIN.email, BASALT_ADMIN_PASSWORD: ADMIN.password, BASALT_SQLITE_READERS: '0' });
  });
  after(async () => {
    await stop(noReaders);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('are the same for finds, counts, aggregates, distinct values and subqueries', async () => {
    const servers = [...targets(), { backend: 'sqlite' as const, url: noReaders.url }];
    const className = unique('Same');
    const other = unique('SameOther');
    const questions: [string, Record<string, string | number | object>, boolean][] = [
      [className, { where: { score: { $gte: 20 } }, order: '-score,name', limit: 5, keys: 'name,score' }, false],
      [className, { where: { name: { $regex: '^[a-c]', $options: 'i' } }, order: 'name', count: 1 }, false],
      [className, { where: { tags: 'red' }, order: 'score', count: 1, limit: 0 }, false],
      [className, { where: { name: { $select: { query: { className: other, where: { on: true } }, key: 'name' } } }, order: 'name' }, false],
      [className, { where: { flag: true, score: { $lt: 80 } }, order: 'name', skip: 1, limit: 3 }, false],
    ];
    const answers: unknown[][] = [];
    for (const server of servers) {
      const app = await newApp(server);
      const requests = Array.from({ length: 40 }, (_, i) => ({
        method: 'POST',
        path: `/1/classes/${className}`,
        body: { name: `${String.fromCharCode(97 + (i % 26))}-${i}`, score: (i * 37) % 100, flag: i % 3 === 0, tags: i % 2 ? ['red'] : ['blue', 'red', 'x'].slice(i % 3) },
      }));
      assert.equal((await app.post('/1/batch', { requests })).status, 200);
      for (const name of ['a-0', 'c-2', 'zz']) await created(app, other, { name, on: name !== 'c-2' });
      const answer: unknown[] = [];
      for (const [name, query] of questions) {
        const response = await app.get(`/1/classes/${name}`, { query });
        assert.equal(response.status, 200, response.text);
        answer.push({ count: response.body.count, results: response.body.results.map(({ objectId: _id, createdAt: _c, updatedAt: _u, ...fields }: Record<string, unknown>) => fields) });
      }
      const grouped = await app.get(`/1/aggregate/${className}`, { ...MASTER, query: { pipeline: [{ $match: { flag: true } }, { $group: { _id: '$score', n: { $sum: 1 } } }, { $sort: { _id: 1 } }] } });
      assert.equal(grouped.status, 200, grouped.text);
      const distinct = await app.get(`/1/aggregate/${className}`, { ...MASTER, query: { distinct: 'tags' } });
      assert.equal(distinct.status, 200, distinct.text);
      answer.push(grouped.body.results, [...distinct.body.results].sort());
      answers.push(answer);
    }
    assert.deepEqual(answers[2], answers[0], 'SQLite without readers answers as SQLite with them');
    assert.deepEqual(answers[1], answers[0], 'PostgreSQL answers as SQLite');
  });
});

describe('a long scan on SQLite', () => {
  const target = targets().find((candidate) => candidate.backend === 'sqlite')!;
  let app: AppClient;
  let className: string;
  before(async () => {
    app = await newApp(target);
    className = unique('LongScan');
    await created(app, className, { name: 'first' });
    fillFile(sqliteApp(className, { writable: true }), className, SCAN_ROWS);
  });

  it('holds up no read by id: the reads sent while it runs are answered before it', { timeout: 120_000 }, async () => {
    const id = await created(app, className, { name: 'wanted' });
    const finished: string[] = [];
    const scan = slowScan(app, className).then((response) => {
      finished.push('scan');
      return response;
    });
    // Gives the scan time to reach its thread; the order of the answers is what is checked.
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (let i = 0; i < 5; i++) {
      const read = await app.get(`/1/classes/${className}/${id}`);
      assert.equal(read.status, 200, read.text);
      assert.equal(read.body.name, 'wanted');
      finished.push('get');
    }
    const scanned = await scan;
    assert.equal(scanned.status, 200, scanned.text);
    assert.equal(scanned.body.count, 0);
    assert.deepEqual(finished, ['get', 'get', 'get', 'get', 'get', 'scan']);
  });
});

describe('the SQLite read time limit', () => {
  const dataDir = tempDir();
  let server: Started;
  before(async () => {
    server = await start({ BASALT_DATA_DIR: dataDir, BASALT_ADMIN_EMAIL: ADMIN.email, BASALT_ADMIN_PASSWORD: ADMIN.password, BASALT_SQLITE_READ_TIMEOUT: '100' });
  });
  after(async () => {
    await stop(server);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stops a read that runs past it with 124, and the next read is answered', { timeout: 120_000 }, async () => {
    const app = await newApp({ backend: 'sqlite', url: server.url });
    const className = unique('Limited');
    const first = await created(app, className, { name: 'first' });
    const apps = join(dataDir, 'apps');
    const files = readdirSync(apps).filter((name) => name.endsWith('.db'));
    const file = files.find((name) => {
      const db = new Database(join(apps, name), { readonly: true });
      const found = db.prepare(`SELECT 1 FROM sqlite_master WHERE name = ?`).get(className);
      db.close();
      return found;
    });
    fillFile(new Database(join(apps, file!)), className, SCAN_ROWS);
    const stopped = await slowScan(app, className);
    assert.equal(stopped.status, 400, stopped.text);
    assert.equal(stopped.body.code, 124);
    assert.match(stopped.body.error, /100 ms/);
    // By objectId (the primary key), so that it is quick, on a reader thread all the same.
    const next = await app.get(`/1/classes/${className}`, { query: { where: { objectId: first } } });
    assert.equal(next.status, 200, next.text);
    assert.deepEqual(next.body.results.map((object: { name: string }) => object.name), ['first']);
  });
});
