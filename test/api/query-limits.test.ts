import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { AppClient, http, newApp, unique, type Response } from '../helpers/client.ts';
import type { Started } from '../helpers/process.ts';
import { SHARED_APP, withTwoProcesses } from '../helpers/shared-database.ts';
import { targets } from '../helpers/targets.ts';
import pg from 'pg';

/**
 * Spec 8 and decisions.md "Limits": count queries per minute per app, and regular-expression
 * queries running at once per app, both over the limit answering 429 with code 155. The limits
 * come from the app setting `rateLimits`.
 */

function assertLimited(response: Response, label: string): void {
  assert.equal(response.status, 429, `${label}: status (body ${response.text})`);
  assert.deepEqual(Object.keys(response.body ?? {}).sort(), ['code', 'error'], `${label}: body ${response.text}`);
  assert.equal(response.body.code, 155, label);
  assert.equal(typeof response.body.error, 'string');
}

function names(response: Response): string[] {
  assert.equal(response.status, 200, response.text);
  return response.body.results.map((object: { name: string }) => object.name).sort();
}

async function seed(app: AppClient, className: string, objects: Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < objects.length; i += 50) {
    const requests = objects.slice(i, i + 50).map((body) => ({ method: 'POST', path: `/1/classes/${className}`, body }));
    const response = await app.post('/1/batch', { requests });
    assert.equal(response.status, 200, response.text);
    for (const entry of response.body) assert.ok(entry.success, JSON.stringify(entry));
  }
}

const minute = () => Math.floor(Date.now() / 60_000);

eachBackend('count query rate', (target) => {
  it('with countQueriesPerMinute 3, the fourth count query in a minute answers 429/155 while other queries still work', async () => {
    // The budget is per calendar minute on the server's clock (the machine's, as here). A run
    // that straddles a minute boundary proves nothing, so it is repeated with a fresh app.
    for (let attempt = 1; attempt <= 3; attempt++) {
      const app = await newApp(target, { rateLimits: { countQueriesPerMinute: 3 } });
      const cls = unique('Counted');
      await seed(app, cls, [{ name: 'a' }, { name: 'b' }]);
      const started = minute();
      const answers: Response[] = [];
      for (let i = 0; i < 3; i++) answers.push(await app.get(`/1/classes/${cls}`, { query: { count: 1, limit: 0 } }));
      const fourth = await app.get(`/1/classes/${cls}`, { query: { count: 1, limit: 0 } });
      // A count with results counts too.
      const withResults = await app.get(`/1/classes/${cls}`, { query: { count: 1, limit: 1 } });
      const plain = await app.get(`/1/classes/${cls}`, { query: { where: { name: 'a' } } });
      if (minute() !== started) continue;

      for (const [i, answer] of answers.entries()) {
        assert.equal(answer.status, 200, `count query ${i + 1}: ${answer.text}`);
        assert.deepEqual(answer.body, { results: [], count: 2 });
      }
      assertLimited(fourth, 'fourth count query');
      assertLimited(withResults, 'count query with limit 1');
      assert.deepEqual(names(plain), ['a']);
      // The budget is the app's: another app still counts.
      const other = await newApp(target);
      const otherClass = unique('Counted');
      await seed(other, otherClass, [{ name: 'x' }]);
      const counted = await other.get(`/1/classes/${otherClass}`, { query: { count: 1, limit: 0 } });
      assert.equal(counted.status, 200, counted.text);
      assert.deepEqual(counted.body, { results: [], count: 1 });
      return;
    }
    assert.fail('every attempt straddled a minute boundary');
  });

  it('count queries sent at once: exactly the budget is answered, the rest 429/155', async () => {
    for (let attempt = 1; attempt <= 3; attempt++) {
      const app = await newApp(target, { rateLimits: { countQueriesPerMinute: 5 } });
      const cls = unique('Counted');
      await seed(app, cls, [{ name: 'a' }]);
      const started = minute();
      const answers = await Promise.all(Array.from({ length: 12 }, () => app.get(`/1/classes/${cls}`, { query: { count: 1, limit: 0 } })));
      if (minute() !== started) continue;
      const answered = answers.filter((answer) => answer.status === 200);
      for (const answer of answered) assert.deepEqual(answer.body, { results: [], count: 1 });
      for (const answer of answers.filter((answer) => answer.status !== 200)) assertLimited(answer, 'over the budget');
      assert.equal(answered.length, 5);
      return;
    }
    assert.fail('every attempt straddled a minute boundary');
  });

  it('countQueriesPerMinute 0 refuses every count query and no other', async () => {
    const app = await newApp(target, { rateLimits: { countQueriesPerMinute: 0 } });
    const cls = unique('Counted');
    await seed(app, cls, [{ name: 'a' }]);
    assertLimited(await app.get(`/1/classes/${cls}`, { query: { count: 1 } }), 'count=1');
    assertLimited(await app.get(`/1/classes/${cls}`, { query: { count: 'true', limit: 0 } }), 'count=true');
    assert.deepEqual(names(await app.get(`/1/classes/${cls}`, { query: { count: 0 } })), ['a']);
  });
});

