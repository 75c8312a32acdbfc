import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { http, newApp, sdkBody, unique, type AppClient } from '../helpers/client.ts';

/**
 * Analytics events (spec 2.13, 4.7, 6, 8): recorded with any key, counted per hour and per
 * dimension value, read back through GET /1/events/<name>/counts with the master key.
 */

const HOUR = 3_600_000;
const date = (iso: string) => ({ __type: 'Date', iso });
/** A wide range around the fixed times these tests record at. */
const WIDE = { from: '2020-01-01', to: '2023-01-01' };

eachBackend('analytics events', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newApp(target);
  });

  async function counts(client: AppClient, name: string, query: Record<string, string>) {
    const response = await client.get(`/1/events/${encodeURIComponent(name)}/counts`, { key: 'master', query });
    assert.equal(response.status, 200, response.text);
    return response.body.results as { time: string; value?: string; count: number }[];
  }

  async function track(name: string, body: unknown) {
    const response = await app.post(`/1/events/${encodeURIComponent(name)}`, body);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, {});
  }

  it('records AppOpened and custom events with every app key, answering 200 {}', async () => {
    const name = unique('Opened');
    const at = date('2021-03-04T05:06:07.000Z');
    for (const key of ['rest', 'client', 'windows', 'master'] as const) {
      const response = await app.post(`/1/events/${name}`, { at }, { key });
      assert.equal(response.status, 200, `${key}: ${response.text}`);
      assert.deepEqual(response.body, {});
    }
    // The JavaScript SDK's form: keys in a text/plain body, beside the event's own fields.
    const sdk = await http(`${target.url}/1/events/${name}`, 'POST', { raw: JSON.stringify(sdkBody(app.app, { at, dimensions: { via: 'sdk' } })), headers: { 'Content-Type': 'text/plain' } });
    assert.equal(sdk.status, 200, sdk.text);
    assert.deepEqual(await counts(app, name, WIDE), [{ time: '2021-03-04T05:00:00.000Z', count: 5 }]);
    assert.deepEqual(await counts(app, name, { ...WIDE, dimension: 'via' }), [{ time: '2021-03-04T05:00:00.000Z', value: 'sdk', count: 1 }]);

    const before = Date.now();
    const opened = await app.request('POST', '/1/events/AppOpened', { raw: '' });
    const after = Date.now();
    assert.equal(opened.status, 200, opened.text);
    const now = await counts(app, 'AppOpened', { from: new Date(before).toISOString(), to: new Date(after + 1).toISOString() });
    assert.equal(now.length, 1);
    assert.equal(now[0]!.count, 1);
    // Without `at`, the server's clock: the hour the request arrived in.
    const hours = [Math.floor(before / HOUR), Math.floor(after / HOUR)].map((hour) => new Date(hour * HOUR).toISOString());
    assert.ok(hours.includes(now[0]!.time), `${now[0]!.time} not in ${hours.join(', ')}`);
  });

  it('counts exactly under 200 concurrent posts, in total and per dimension value', async () => {
    const name = unique('Tap');
    const at = date('2021-06-01T10:20:00.000Z');
    // Half the events give their dimensions in the other order: the rows they share are still
    // updated in one order, so concurrent writers on PostgreSQL do not deadlock.
    const posts = Array.from({ length: 200 }, (_, i) => {
      const plan = i % 2 === 0 ? 'free' : 'pro';
      const device = i % 4 < 2 ? 'ios' : 'android';
      const dimensions = i % 3 === 0 ? { plan, device } : { device, plan };
      return app.post(`/1/events/${name}`, { at, dimensions });
    });
    for (const response of await Promise.all(posts)) assert.equal(response.status, 200, response.text);
    const hour = '2021-06-01T10:00:00.000Z';
    assert.deepEqual(await counts(app, name, WIDE), [{ time: hour, count: 200 }]);
    assert.deepEqual(await counts(app, name, { ...WIDE, dimension: 'plan' }), [
      { time: hour, value: 'free', count: 100 },
      { time: hour, value: 'pro', count: 100 },
    ]);
    assert.deepEqual(await counts(app, name, { ...WIDE, dimension: 'device' }), [
      { time: hour, value: 'android', count: 100 },
      { time: hour, value: 'ios', count: 100 },
    ]);
    const day = '2021-06-01T00:00:00.000Z';
    assert.deepEqual(await counts(app, name, { ...WIDE, interval: 'day' }), [{ time: day, count: 200 }]);
    assert.deepEqual(await counts(app, name, { ...WIDE, interval: 'day', dimension: 'plan' }), [
      { time: day, value: 'free', count: 100 },
      { time: day, value: 'pro', count: 100 },
    ]);
  });

  it('splits counts by one dimension, per hour, leaving out events without it', async () => {
    const name = unique('Search');
    await track(name, { at: date('2021-03-04T05:10:00.000Z'), dimensions: { source: 'web', category: 'books' } });
    await track(name, { at: date('2021-03-04T05:50:00.000Z'), dimensions: { source: 'web' } });
    await track(name, { at: date('2021-03-04T05:59:59.999Z'), dimensions: { source: 'app', category: 'music' } });
    await track(name, { at: date('2021-03-04T07:00:00.000Z'), dimensions: { category: 'books' } });
    await track(name, { at: date('2021-03-04T07:30:00.000Z') });
    assert.deepEqual(await counts(app, name, WIDE), [
      { time: '2021-03-04T05:00:00.000Z', count: 3 },
      { time: '2021-03-04T07:00:00.000Z', count: 2 },
    ]);
    // Values in byte order within an hour; hours with no such dimension are absent.
    assert.deepEqual(await counts(app, name, { ...WIDE, dimension: 'source' }), [
      { time: '2021-03-04T05:00:00.000Z', value: 'app', count: 1 },
      { time: '2021-03-04T05:00:00.000Z', value: 'web', count: 2 },
    ]);
    assert.deepEqual(await counts(app, name, { ...WIDE, dimension: 'category' }), [
      { time: '2021-03-04T05:00:00.000Z', value: 'books', count: 1 },
      { time: '2021-03-04T05:00:00.000Z', value: 'music', count: 1 },
      { time: '2021-03-04T07:00:00.000Z', value: 'books', count: 1 },
    ]);
    assert.deepEqual(await counts(app, name, { ...WIDE, dimension: 'absent' }), []);
  });

  it('keeps only the first eight dimension pairs, in the order of the body', async () => {
    const name = unique('Wide');
    const keys = ['k', 'j', 'i', 'h', 'g', 'f', 'e', 'd', 'c', 'b'];
    await track(name, { at: date('2021-03-04T05:00:00.000Z'), dimensions: Object.fromEntries(keys.map((key) => [key, `v${key}`])) });
    for (const [i, key] of keys.entries()) {
      const expected = i < 8 ? [{ time: '2021-03-04T05:00:00.000Z', value: `v${key}`, count: 1 }] : [];
      assert.deepEqual(await counts(app, name, { ...WIDE, dimension: key }), expected, `dimension ${key}`);
    }
    assert.deepEqual(await counts(app, name, WIDE), [{ time: '2021-03-04T05:00:00.000Z', count: 1 }]);
  });

  it('counts UTC days as well as hours', async () => {
    const name = unique('Daily');
    for (const iso of ['2021-03-04T00:00:00.000Z', '2021-03-04T12:30:00.000Z', '2021-03-04T23:59:59.999Z', '2021-03-05T00:00:00.000Z', '2021-03-07T08:00:00.000Z']) {
      await track(name, { at: date(iso), dimensions: { half: Number(iso.slice(11, 13)) < 12 ? 'am' : 'pm' } });
    }
    assert.deepEqual(await counts(app, name, { ...WIDE, interval: 'day' }), [
      { time: '2021-03-04T00:00:00.000Z', count: 3 },
      { time: '2021-03-05T00:00:00.000Z', count: 1 },
      { time: '2021-03-07T00:00:00.000Z', count: 1 },
    ]);
    assert.deepEqual(await counts(app, name, { ...WIDE, interval: 'day', dimension: 'half' }), [
      { time: '2021-03-04T00:00:00.000Z', value: 'am', count: 1 },
      { time: '2021-03-04T00:00:00.000Z', value: 'pm', count: 2 },
      { time: '2021-03-05T00:00:00.000Z', value: 'am', count: 1 },
      { time: '2021-03-07T00:00:00.000Z', value: 'am', count: 1 },
    ]);
    // A day bucket holds its whole day even when `from` falls inside it; `to` is exclusive.
    assert.deepEqual(await counts(app, name, { interval: 'day', from: '2021-03-04T18:00:00Z', to: '2021-03-05' }), [{ time: '2021-03-04T00:00:00.000Z', count: 3 }]);
    assert.deepEqual(await counts(app, name, { interval: 'day', from: '2021-03-05', to: '2021-03-07T00:00:00.001Z' }), [
      { time: '2021-03-05T00:00:00.000Z', count: 1 },
      { time: '2021-03-07T00:00:00.000Z', count: 1 },
    ]);
  });

  it('puts an event with `at` in the past in the UTC hour of that time, whatever its offset', async () => {
    const name = unique('Late');
    await track(name, { at: date('2020-02-29T13:45:10.123+02:00') });
    await track(name, { at: date('2020-02-29T06:59:59.999-05:00') });
    await track(name, { at: date('2020-02-29T12:00:00Z') });
    assert.deepEqual(await counts(app, name, WIDE), [
      { time: '2020-02-29T11:00:00.000Z', count: 2 },
      { time: '2020-02-29T12:00:00.000Z', count: 1 },
    ]);
  });

  it('counts hour buckets from the start of the hour holding `from` up to `to`, exclusive', async () => {
    const name = unique('Edge');
    await track(name, { at: date('2021-03-04T10:59:59.999Z') });
    await track(name, { at: date('2021-03-04T11:00:00.000Z') });
    await track(name, { at: date('2021-03-04T12:00:00.000Z') });
    assert.deepEqual(await counts(app, name, { from: '2021-03-04T10:30:00Z', to: '2021-03-04T11:00:00Z' }), [{ time: '2021-03-04T10:00:00.000Z', count: 1 }]);
    assert.deepEqual(await counts(app, name, { from: '2021-03-04T10:30:00Z', to: '2021-03-04T11:00:00.001Z' }), [
      { time: '2021-03-04T10:00:00.000Z', count: 1 },
      { time: '2021-03-04T11:00:00.000Z', count: 1 },
    ]);
    assert.deepEqual(await counts(app, name, { from: '2021-03-04T11:00:00+01:00', to: '2021-03-04T12:00:00Z' }), [
      { time: '2021-03-04T10:00:00.000Z', count: 1 },
      { time: '2021-03-04T11:00:00.000Z', count: 1 },
    ]);
  });

  it('counts Error events by their code, for error rates', async () => {
    const at = date('2021-09-09T09:09:09.000Z');
    for (const code of ['101', '101', '101', '209', '141']) await track('Error', { at, dimensions: { code } });
    for (let i = 0; i < 20; i++) await track('AppOpened', { at });
    const range = { from: '2021-09-09T09:00:00Z', to: '2021-09-09T10:00:00Z' };
    assert.deepEqual(await counts(app, 'Error', { ...range, dimension: 'code' }), [
      { time: '2021-09-09T09:00:00.000Z', value: '101', count: 3 },
      { time: '2021-09-09T09:00:00.000Z', value: '141', count: 1 },
      { time: '2021-09-09T09:00:00.000Z', value: '209', count: 1 },
    ]);
    assert.deepEqual(await counts(app, 'Error', range), [{ time: '2021-09-09T09:00:00.000Z', count: 5 }]);
    assert.deepEqual(await counts(app, 'AppOpened', range), [{ time: '2021-09-09T09:00:00.000Z', count: 20 }]);
  });

  it('accepts the documented names, case-sensitively, each counted on its own', async () => {
    const at = date('2021-03-04T05:00:00.000Z');
    const suffix = unique('');
    const names = [`Button Click ${suffix}`, `checkout.step-2:${suffix}`, `a${suffix}`, `error${suffix}`, `Error${suffix}`, `${suffix}_x`, `Z${'x'.repeat(53)}${suffix}`];
    for (const [i, name] of names.entries()) for (let n = 0; n <= i; n++) await track(name, { at });
    for (const [i, name] of names.entries()) assert.deepEqual(await counts(app, name, WIDE), [{ time: '2021-03-04T05:00:00.000Z', count: i + 1 }], name);
  });

  it('records events sent as batch commands, and a repeated request id once', async () => {
    const name = unique('Batched');
    const at = date('2021-03-04T05:00:00.000Z');
    const batch = await app.post('/1/batch', {
      requests: [
        { method: 'POST', path: `/1/events/${name}`, body: { at, dimensions: { step: '1' } } },
        { method: 'POST', path: `/1/events/${name}`, body: { at, dimensions: { step: 2 } } },
        { method: 'POST', path: `/1/events/${name}`, body: { at, dimensions: { step: '3' } } },
      ],
    });
    assert.equal(batch.status, 200, batch.text);
    assert.deepEqual(batch.body[0], { success: {} });
    assert.equal(batch.body[1].error.code, 102);
    assert.deepEqual(batch.body[2], { success: {} });
    assert.deepEqual(await counts(app, name, { ...WIDE, dimension: 'step' }), [
      { time: '2021-03-04T05:00:00.000Z', value: '1', count: 1 },
      { time: '2021-03-04T05:00:00.000Z', value: '3', count: 1 },
    ]);

    const repeated = unique('Retried');
    const id = unique('req');
    for (let i = 0; i < 3; i++) {
      const response = await app.post(`/1/events/${repeated}`, { at }, { headers: { 'X-Svc-Request-Id': id } });
      assert.equal(response.status, 200, response.text);
    }
    assert.deepEqual(await counts(app, repeated, WIDE), [{ time: '2021-03-04T05:00:00.000Z', count: 1 }]);
  });

  it('keeps each app to its own events', async () => {
    const other = await newApp(target);
    const name = unique('Shared');
    const at = date('2021-03-04T05:00:00.000Z');
    await track(name, { at, dimensions: { who: 'first' } });
    await track(name, { at, dimensions: { who: 'first' } });
    const response = await other.post(`/1/events/${name}`, { at, dimensions: { who: 'second' } });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(await counts(app, name, { ...WIDE, dimension: 'who' }), [{ time: '2021-03-04T05:00:00.000Z', value: 'first', count: 2 }]);
    assert.deepEqual(await counts(other, name, { ...WIDE, dimension: 'who' }), [{ time: '2021-03-04T05:00:00.000Z', value: 'second', count: 1 }]);
    // The master key of one app reads nothing of another: it is not a key of that app.
    const crossed = await http(`${target.url}/1/events/${name}/counts?from=2020-01-01&to=2023-01-01`, 'GET', {
      headers: { 'X-Svc-Application-Id': other.app.applicationId, 'X-Svc-Master-Key': app.app.masterKey },
    });
    assert.equal(crossed.status, 401, crossed.text);
  });
});
