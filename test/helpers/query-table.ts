import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newApp, type AppClient, type Response } from './client.ts';
import { eachBackend } from './each-backend.ts';
import { targets, type Target } from './targets.ts';
import { seedQueryData, type Seed } from './query-data.ts';

export type { Seed } from './query-data.ts';

/** A value of a case that needs the seeded objects (their ids, pointers, creation times). */
type Seeded<T> = T | ((seed: Seed) => T);

/**
 * One row of a query table: a request on the seeded data (test/helpers/query-data.ts) and what it
 * must answer. Results are named by their `name` field. Without `order`, and unless `ordered`
 * says the query orders by itself (objectId order, `$nearSphere`), names are compared as a set.
 */
export interface QueryCase {
  readonly title: string;
  /** The class queried: the seeded items (default), the persons they point to, or the bulk class. */
  readonly on?: 'item' | 'person' | 'bulk';
  readonly where?: Seeded<Record<string, unknown>>;
  /** A raw `where` parameter, sent as is (for malformed JSON). */
  readonly rawWhere?: string;
  readonly order?: string;
  readonly limit?: number | string;
  readonly skip?: number;
  readonly count?: boolean;
  /** Results must come in exactly this order (always so when `order` is given). */
  readonly ordered?: boolean;
  readonly expect?: Seeded<readonly string[]>;
  /** Only the number of results is checked (large result sets). */
  readonly expectLength?: number;
  readonly expectCount?: number;
  readonly error?: { readonly status: number; readonly code: number };
}

/** What a query answered: its status and error code, or the names of its results (and count). */
interface Answer {
  readonly status: number;
  readonly code?: number;
  readonly names?: readonly string[];
  readonly count?: number;
}

async function ask(seed: Seed, c: QueryCase): Promise<Answer> {
  const query: Record<string, string | number | object> = {};
  const where = typeof c.where === 'function' ? (c.where as (seed: Seed) => unknown)(seed) : c.where;
  if (where !== undefined) query.where = where as object;
  if (c.rawWhere !== undefined) query.where = c.rawWhere;
  if (c.order !== undefined) query.order = c.order;
  if (c.limit !== undefined) query.limit = c.limit;
  if (c.skip !== undefined) query.skip = c.skip;
  if (c.count) query.count = 1;
  const response: Response = await seed.app.get(`/1/classes/${seed.classes[c.on ?? 'item']}`, { query });
  if (response.status !== 200) {
    assert.deepEqual(Object.keys(response.body ?? {}).sort(), ['code', 'error'], response.text);
    return { status: response.status, code: response.body.code };
  }
  const names = (response.body.results as { name?: unknown; objectId?: unknown }[]).map((object) => String(object.name ?? object.objectId));
  const counted = c.count ? { count: response.body.count } : {};
  return { status: 200, names: c.order !== undefined || c.ordered ? names : [...names].sort(), ...counted };
}

function check(seed: Seed, c: QueryCase, answer: Answer): void {
  const context = `${c.title}: ${JSON.stringify(answer).slice(0, 600)}`;
  if (c.error) {
    assert.deepEqual({ status: answer.status, code: answer.code }, c.error, context);
    return;
  }
  assert.equal(answer.status, 200, context);
  if (c.expect !== undefined) {
    const expected = typeof c.expect === 'function' ? c.expect(seed) : c.expect;
    assert.deepEqual(answer.names, c.order !== undefined || c.ordered ? expected : [...expected].sort(), context);
  }
  if (c.expectLength !== undefined) assert.equal(answer.names!.length, c.expectLength, context);
  if (c.expectCount !== undefined) assert.equal(answer.count, c.expectCount, context);
}

/**
 * An answer in the form both backends must agree on. Where the expected names depend on objectIds
 * (ties, objectId order, which 100 of the bulk class come back) the two apps' ids differ, so
 * what must agree is whether each answer is its own seed's expected one, or its length.
 */
async function comparable(seed: Seed, c: QueryCase): Promise<unknown> {
  const { names, ...answer } = await ask(seed, c);
  if (names === undefined) return answer;
  if (typeof c.expect === 'function') {
    const expected = c.expect(seed);
    return { ...answer, asExpectedOnThisApp: JSON.stringify(c.order !== undefined || c.ordered ? expected : [...expected].sort()) === JSON.stringify(names) };
  }
  if (c.expect === undefined) return { ...answer, length: names.length };
  return { ...answer, names };
}

/** Seeds one app per target, once per test file, however many cases use it. */
function seeder(options: { bulk?: boolean }): (target: Target) => Promise<Seed> {
  const seeds = new Map<string, Promise<Seed>>();
  return (target) => {
    let seed = seeds.get(target.url);
    if (!seed) {
      seed = newApp(target).then((app: AppClient) => seedQueryData(app, options));
      seeds.set(target.url, seed);
    }
    return seed;
  };
}

/**
 * Registers a query table: every case once per backend, checked against its expectation, and one
 * test that asks every case of both backends and requires the same answers from each.
 */
export function queryTable(title: string, cases: readonly QueryCase[], options: { bulk?: boolean } = {}): void {
  const titles = new Set<string>();
  for (const c of cases) {
    assert.ok(!titles.has(c.title), `duplicate case title ${c.title}`);
    titles.add(c.title);
  }
  const seedOn = seeder(options);
  eachBackend(title, (target) => {
    for (const c of cases) {
      it(c.title, async () => {
        const seed = await seedOn(target);
        check(seed, c, await ask(seed, c));
      });
    }
  });
  describe(`${title} [sqlite = postgres]`, () => {
    it('gives the same answer to every case on both backends', async () => {
      const [first, second] = targets();
      assert.ok(first && second, 'two backends to compare');
      const [a, b] = await Promise.all([seedOn(first), seedOn(second)]);
      const differing: string[] = [];
      for (const c of cases) {
        const [left, right] = await Promise.all([comparable(a, c), comparable(b, c)]);
        try {
          assert.deepEqual(left, right);
        } catch {
          differing.push(`${c.title}\n  ${first.backend}: ${JSON.stringify(left).slice(0, 300)}\n  ${second.backend}: ${JSON.stringify(right).slice(0, 300)}`);
        }
      }
      assert.deepEqual(differing, [], `answers differ:\n${differing.join('\n')}`);
    });
  });
}