/**
 * Only PostgreSQL is shared by several processes. Each process reserves count queries from the
 * app's row in batches; whatever each process holds, together they answer no more than the budget.
 */
describe('count query rate: two processes on one PostgreSQL', () => {
  const ADMIN_ACCOUNT = { email: 'limits@test.local', password: 'limits-admin-password' };

  it('count queries sent in turn to both processes: together they answer exactly the budget', async () => {
    // A budget of 40 lets each process reserve two at a time.
    const setBudget = async (first: Started) => {
      const limited = await http(`${first.url}/1/apps/${SHARED_APP.applicationId}`, 'PUT', {
        body: { rateLimits: { countQueriesPerMinute: 40 } },
        headers: { 'X-Svc-Email': ADMIN_ACCOUNT.email, 'X-Svc-Password': ADMIN_ACCOUNT.password },
      });
      assert.equal(limited.status, 200, limited.text);
    };
    const env = { BASALT_ADMIN_EMAIL: ADMIN_ACCOUNT.email, BASALT_ADMIN_PASSWORD: ADMIN_ACCOUNT.password };
    await withTwoProcesses(async (a, b) => {
      const cls = unique('Counted');
      await seed(a, cls, [{ name: 'a' }, { name: 'b' }]);
      for (let attempt = 1; attempt <= 3; attempt++) {
        const started = minute();
        const answers: { process: string; response: Response }[] = [];
        for (let i = 0; i < 60; i++) {
          const [name, client] = i % 2 === 0 ? ['A', a] as const : ['B', b] as const;
          answers.push({ process: name, response: await client.get(`/1/classes/${cls}`, { query: { count: 1, limit: 0 } }) });
        }
        if (minute() !== started) continue;
        const answered = answers.filter(({ response }) => response.status === 200);
        for (const { response } of answered) assert.deepEqual(response.body, { results: [], count: 2 });
        for (const { response } of answers.filter(({ response }) => response.status !== 200)) assertLimited(response, 'over the budget');
        assert.equal(answered.length, 40, 'the two processes answered the budget together');
        for (const name of ['A', 'B']) assert.ok(answered.some((answer) => answer.process === name), `process ${name} answered some`);
        return;
    }
    assert.fail('every attempt straddled a minute boundary');
    }, { env, beforeSecond: setBudget });
  });
});

