import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectIndexScanned } from '../helpers/index-scans.ts';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import { openTextIndexDb, type TextIndexDb } from '../helpers/text-index-db.ts';
import { targets, type Target } from '../helpers/targets.ts';

/**
 * `$text` through a text index: the index only finds candidates and the word test decides, so
 * every search answers exactly what it answers without the index, on both backends; and the
 * index is what the databases use.
 */

const MASTER = { key: 'master' } as const;
const LONG = 'x'.repeat(300);

/** Texts where case, splitting and length are easy to get wrong; `n` orders them. */
const TEXTS: Record<string, string | null> = {
  fox: 'The quick brown fox jumps over the lazy dog',
  dogs: 'Foxes are QUICK; dogs are lazy.',
  accents: 'ÉCOLE café naïve',
  bare: 'ecole cafe naive',
  combining: 'e\u0301cole',
  mail: 'state-of-the-art foo_bar 3.14 bob@example.com',
  greek: 'ΟΔΟΣ σας',
  turkish: 'İstanbul',
  german: 'Straße STRASSE',
  kelvin: 'a\u212ab 20\u212a',
  titlecase: 'ǅemal',
  emoji: 'emoji😀word 👍 ok',
  cjk: '東京タワー 東京',
  cyrillic: 'Съешь же ЕЩЁ этих',
  digits: '2024-01-05 v1.2.3 ＡＢＣ１２３',
  long: `${LONG}a`,
  spaces: 'nbsp\u00a0here tab\tand\nnewline zero\u200bwidth',
  quoted: 'say "NEAR" AND OR',
  empty: '',
  dots: '...',
  nothing: null,
};

const search = (term: string) => ({ body: { $text: { $search: { $term: term } } } });

/** Search terms, with the answer where it is worth spelling out (every answer is compared anyway). */
const TERMS: [string, string[]?][] = [
  ['quick', ['dogs', 'fox']], ['QUICK fox', ['fox']], ['foxes', ['dogs']], ['lazy dog', ['fox']], ['the', ['fox', 'mail']],
  ['école', ['accents']], ['ÉCOLE', ['accents']], ['ECOLE', ['bare']], ['ecole', ['bare']], ['CAFÉ', ['accents']], ['cafe', ['bare']], ['NAÏVE', ['accents']], ['e\u0301cole', ['combining']],
  ['foo', ['mail']], ['foo_bar', ['mail']], ['state-of-the-art', ['mail']], ['bob@example.com', ['mail']], ['example', ['mail']], ['3.14', ['mail']], ['14', ['mail']], ['3 14 bob', ['mail']],
  ['ΟΔΟΣ', ['greek']], ['οδος', []], ['σας', ['greek']], ['ΣΑΣ', []],
  ['İSTANBUL', ['turkish']], ['i\u0307stanbul', ['turkish']], ['istanbul', []],
  ['straße', ['german']], ['STRAßE', ['german']], ['strasse', ['german']],
  ['akb', ['kelvin']], ['AKB 20K', ['kelvin']], ['20', []], ['a', []], ['ǆemal', ['titlecase']], ['ǄEMAL', ['titlecase']],
  ['emoji word', ['emoji']], ['👍 OK', ['emoji']], ['😀', []],
  ['東京', ['cjk']], ['東京タワー', ['cjk']], ['タワー', []],
  ['съешь ещё', ['cyrillic']], ['ЕЩЕ', []],
  ['2024 05', ['digits']], ['v1', ['digits']], ['ａｂｃ１２３', ['digits']], ['abc123', []],
  [`${LONG}a`, ['long']], [`${LONG}b`, []], [LONG, []],
  ['nbsp here', ['spaces']], ['zero\u200bwidth', ['spaces']], ['newline TAB', ['spaces']],
  ['NEAR', ['quoted']], ['"near" and or', ['quoted']], ['say*', ['quoted']],
  ['...', []], ['absent', []],
];

interface Seed {
  readonly app: AppClient;
  /** The same objects in three classes: no text index, one made before the writes, one made after. */
  readonly classes: { readonly plain: string; readonly before: string; readonly after: string };
  readonly ids: Readonly<Record<string, string>>;
}

