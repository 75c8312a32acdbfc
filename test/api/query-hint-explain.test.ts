import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient, type RequestOptions, type Response } from '../helpers/client.ts';
import { as, assertError, signUp, type TestUser } from '../helpers/users.ts';

/**
 * `hint` (the SDKs' `query.hint(…)`): the query is read through the named index of the class
 * (SQLite's INDEXED BY; PostgreSQL has no hints and plans as without one), an unknown index
 * answers 400/102. `explain` (`query.explain()`): the master key gets the plan of the very
 * statements the query would run, `{results: [{"QUERY PLAN": …}]}`, and nothing is read.
 */

type Json = Record<string, any>;
const MASTER = { key: 'master' } as const;

/** Every node of a PostgreSQL `EXPLAIN (FORMAT JSON)` document. */
function pgNodes(plan: Json[]): Json[] {
  const walk = (node: Json): Json[] => [node, ...((node.Plans as Json[] | undefined) ?? []).flatMap(walk)];
  return plan.flatMap((entry) => walk(entry.Plan));
}

/** The plans of an explained query, after checking the answer's shape. */
function plansOf(response: Response, backend: string): unknown[] {
  assert.equal(response.status, 200, response.text);
  assert.deepEqual(Object.keys(response.body), ['results']);
  return response.body.results.map((entry: Json) => {
    assert.deepEqual(Object.keys(entry), ['QUERY PLAN']);
    const plan = entry['QUERY PLAN'];
    assert.ok(Array.isArray(plan), JSON.stringify(plan));
    if (backend === 'sqlite') for (const row of plan) assert.deepEqual(Object.keys(row).sort(), ['detail', 'id', 'parent']);
    else assert.equal(typeof plan[0].Plan['Node Type'], 'string');
    return plan;
  });
}

/** SQLite's plan rows, as their `detail` texts. */
const details = (plan: unknown) => (plan as Json[]).map((row) => String(row.detail));