eachBackend('regex concurrency', (target) => {
  describe('with regexConcurrency 0 (no slot ever frees)', () => {
    let app: AppClient;
    const cls = unique('Named');
    const ref = unique('Ref');
    before(async () => {
      app = await newApp(target, { rateLimits: { regexConcurrency: 0, regexWaitMs: 100 } });
      await seed(app, cls, ['abc', 'abcd', 'xabc', 'ABC', 'ab', 'abd', 'a.c'].map((name) => ({ name })));
      await seed(app, ref, [{ name: 'r1', to: { __type: 'Pointer', className: cls, objectId: 'none' } }]);
    });

    it('an anchored case-sensitive prefix is answered by an index range and is not throttled', async () => {
      const cases: [Record<string, unknown>, string[]][] = [
        [{ $regex: '^abc' }, ['abc', 'abcd']],
        [{ $regex: '^ab' }, ['ab', 'abc', 'abcd', 'abd']],
        // The SDKs' startsWith quotes the prefix.
        [{ $regex: '^\\Qa.c\\E' }, ['a.c']],
        [{ $regex: '^a\\.c' }, ['a.c']],
        [{ $regex: '^abc', $options: '' }, ['abc', 'abcd']],
      ];
      for (const [constraint, expected] of cases) {
        assert.deepEqual(names(await app.get(`/1/classes/${cls}`, { query: { where: { name: constraint } } })), expected, JSON.stringify(constraint));
      }
      const counted = await app.get(`/1/classes/${cls}`, { query: { where: { name: { $regex: '^abc' } }, count: 1, limit: 0 } });
      assert.deepEqual(counted.body, { results: [], count: 2 });
    });

    it('every other regex waits for a slot, then answers 429/155', async () => {
      const wheres: Record<string, unknown>[] = [
        { name: { $regex: 'bc' } },
        { name: { $regex: 'bc$' } },
        { name: { $regex: '^abc', $options: 'i' } },
        { name: { $regex: '^ab.d' } },
        { name: { $regex: '^abc', $options: 'm' } },
        { $or: [{ name: 'ab' }, { name: { $regex: 'x' } }] },
        { name: { $ne: 'x' }, $and: [{ name: { $regex: 'a' } }] },
      ];
      for (const where of wheres) {
        assertLimited(await app.get(`/1/classes/${cls}`, { query: { where } }), JSON.stringify(where));
        assertLimited(await app.get(`/1/classes/${cls}`, { query: { where, count: 1, limit: 0 } }), `count ${JSON.stringify(where)}`);
      }
      // A regex in an inner query scans the inner class just the same.
      const inner = { to: { $inQuery: { className: cls, where: { name: { $regex: 'b' } } } } };
      assertLimited(await app.get(`/1/classes/${ref}`, { query: { where: inner } }), '$inQuery with a regex');
      // Queries without a regex are not affected.
      assert.deepEqual(names(await app.get(`/1/classes/${cls}`, { query: { where: { name: { $in: ['ab', 'ABC'] } } } })), ['ABC', 'ab']);
    });
  });

  describe('with regexConcurrency 1', () => {
    const cls = unique('Text');
    /** Long texts, so that each regex query does some work while the others wait. */
    const texts = Array.from({ length: 300 }, (_, i) => ({ name: `n${i}`, text: `${'lorem ipsum '.repeat(150)}${i % 50 === 7 ? 'needle' : 'hay'}` }));
    const matching = texts.filter((object) => object.text.endsWith('needle')).map((object) => object.name).sort();
    const where = { text: { $regex: 'ne+dle$' } };

    it('parallel slow regex queries: each answers 200 with the right results or 429/155, and none holds its slot afterwards', async () => {
      const app = await newApp(target, { rateLimits: { regexConcurrency: 1, regexWaitMs: 1 } });
      await seed(app, cls, texts);
      const answers = await Promise.all(Array.from({ length: 8 }, () => app.get(`/1/classes/${cls}`, { query: { where, keys: 'name' } })));
      let succeeded = 0;
      for (const [i, answer] of answers.entries()) {
        if (answer.status === 200) {
          succeeded += 1;
          assert.deepEqual(names(answer), matching, `query ${i}`);
        } else {
          assertLimited(answer, `query ${i}`);
        }
      }
      assert.ok(succeeded >= 1, 'at least the first query gets the slot');
      // Every slot was given back: one query alone runs at once.
      for (let i = 0; i < 3; i++) assert.deepEqual(names(await app.get(`/1/classes/${cls}`, { query: { where, keys: 'name' } })), matching);
    });

    it('with a long enough wait every parallel query gets its turn', async () => {
      const app = await newApp(target, { rateLimits: { regexConcurrency: 1, regexWaitMs: 60_000 } });
      const own = unique('Text');
      await seed(app, own, texts);
      const answers = await Promise.all(Array.from({ length: 8 }, () => app.get(`/1/classes/${own}`, { query: { where, keys: 'name' } })));
      for (const answer of answers) assert.deepEqual(names(answer), matching);
    });
  });
});

/**
 * On PostgreSQL the regex bound holds for the app across every process on the database: each
 * running regex query holds one of the app's slots there, an advisory lock keyed by
 * (hashtext('regex:<applicationId>'), slot), which this test can hold too, as another process would.
 */
