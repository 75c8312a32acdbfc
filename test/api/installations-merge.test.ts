import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, type AppClient, type RequestOptions } from '../helpers/client.ts';
import { TIMESTAMP, assertError } from '../helpers/users.ts';

/**
 * A POST for a device the app knows already updates its installation instead of adding a second
 * one, as the Parse SDKs expect (they POST whenever they hold no objectId, after a reinstall, or
 * when a save raced another): matched by installationId, and by deviceToken for iOS clients that
 * registered before they had an installationId.
 */

const MASTER = { key: 'master' } as const;

eachBackend('installations: a POST for a known device', (target) => {
  let app: AppClient;

  before(async () => {
    app = await newApp(target);
  });

  const token = () => randomBytes(32).toString('hex');

  async function create(body: Record<string, unknown>, options?: RequestOptions): Promise<string> {
    const response = await app.post('/1/installations', body, options);
    assert.equal(response.status, 201, response.text);
    return response.body.objectId;
  }

  /** The installations holding this installationId or this deviceToken, as the master key sees them. */
  async function holders(where: Record<string, unknown>): Promise<Record<string, any>[]> {
    const response = await app.get('/1/installations', { ...MASTER, query: { where, order: 'createdAt' } });
    assert.equal(response.status, 200, response.text);
    return response.body.results;
  }

  async function exists(objectId: string): Promise<boolean> {
    return (await app.get(`/1/installations/${objectId}`, MASTER)).status === 200;
  }

  it('updates the installation with the same installationId: 200 {objectId, createdAt, updatedAt}', async () => {
    const installationId = randomUUID();
    const first = await app.post('/1/installations', { deviceType: 'ios', installationId, channels: ['A'], appVersion: '1.0' });
    assert.equal(first.status, 201, first.text);
    const again = await app.post('/1/installations', { deviceType: 'ios', installationId: installationId.toUpperCase(), channels: ['B'], badge: 2 });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(Object.keys(again.body).sort(), ['createdAt', 'objectId', 'updatedAt']);
    assert.equal(again.body.objectId, first.body.objectId);
    assert.equal(again.body.createdAt, first.body.createdAt);
    assert.match(again.body.updatedAt, TIMESTAMP);
    assert.equal(again.headers.get('location'), null);

    const [only, ...rest] = await holders({ installationId });
    assert.equal(rest.length, 0);
    assert.deepEqual([only!.objectId, only!.channels, only!.badge, only!.appVersion], [first.body.objectId, ['B'], 2, '1.0']);
  });

  it('merges a POST naming the installation only in X-Svc-Installation-Id, and refuses another deviceType (136)', async () => {
    const installationId = randomUUID();
    const objectId = await create({ deviceType: 'android', installationId });
    const merged = await app.post('/1/installations', { channels: ['News'] }, { headers: { 'X-Svc-Installation-Id': installationId } });
    assert.equal(merged.status, 200, merged.text);
    assert.equal(merged.body.objectId, objectId);
    assertError(await app.post('/1/installations', { deviceType: 'ios', installationId, channels: ['Other'] }), 400, 136);
    const [only, ...rest] = await holders({ installationId });
    assert.equal(rest.length, 0);
    assert.deepEqual([only!.deviceType, only!.channels], ['android', ['News']]);
  });

  it('iOS: a POST with a known deviceToken and no installationId updates the installation holding it', async () => {
    const deviceToken = token();
    const objectId = await create({ deviceType: 'ios', deviceToken, channels: ['A'] });
    const merged = await app.post('/1/installations', { deviceType: 'ios', deviceToken: deviceToken.toUpperCase(), badge: 5 });
    assert.equal(merged.status, 200, merged.text);
    assert.equal(merged.body.objectId, objectId);
    const [only, ...rest] = await holders({ deviceToken });
    assert.equal(rest.length, 0);
    assert.deepEqual([only!.channels, only!.badge], [['A'], 5]);

    // The same when the holder has an installationId and the request names none.
    const other = token();
    const installationId = randomUUID();
    const withId = await create({ deviceType: 'ios', installationId, deviceToken: other });
    const second = await app.post('/1/installations', { deviceToken: other, badge: 1 });
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.objectId, withId);
    assert.equal((await holders({ deviceToken: other }))[0]!.installationId, installationId);
  });

  it('iOS: an installation without an installationId takes over the id of a POST with its deviceToken', async () => {
    const deviceToken = token();
    const installationId = randomUUID();
    const old = await create({ deviceType: 'ios', deviceToken, channels: ['Kept'] });
    const newer = await create({ deviceType: 'ios', installationId });
    const merged = await app.post('/1/installations', { deviceType: 'ios', installationId, deviceToken, badge: 1 });
    assert.equal(merged.status, 200, merged.text);
    assert.equal(merged.body.objectId, old);
    assert.equal(await exists(newer), false);
    const [only, ...rest] = await holders({ installationId });
    assert.equal(rest.length, 0);
    assert.deepEqual([only!.objectId, only!.deviceToken, only!.channels, only!.badge], [old, deviceToken, ['Kept'], 1]);
  });

  it('a reinstalled device (new installationId, known deviceToken) gets a new installation; the old one goes', async () => {
    const deviceToken = token();
    const old = await create({ deviceType: 'ios', installationId: randomUUID(), deviceToken, appIdentifier: 'com.example.a' });
    const otherApp = await create({ deviceType: 'ios', installationId: randomUUID(), deviceToken, appIdentifier: 'com.example.b' });
    const installationId = randomUUID();
    const fresh = await app.post('/1/installations', { deviceType: 'ios', installationId, deviceToken, appIdentifier: 'com.example.a' });
    assert.equal(fresh.status, 201, fresh.text);
    assert.notEqual(fresh.body.objectId, old);
    assert.equal(await exists(old), false);
    // Another client app on the device has its own installation with that token, and keeps it.
    assert.equal(await exists(otherApp), true);
    assert.deepEqual((await holders({ deviceToken })).map((row) => row.objectId).sort(), [fresh.body.objectId, otherApp].sort());
  });

  it('refuses a POST with a deviceToken several installations hold and no installationId (132)', async () => {
    const deviceToken = token();
    const a = await create({ deviceType: 'ios', installationId: randomUUID(), deviceToken, appIdentifier: 'com.example.a' });
    const b = await create({ deviceType: 'ios', installationId: randomUUID(), deviceToken, appIdentifier: 'com.example.b' });
    assertError(await app.post('/1/installations', { deviceType: 'ios', deviceToken, badge: 9 }), 400, 132);
    const rows = await holders({ deviceToken });
    assert.deepEqual(rows.map((row) => row.objectId), [a, b]);
    assert.equal(rows.some((row) => row.badge === 9), false);
  });

  it('a PUT that gives a token to an installation takes it from the others of the same client app', async () => {
    const deviceToken = token();
    const old = await create({ deviceType: 'ios', installationId: randomUUID(), deviceToken, appIdentifier: 'com.example.a' });
    const otherApp = await create({ deviceType: 'ios', installationId: randomUUID(), deviceToken, appIdentifier: 'com.example.b' });
    const current = await create({ deviceType: 'ios', installationId: randomUUID(), appIdentifier: 'com.example.a' });
    assert.equal((await app.put(`/1/installations/${current}`, { deviceToken })).status, 200);
    assert.equal(await exists(old), false);
    assert.equal(await exists(otherApp), true);
    assert.equal(await exists(current), true);
  });

  it('keeps installationId unique: a PUT to another installation\'s id answers 137', async () => {
    const installationId = randomUUID();
    await create({ deviceType: 'ios', installationId });
    const other = await create({ deviceType: 'ios', deviceToken: token() });
    assertError(await app.put(`/1/installations/${other}`, { installationId }), 400, 137);
    assert.equal((await holders({ installationId })).length, 1);
  });

  it('leaves one installation when a device saves itself several times at once', async () => {
    const installationId = randomUUID();
    const responses = await Promise.all(Array.from({ length: 8 }, (_, i) => app.post('/1/installations', { deviceType: 'android', installationId, badge: i })));
    for (const response of responses) assert.ok(response.status === 201 || response.status === 200, response.text);
    assert.equal(responses.filter((response) => response.status === 201).length, 1);
    assert.equal(new Set(responses.map((response) => response.body.objectId)).size, 1);
    assert.equal((await holders({ installationId })).length, 1);
  });
});