async function seed(target: Target): Promise<Seed> {
  const app = await newApp(target);
  const classes = { plain: unique('Plain'), before: unique('Before'), after: unique('After') };
  const fields = { name: { type: 'String' }, body: { type: 'String' }, n: { type: 'Number' } };
  for (const [role, className] of Object.entries(classes)) {
    const indexes = role === 'before' ? { byBody: { body: 'text' } } : {};
    assert.equal((await app.post(`/1/schemas/${className}`, { fields, indexes }, MASTER)).status, 201);
  }
  const ids: Record<string, string> = {};
  const objects = [...Object.entries(TEXTS).map(([name, body], n) => ({ name, n, ...(body === null ? {} : { body }) })), { name: 'missing', n: 99 }];
  for (const className of Object.values(classes)) {
    const response = await app.post('/1/batch', { requests: objects.map((body) => ({ method: 'POST', path: `/1/classes/${className}`, body })) });
    assert.equal(response.status, 200, response.text);
    (response.body as { success: { objectId: string } }[]).forEach((entry, i) => {
      if (className === classes.after) ids[objects[i]!.name] = entry.success.objectId;
    });
  }
  const indexed = await app.put(`/1/schemas/${classes.after}`, { indexes: { byBody: { body: 'text' } } }, MASTER);
  assert.equal(indexed.status, 200, indexed.text);
  return { app, classes, ids };
}

const seeds = new Map<string, Promise<Seed>>();
const seedOn = (target: Target) => {
  if (!seeds.has(target.url)) seeds.set(target.url, seed(target));
  return seeds.get(target.url)!;
};

/** The cases: every term alone, then `$text` among other constraints. */
const CASES: [string, Record<string, unknown>, Record<string, string | number>?][] = [
  ...TERMS.map(([term]): [string, Record<string, unknown>] => [`$text ${JSON.stringify(term).slice(0, 40)}`, search(term)]),
  ['beside another constraint', { ...search('quick'), n: { $gt: 0 } }],
  ['in $or', { $or: [search('fox'), search('cafe')] }],
  ['two words of $or, one of them indexed twice', { $or: [search('quick'), { $and: [search('lazy'), search('dog')] }] }],
  ['negated by $nor', { $nor: [search('quick')] }],
  ['$nor of a term without words', { $nor: [search('...')] }],
  ['counted', search('lazy'), { count: 1, limit: 0 }],
  ['sorted and paged', search('the'), { order: '-n', limit: 1, skip: 1 }],
];

async function answer(seed: Seed, className: string, where: Record<string, unknown>, options: Record<string, string | number> = {}): Promise<unknown> {
  const response = await seed.app.get(`/1/classes/${className}`, { query: { where, ...options } });
  assert.equal(response.status, 200, response.text);
  const names = (response.body.results as { name: string }[]).map((object) => object.name);
  return { names: options.order ? names : names.sort(), ...(options.count ? { count: response.body.count } : {}) };
}

eachBackend('$text with a text index', (target) => {
  it('answers every search exactly as without the index, whether the index came before the objects or after', async () => {
    const s = await seedOn(target);
    const differing: string[] = [];
    for (const [label, where, options] of CASES) {
      const [plain, before_, after_] = await Promise.all(Object.values(s.classes).map((className) => answer(s, className, where, options)));
      if (JSON.stringify(before_) !== JSON.stringify(plain) || JSON.stringify(after_) !== JSON.stringify(plain)) {
        differing.push(`${label}: without ${JSON.stringify(plain)}, made before ${JSON.stringify(before_)}, made after ${JSON.stringify(after_)}`);
      }
    }
    assert.deepEqual(differing, []);
  });

  it('finds what the word rules say', async () => {
    const s = await seedOn(target);
    for (const [term, expected] of TERMS) {
      if (!expected) continue;
      assert.deepEqual(await answer(s, s.classes.after, search(term)), { names: [...expected].sort() }, JSON.stringify(term).slice(0, 40));
    }
  });

  it('serves an inner query on an indexed class', async () => {
    const s = await seedOn(target);
    const refs = unique('Ref');
    for (const name of ['fox', 'dogs', 'bare']) {
      const to = { __type: 'Pointer', className: s.classes.after, objectId: s.ids[name] };
      assert.equal((await s.app.post(`/1/classes/${refs}`, { name: `to-${name}`, to })).status, 201);
    }
    const where = { to: { $inQuery: { className: s.classes.after, where: search('QUICK') } } };
    assert.deepEqual(await answer(s, refs, where), { names: ['to-dogs', 'to-fox'] });
  });
});

describe('$text with a text index [sqlite = postgres]', () => {
  it('gives the same answer to every search on both backends', async () => {
    const [first, second] = targets();
    assert.ok(first && second, 'two backends to compare');
    const [a, b] = await Promise.all([seedOn(first), seedOn(second)]);
    const differing: string[] = [];
    for (const [label, where, options] of CASES) {
      const [left, right] = await Promise.all([answer(a, a.classes.after, where, options), answer(b, b.classes.after, where, options)]);
      if (JSON.stringify(left) !== JSON.stringify(right)) differing.push(`${label}: ${first.backend} ${JSON.stringify(left)}, ${second.backend} ${JSON.stringify(right)}`);
    }
    assert.deepEqual(differing, []);
  });
});