eachBackend('query hint and explain', (target) => {
  let app: AppClient;
  let user: TestUser;
  const cls = unique('Hinted');

  before(async () => {
    app = await newApp(target);
    user = await signUp(app);
    // Every built-in class the endpoints read exists, so each query has a statement to plan.
    const role = await app.post('/1/roles', { name: unique('role'), ACL: { '*': { read: true } } }, MASTER);
    assert.equal(role.status, 201, role.text);
    const installation = await app.post('/1/installations', { installationId: '0d2c7a4e-63f1-4b9e-8f0e-6a1f5b2c9d30', deviceType: 'ios' });
    assert.equal(installation.status, 201, installation.text);
    const created = await app.post(
      `/1/schemas/${cls}`,
      {
        fields: { name: { type: 'String' }, score: { type: 'Number' }, body: { type: 'String' } },
        indexes: { byScore: { score: -1 }, byName: { name: 1 }, words: { body: 'text' } },
      },
      MASTER,
    );
    assert.equal(created.status, 201, created.text);
    for (let i = 1; i <= 5; i++) {
      const made = await app.post(`/1/classes/${cls}`, { name: `n${i}`, score: i, body: `word${i} shared` });
      assert.equal(made.status, 201, made.text);
    }
  });

  const find = (query: Json, options: RequestOptions = {}) => app.get(`/1/classes/${cls}`, { ...options, query });
  const sdkFind = (fields: Json) => app.post(`/1/classes/${cls}`, { _method: 'GET', ...fields });

  it('hint names an index of the class, by its name, by its keys, or _id_ for the primary key; the answer does not change', async () => {
    const query = { where: { score: { $gte: 2 } }, order: '-score', count: 1 };
    const plain = await find(query);
    assert.equal(plain.status, 200, plain.text);
    assert.deepEqual(plain.body.results.map((object: Json) => object.name), ['n5', 'n4', 'n3', 'n2']);
    assert.equal(plain.body.count, 4);
    for (const hint of ['byScore', 'byName', 'words', '_id_', { score: -1 }, { name: 1 }, { body: 'text' }, { objectId: 1 }, { _id: 1 }]) {
      const label = `hint ${JSON.stringify(hint)}`;
      const hinted = await find({ ...query, hint });
      assert.equal(hinted.status, 200, `${label}: ${hinted.text}`);
      assert.deepEqual(hinted.body, plain.body, label);
      // The SDK body form sends the hint as it was given: a string, or an object.
      const sdk = await sdkFind({ ...query, hint });
      assert.equal(sdk.status, 200, `${label} (body form): ${sdk.text}`);
      assert.deepEqual(sdk.body, plain.body, `${label} (body form)`);
    }
    const counted = await find({ where: { score: { $lte: 2 } }, limit: 0, count: 1, hint: 'byName' });
    assert.deepEqual(counted.body, { results: [], count: 2 });
  });

  it('an index the class does not have answers 400/102 naming it; a hint of another type 400/102', async () => {
    for (const [hint, named] of [
      ['nope', '"nope"'],
      ['byscore', '"byscore"'],
      [{ score: 1 }, '{"score":1}'],
      [{ score: -1, name: 1 }, '{"score":-1,"name":1}'],
      [{ objectId: -1 }, '{"objectId":-1}'],
    ] as const) {
      const response = await find({ hint });
      assertError(response, 400, 102, `hint ${JSON.stringify(hint)}`);
      assert.ok(response.body.error.includes(named), response.body.error);
      assertError(await sdkFind({ hint }), 400, 102, `hint ${JSON.stringify(hint)} (body form)`);
    }
    for (const hint of [5, [1], ['byScore'], true]) assertError(await sdkFind({ hint }), 400, 102, `hint ${JSON.stringify(hint)}`);
    assertError(await app.get(`/1/classes/${cls}`, { query: { hint: '{"score":' } }), 400, 107, 'hint of broken JSON');
    const missing = await app.get(`/1/classes/${unique('Missing')}`, { query: { hint: 'byScore' } });
    assertError(missing, 400, 102, 'a class that does not exist');
  });

  it('hint applies on /1/users, /1/roles, /1/installations and /1/sessions too', async () => {
    const endpoints: [string, RequestOptions][] = [
      ['/1/users', MASTER],
      ['/1/roles', {}],
      ['/1/installations', MASTER],
      ['/1/sessions', as(user.sessionToken)],
    ];
    for (const [path, options] of endpoints) {
      const plain = await app.get(path, { ...options, query: { order: 'objectId' } });
      assert.equal(plain.status, 200, `${path}: ${plain.text}`);
      const hinted = await app.get(path, { ...options, query: { order: 'objectId', hint: '_id_' } });
      assert.deepEqual([hinted.status, hinted.body], [200, plain.body], path);
      const unknown = await app.get(path, { ...options, query: { hint: 'nope' } });
      assertError(unknown, 400, 102, path);
    }
  });

  it('on SQLite the statement reads the hinted index (INDEXED BY, NOT INDEXED for _id_); on PostgreSQL the plan is the one without a hint', async () => {
    const query = { where: { name: 'n2' }, explain: true };
    const [plain] = plansOf(await find(query, MASTER), target.backend);
    const [byScore] = plansOf(await find({ ...query, hint: 'byScore' }, MASTER), target.backend);
    const [primary] = plansOf(await find({ ...query, hint: '_id_' }, MASTER), target.backend);
    const [text] = plansOf(await find({ ...query, hint: 'words' }, MASTER), target.backend);
    // The same text from the same caller, kept between requests (rest/query-plans.ts): a hint is
    // part of what the kept statements are found by, so none of them answers for another.
    const [again] = plansOf(await find(query, MASTER), target.backend);
    assert.deepEqual(again, plain);
    if (target.backend === 'sqlite') {
      assert.ok(details(plain).some((detail) => detail.includes(`USING INDEX ${cls}_idx:byName`)), JSON.stringify(plain));
      assert.ok(details(byScore).some((detail) => detail.includes(`USING INDEX ${cls}_idx:byScore`)), JSON.stringify(byScore));
      assert.ok(details(primary).includes(`SCAN ${cls}`), JSON.stringify(primary));
      assert.ok(!details(primary).some((detail) => detail.includes('INDEX')), JSON.stringify(primary));
      // A text index serves $text alone: its name steers nothing.
      assert.deepEqual(text, plain);
    } else {
      for (const hinted of [byScore, primary, text]) assert.deepEqual(hinted, plain);
    }
  });

  it('explain needs the master key: 403/119 for any other caller, on every query endpoint; a value other than a boolean 400/102', async () => {
    for (const [path, options] of [
      [`/1/classes/${cls}`, {}],
      [`/1/classes/${cls}`, as(user.sessionToken)],
      ['/1/users', as(user.sessionToken)],
      ['/1/roles', {}],
      ['/1/installations', {}],
      ['/1/sessions', as(user.sessionToken)],
    ] as [string, RequestOptions][]) {
      assertError(await app.get(path, { ...options, query: { explain: 'true' } }), 403, 119, path);
    }
    // The JS SDK's form: a POST whose body holds the keys, `_method` and `explain: true`.
    const sdk = await app.post(`/1/classes/${cls}`, { _ApplicationId: app.app.applicationId, _JavaScriptKey: app.app.javascriptKey, _method: 'GET', explain: true }, { key: 'none' });
    assertError(sdk, 403, 119, 'body form');
    for (const explain of ['yes', 'queryPlanner', 2]) assertError(await find({ explain }, MASTER), 400, 102, `explain=${explain}`);
    const off = await find({ explain: false, where: { name: 'n1' } }, MASTER);
    assert.deepEqual([off.status, off.body.results.map((object: Json) => object.name)], [200, ['n1']]);
  });

  it('explain answers the plan of the statement the query runs, its count included, instead of results', async () => {
    const page = plansOf(await find({ where: { score: { $gte: 4 } }, order: '-score', explain: true }, MASTER), target.backend);
    assert.equal(page.length, 1);
    const counted = plansOf(await find({ where: { score: { $gte: 4 } }, order: '-score', count: 1, explain: 'true' }, MASTER), target.backend);
    assert.equal(counted.length, 1);
    const countOnly = plansOf(await find({ where: { score: { $gte: 4 } }, limit: 0, count: 1, explain: true }, MASTER), target.backend);
    assert.equal(countOnly.length, 1);
    const sdk = plansOf(await app.post(`/1/classes/${cls}`, { _method: 'GET', where: { score: { $gte: 4 } }, order: '-score', explain: true }, MASTER), target.backend);
    assert.deepEqual(sdk, page);
    if (target.backend === 'sqlite') {
      assert.ok(details(page[0]).some((detail) => detail.includes(`USING INDEX ${cls}_idx:byScore`)), JSON.stringify(page));
      // The page and its count are one statement: the count is its scalar subquery.
      assert.ok(details(counted[0]).some((detail) => detail.startsWith('SCALAR SUBQUERY')), JSON.stringify(counted));
      assert.ok(!details(countOnly[0]).some((detail) => detail.startsWith('SCALAR SUBQUERY')), JSON.stringify(countOnly));
    } else {
      const relations = (plan: unknown) => pgNodes(plan as Json[]).map((node) => node['Relation Name']).filter(Boolean);
      assert.deepEqual(relations(page[0]), [cls]);
      // The field is read from the column its index keeps (sql-schema-store.ts), as the real statement reads it.
      assert.ok(JSON.stringify(page[0]).includes('f.score'), JSON.stringify(page[0]));
      assert.deepEqual(relations(counted[0]), [cls, cls]);
      assert.ok(pgNodes(counted[0] as Json[]).some((node) => node['Parent Relationship'] === 'InitPlan'), JSON.stringify(counted[0]));
      assert.equal((countOnly[0] as Json[])[0]!.Plan['Node Type'], 'Aggregate');
    }
    const missing = await app.get(`/1/classes/${unique('Missing')}`, { ...MASTER, query: { explain: 'true' } });
    assert.deepEqual([missing.status, missing.body], [200, { results: [] }]);
  });

  it('on PostgreSQL explain shows a page of one indexed range by the plan made once for any values, and a count by the plan made for its values', async () => {
    if (target.backend !== 'postgres') return;
    // Five rows: the plans may read the table or the index; the bound is in one or the other.
    const conditions = (plan: unknown) => pgNodes(plan as Json[]).flatMap((node) => [node['Index Cond'], node.Filter]).filter(Boolean) as string[];
    // The page runs on a generic plan (src/sql/postgres/driver.ts): its bound is a parameter.
    const [page] = plansOf(await find({ where: { score: { $gte: 4, $lt: 7 } }, order: 'score', explain: true }, MASTER), target.backend);
    assert.deepEqual(conditions(page), ['(("f.score" >= $1) AND ("f.score" < $2))'], JSON.stringify(page));
    // A count is planned for its values: they are in its plan.
    const [count] = plansOf(await find({ where: { score: { $gte: 4, $lt: 7 } }, limit: 0, count: 1, explain: true }, MASTER), target.backend);
    assert.ok(conditions(count).some((condition) => condition.includes("'4'::double precision")), JSON.stringify(count));
    // A text with a quote and a backslash passes as a literal of its parameter.
    const bound = "n2'\\x";
    const [named] = plansOf(await find({ where: { name: { $gte: bound } }, order: 'name', explain: true }, MASTER), target.backend);
    assert.ok(conditions(named).some((condition) => condition.includes('$1')), JSON.stringify(named));
    const listed = await find({ where: { name: { $gte: bound } }, order: 'name', keys: 'name' }, MASTER);
    assert.deepEqual(listed.body.results.map((object: Json) => object.name), ['n3', 'n4', 'n5']);
  });

  it('explain answers on /1/users, /1/roles, /1/installations and /1/sessions for the master key', async () => {
    for (const path of ['/1/users', '/1/roles', '/1/installations', '/1/sessions']) {
      const plans = plansOf(await app.get(path, { ...MASTER, query: { explain: 'true', count: 1 } }), target.backend);
      assert.equal(plans.length, 1, path);
    }
  });

  it('explain reads nothing: no count query is taken from the budget and no scan is noted', async () => {
    const limited = await newApp(target, { rateLimits: { countQueriesPerMinute: 0, scanWarningRows: 0 } });
    const className = unique('Quiet');
    assert.equal((await limited.post(`/1/classes/${className}`, { n: 1 })).status, 201);
    const query = { where: { n: 1 }, count: 1 };
    plansOf(await limited.get(`/1/classes/${className}`, { ...MASTER, query: { ...query, explain: 'true' } }), target.backend);
    let noted = await limited.get('/1/scans', MASTER);
    assert.deepEqual([noted.status, noted.body], [200, { results: [] }]);
    // The same query, run: the budget of no count queries refuses it, and the scan is noted.
    assertError(await limited.get(`/1/classes/${className}`, { ...MASTER, query }), 429, 155, 'count');
    const found = await limited.get(`/1/classes/${className}`, { ...MASTER, query: { where: { n: 1 } } });
    assert.deepEqual([found.status, found.body.results.length], [200, 1]);
    noted = await limited.get('/1/scans', MASTER);
    assert.deepEqual(noted.body.results.map((scan: Json) => [scan.className, scan.count]), [[className, 1]]);
  });
});