describe('regex concurrency: slots shared on one PostgreSQL', () => {
  const postgres = targets().find((candidate) => candidate.backend === 'postgres');
  const where = { name: { $regex: 'b' } };

  /** An app with these limits and a class to query, and a connection of the test's own to PostgreSQL. */
  async function appBeside(rateLimits: Record<string, number>) {
    assert.ok(postgres, 'a PostgreSQL server under test');
    const app = await newApp(postgres, { rateLimits });
    const cls = unique('Shared');
    await seed(app, cls, [{ name: 'ab' }, { name: 'cd' }]);
    const other = new pg.Client({ connectionString: process.env.TEST_POSTGRES_URL });
    await other.connect();
    return { app, cls, other, key: `regex:${app.app.applicationId}` };
  }

  it('a slot held by another process counts: with one slot, regex queries wait and then answer 429/155 until it is given back', async () => {
    const { app, cls, other, key } = await appBeside({ regexConcurrency: 1, regexWaitMs: 300 });
    const heldByServer = async () => {
      const { rows } = await other.query(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid() AND classid = hashtext($1)::oid`,
        [key],
      );
      return rows[0].n as number;
    };
    try {
      await other.query('SELECT pg_advisory_lock(hashtext($1), 0)', [key]);
      assertLimited(await app.get(`/1/classes/${cls}`, { query: { where } }), 'slot 0 held elsewhere');
      assert.deepEqual(names(await app.get(`/1/classes/${cls}`, { query: { where: { name: 'ab' } } })), ['ab'], 'a query without a regex');
      const waiting = app.get(`/1/classes/${cls}`, { query: { where } });
      await new Promise((resolve) => setTimeout(resolve, 50));
      await other.query('SELECT pg_advisory_unlock(hashtext($1), 0)', [key]);
      assert.deepEqual(names(await waiting), ['ab'], 'the waiting query took the slot once it was given back');
      // The server gives its slot back after each query (the release is not awaited by the answer).
      for (let i = 0; i < 3; i++) assert.deepEqual(names(await app.get(`/1/classes/${cls}`, { query: { where } })), ['ab']);
      let held = await heldByServer();
      for (let attempt = 0; held > 0 && attempt < 50; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        held = await heldByServer();
      }
      assert.equal(held, 0, 'no slot stays held');
    } finally {
      await other.end();
    }
  });

  it('with two slots and one held elsewhere, one query runs at a time, taking the free slot and no other', async () => {
    const { app, cls, other, key } = await appBeside({ regexConcurrency: 2, regexWaitMs: 60_000 });
    try {
      await other.query('SELECT pg_advisory_lock(hashtext($1), 0)', [key]);
      const answers = await Promise.all(Array.from({ length: 6 }, () => app.get(`/1/classes/${cls}`, { query: { where } })));
      for (const answer of answers) assert.deepEqual(names(answer), ['ab']);
      // Slot 0 was never taken from this test's connection.
      const { rows } = await other.query(`SELECT objid::int AS slot FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid() AND classid = hashtext($1)::oid`, [key]);
      assert.deepEqual(rows, [{ slot: 0 }]);
    } finally {
      await other.end();
    }
  });

  it('two processes with one slot between them: parallel regex queries to both each get their turn', async () => {
    const env = { BASALT_ADMIN_EMAIL: 'regex@test.local', BASALT_ADMIN_PASSWORD: 'regex-admin-password' };
    const setLimits = async (first: Started) => {
      const limited = await http(`${first.url}/1/apps/${SHARED_APP.applicationId}`, 'PUT', {
        body: { rateLimits: { regexConcurrency: 1, regexWaitMs: 60_000 } },
        headers: { 'X-Svc-Email': env.BASALT_ADMIN_EMAIL, 'X-Svc-Password': env.BASALT_ADMIN_PASSWORD },
      });
      assert.equal(limited.status, 200, limited.text);
    };
    await withTwoProcesses(async (a, b) => {
      const cls = unique('Shared');
      await seed(a, cls, [{ name: 'ab' }, { name: 'cd' }, { name: 'bb' }]);
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).get(`/1/classes/${cls}`, { query: { where } })));
      for (const answer of answers) assert.deepEqual(names(answer), ['ab', 'bb']);
    }, { env, beforeSecond: setLimits });
  });
});