eachBackend('text indexes in the database', (target) => {
  let db: TextIndexDb;
  let s: Seed;

  before(async () => {
    s = await seedOn(target);
    db = await openTextIndexDb(target, s.classes.after);
  });

  after(async () => {
    await db?.close();
  });

  it('the lookup the compiler writes for $text is answered by the text index', async () => {
    for (const className of [s.classes.before, s.classes.after]) {
      const plan = await db.plan(className, 'byBody', 'body', 'quick');
      if (target.backend === 'sqlite') {
        assert.match(plan, new RegExp(`SCAN ${className}_idx:byBody:words VIRTUAL TABLE INDEX \\d+:M`), plan);
        assert.match(plan, new RegExp(`SEARCH ${className} USING (COVERING )?INDEX sqlite_autoindex_${className}_1 \\(objectId=\\?\\)`), plan);
      } else {
        assert.match(plan, new RegExp(`Bitmap Index Scan on "${className}_idx:byBody"`), plan);
      }
    }
  });

  if (target.backend === 'sqlite') {
    it('the server reads the FTS5 table: an object taken out of it is no longer found', async () => {
      const className = unique('Forgotten');
      assert.equal((await s.app.post(`/1/schemas/${className}`, { fields: { body: { type: 'String' } }, indexes: { byBody: { body: 'text' } } }, MASTER)).status, 201);
      const created = await s.app.post(`/1/classes/${className}`, { name: 'kept', body: 'needle in a haystack' });
      assert.equal(created.status, 201);
      assert.deepEqual(await answer(s, className, search('needle')), { names: ['kept'] });
      await db.forget(className, 'byBody', created.body.objectId);
      assert.deepEqual(await answer(s, className, search('needle')), { names: [] });
      // Not an index the server trusts blindly: a $regex still reads the text itself.
      assert.deepEqual(await answer(s, className, { body: { $regex: 'needle' } }), { names: ['kept'] });
    });
  }
});

/**
 * PostgreSQL counts every scan of an index, so there the statement the server itself sends can be
 * checked, not only a plan for text written to match it.
 */
describe('$text on PostgreSQL', () => {
  it('the statement the server runs scans the GIN index', async () => {
    const target = targets().find((candidate) => candidate.backend === 'postgres');
    assert.ok(target, 'a PostgreSQL server under test');
    const app = await newApp(target);
    const cls = unique('Many');
    const created = await app.post(`/1/schemas/${cls}`, { fields: { body: { type: 'String' } }, indexes: { byBody: { body: 'text' } } }, MASTER);
    assert.equal(created.status, 201, created.text);
    for (let start = 0; start < 1000; start += 50) {
      const requests = Array.from({ length: 50 }, (_, i) => ({ method: 'POST', path: `/1/classes/${cls}`, body: { body: `common words w${start + i} more` } }));
      assert.equal((await app.post('/1/batch', { requests })).status, 200);
    }
    await expectIndexScanned(app, cls, `${cls}_idx:byBody`, async () => {
      const response = await app.get(`/1/classes/${cls}`, { query: { where: search('W123 common') } });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body.results.map((object: { body: string }) => object.body), ['common words w123 more']);
    });
  });
});

eachBackend('text indexes and the scan log', (target) => {
  it('an unindexed $text is counted under the text index that would serve it, and no longer once it exists', async () => {
    const app = await newApp(target, { rateLimits: { scanWarningRows: 3 } });
    const cls = unique('Scanned');
    assert.equal((await app.post(`/1/schemas/${cls}`, { fields: { body: { type: 'String' }, tags: { type: 'Array' } } }, MASTER)).status, 201);
    const requests = ['one', 'two', 'three', 'four', 'five'].map((body) => ({ method: 'POST', path: `/1/classes/${cls}`, body: { body } }));
    assert.equal((await app.post('/1/batch', { requests })).status, 200);
    const counts = async () => {
      const response = await app.get('/1/scans', MASTER);
      assert.equal(response.status, 200, response.text);
      return Object.fromEntries((response.body.results as { index: unknown; count: number }[]).map((scan) => [JSON.stringify(scan.index), scan.count]));
    };
    const query = async (where: Record<string, unknown>) => assert.equal((await app.get(`/1/classes/${cls}`, { query: { where } })).status, 200);

    await query(search('two'));
    await query({ body: 'two' });
    await query({ 'tags.x': { $text: { $search: { $term: 'two' } } } });
    assert.deepEqual(await counts(), { '{"body":"text"}': 1, '{"body":1}': 1, null: 1 });

    assert.equal((await app.put(`/1/schemas/${cls}`, { indexes: { byBody: { body: 'text' } } }, MASTER)).status, 200);
    await query(search('two'));
    await query({ $or: [search('two'), search('three')] });
    // A text index answers $text only: an equality on the field still scans.
    await query({ body: 'two' });
    assert.deepEqual(await counts(), { '{"body":"text"}': 1, '{"body":1}': 2, null: 1 });
  });
});
