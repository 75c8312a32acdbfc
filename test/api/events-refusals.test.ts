import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { http, newApp, sdkBody, unique, type AppClient, type Response } from '../helpers/client.ts';

/**
 * What analytics endpoints refuse: each refusal has its code, and a refused event is not counted
 * at all (checked after each case through the counts the event would have changed).
 */

const date = (iso: string) => ({ __type: 'Date', iso });
const AT = date('2021-03-04T05:06:07.000Z');
const WIDE = { from: '1970-01-01', to: '9999-01-01' };

function assertError(response: Response, status: number, code: number, label: string): void {
  assert.equal(response.status, status, `${label}: expected ${status}/${code}, got ${response.status} ${response.text.slice(0, 300)}`);
  assert.deepEqual(Object.keys(response.body).sort(), ['code', 'error'], label);
  assert.equal(response.body.code, code, `${label}: ${response.text.slice(0, 300)}`);
}

eachBackend('analytics event refusals', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newApp(target);
  });

  const countsOf = (name: string, query: Record<string, string>, key: 'master' | 'rest' | 'client' | 'windows' | 'none' = 'master') =>
    app.get(`/1/events/${encodeURIComponent(name)}/counts`, { key, query });

  /** Nothing of the event name was counted, in total or under any of these dimensions. */
  async function nothingCounted(name: string, dimensions: string[], label: string): Promise<void> {
    for (const dimension of [undefined, ...dimensions]) {
      const response = await countsOf(name, dimension === undefined ? WIDE : { ...WIDE, dimension });
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body, { results: [] }, `${label} (${dimension ?? 'total'})`);
    }
  }

  it('refuses malformed JSON and bodies that are not objects with 107', async () => {
    const name = unique('Broken');
    const headers = { 'Content-Type': 'application/json' };
    for (const raw of ['{"dimensions":', '{dimensions:{}}', '{"at":1}}', '[]', '[{"dimensions":{}}]', '"AppOpened"', '42', 'null', '{"dimensions":{"a":"\\u0000"}}']) {
      assertError(await app.request('POST', `/1/events/${name}`, { raw, headers }), 400, 107, raw);
    }
    await nothingCounted(name, ['a'], 'malformed');
  });

  it('refuses dimensions that are not an object of strings with 102, even past the eighth pair', async () => {
    const name = unique('BadDims');
    const eight = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, 'v']));
    const cases: [string, unknown][] = [
      ['an array', ['a', 'b']],
      ['a string', 'plan=free'],
      ['a number', 3],
      ['null', null],
      ['true', true],
      ['a number value', { plan: 3 }],
      ['a boolean value', { plan: false }],
      ['a null value', { plan: null }],
      ['an object value', { plan: { tier: 'pro' } }],
      ['an array value', { plan: ['pro'] }],
      ['a Date value', { plan: AT }],
      ['an empty key', { '': 'x' }],
      ['a key of 65 characters', { ['k'.repeat(65)]: 'x' }],
      ['a value of 257 characters', { plan: 'v'.repeat(257) }],
      ['a number as the ninth pair', { ...eight, ninth: 9 }],
    ];
    for (const [label, dimensions] of cases) {
      assertError(await app.post(`/1/events/${name}`, { at: AT, dimensions }), 400, 102, label);
    }
    await nothingCounted(name, ['plan', 'k0', 'ninth'], 'bad dimensions');
    // The longest accepted key and value, for contrast.
    const longest = await app.post(`/1/events/${name}`, { at: AT, dimensions: { ['k'.repeat(64)]: 'v'.repeat(256) } });
    assert.equal(longest.status, 200, longest.text);
    const split = await countsOf(name, { ...WIDE, dimension: 'k'.repeat(64) });
    assert.deepEqual(split.body.results, [{ time: '2021-03-04T05:00:00.000Z', value: 'v'.repeat(256), count: 1 }]);
  });

  it('refuses an `at` that is not a valid Date value with 111', async () => {
    const name = unique('BadAt');
    const cases: [string, unknown][] = [
      ['an ISO string', '2021-03-04T05:06:07.000Z'],
      ['a number', 1614834367000],
      ['null', null],
      ['an object without __type', { iso: '2021-03-04T05:06:07.000Z' }],
      ['another __type', { __type: 'Pointer', className: 'X', objectId: 'y' }],
      ['a Date without iso', { __type: 'Date' }],
      ['a Date with a number iso', { __type: 'Date', iso: 1614834367000 }],
      ['a Date with a word', date('yesterday')],
      ['a Date without a time', date('2021-03-04')],
      ['an impossible day', date('2021-02-29T00:00:00.000Z')],
      ['an impossible hour', date('2021-03-04T24:00:00.000Z')],
      ['a time before 1970', date('1969-12-31T23:59:59.999Z')],
    ];
    for (const [label, at] of cases) assertError(await app.post(`/1/events/${name}`, { at, dimensions: { plan: 'free' } }), 400, 111, label);
    await nothingCounted(name, ['plan'], 'bad at');
    const epoch = await app.post(`/1/events/${name}`, { at: date('1970-01-01T00:00:00.000Z') });
    assert.equal(epoch.status, 200, epoch.text);
  });

  it('refuses event names outside the documented rule with 160', async () => {
    const names = ['', ' Lead', 'Trail ', '_Hidden', '-dash', 'a/b', 'naïve', 'emoji😀', 'semi;colon', 'dollar$', 'tab\tname', 'x'.repeat(65)];
    for (const name of names) {
      const path = `/1/events/${encodeURIComponent(name)}`;
      if (name === '') {
        // No name is no endpoint at all.
        assertError(await app.post(path, { at: AT }), 404, 108, 'no name');
        continue;
      }
      assertError(await app.post(path, { at: AT }), 400, 160, JSON.stringify(name));
      assertError(await countsOf(name, WIDE), 400, 160, `counts of ${JSON.stringify(name)}`);
    }
    const longest = await app.post(`/1/events/${'x'.repeat(64)}`, { at: AT });
    assert.equal(longest.status, 200, longest.text);
  });

  it('refuses the counts without the master key with 403/119, and without a key with 401', async () => {
    const name = unique('Secret');
    assert.equal((await app.post(`/1/events/${name}`, { at: AT })).status, 200);
    for (const key of ['rest', 'client', 'windows'] as const) assertError(await countsOf(name, WIDE, key), 403, 119, key);
    const sdk = await http(`${target.url}/1/events/${name}/counts`, 'POST', { raw: JSON.stringify(sdkBody(app.app, { _method: 'GET', ...WIDE })), headers: { 'Content-Type': 'text/plain' } });
    assertError(sdk, 403, 119, 'javascript key');
    assertError(await countsOf(name, WIDE, 'none'), 401, 903, 'no key');
    // The body form with the master key reads them, as the SDKs' `_method: GET` does.
    const master = await http(`${target.url}/1/events/${name}/counts`, 'POST', {
      raw: JSON.stringify({ _ApplicationId: app.app.applicationId, _MasterKey: app.app.masterKey, _method: 'GET', ...WIDE }),
      headers: { 'Content-Type': 'text/plain' },
    });
    assert.equal(master.status, 200, master.text);
    assert.deepEqual(master.body, { results: [{ time: '2021-03-04T05:00:00.000Z', count: 1 }] });
  });

  it('refuses a bad interval, range or dimension of the counts with 102', async () => {
    const name = unique('Query');
    assert.equal((await app.post(`/1/events/${name}`, { at: AT, dimensions: { plan: 'free' } })).status, 200);
    const cases: [string, Record<string, string>][] = [
      ['interval week', { ...WIDE, interval: 'week' }],
      ['interval in capitals', { ...WIDE, interval: 'HOUR' }],
      ['empty interval', { ...WIDE, interval: '' }],
      ['no from', { to: WIDE.to }],
      ['no to', { from: WIDE.from }],
      ['from a word', { from: 'yesterday', to: WIDE.to }],
      ['from a number', { from: '1614834367000', to: WIDE.to }],
      ['to month 13', { from: WIDE.from, to: '2021-13-01' }],
      ['to a day 30 of February', { from: WIDE.from, to: '2021-02-30T00:00:00Z' }],
      ['to equal to from', { from: '2021-03-04T05:00:00Z', to: '2021-03-04T05:00:00Z' }],
      ['to before from', { from: '2021-03-05', to: '2021-03-04' }],
      ['an empty dimension', { ...WIDE, dimension: '' }],
      ['a dimension of 65 characters', { ...WIDE, dimension: 'd'.repeat(65) }],
    ];
    for (const [label, query] of cases) assertError(await countsOf(name, query), 400, 102, label);
    const repeated = await app.get(`/1/events/${name}/counts?from=2020-01-01&from=2020-02-01&to=2022-01-01`, { key: 'master' });
    assertError(repeated, 400, 102, 'from given twice');
  });

  it('refuses a counts answer of more than 10,000 rows with 102, and serves the same range by day', async () => {
    const name = unique('Busy');
    // 10,001 hours with one event each, sent as batches of 50 commands, a few batches at a time.
    const start = Date.UTC(2021, 0, 1);
    const batches = Array.from({ length: Math.ceil(10_001 / 50) }, (_, b) =>
      Array.from({ length: Math.min(50, 10_001 - b * 50) }, (_, i) => ({
        method: 'POST',
        path: `/1/events/${name}`,
        body: { at: date(new Date(start + (b * 50 + i) * 3_600_000).toISOString()) },
      })),
    );
    for (let i = 0; i < batches.length; i += 8) {
      const answers = await Promise.all(batches.slice(i, i + 8).map((requests) => app.post('/1/batch', { requests })));
      for (const answer of answers) {
        assert.equal(answer.status, 200, answer.text.slice(0, 300));
        assert.ok(answer.body.every((entry: { success?: unknown }) => entry.success), answer.text.slice(0, 300));
      }
    }
    const last = new Date(start + 10_000 * 3_600_000).toISOString();
    assertError(await countsOf(name, { from: '2021-01-01', to: '2023-01-01' }), 400, 102, 'hours');
    const exactly = await countsOf(name, { from: '2021-01-01', to: last });
    assert.equal(exactly.status, 200, exactly.text.slice(0, 300));
    assert.equal(exactly.body.results.length, 10_000);
    const days = await countsOf(name, { from: '2021-01-01', to: '2023-01-01', interval: 'day' });
    assert.equal(days.status, 200, days.text.slice(0, 300));
    assert.equal(days.body.results.length, Math.ceil(10_001 / 24));
    assert.equal(days.body.results.reduce((sum: number, row: { count: number }) => sum + row.count, 0), 10_001);
    assert.deepEqual(days.body.results[0], { time: '2021-01-01T00:00:00.000Z', count: 24 });
    assert.deepEqual(days.body.results.at(-1), { time: '2022-02-21T00:00:00.000Z', count: 10_001 % 24 || 24 });
  });
});
