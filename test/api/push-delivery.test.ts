import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AppClient } from '../helpers/client.ts';
import { signUp } from '../helpers/users.ts';
import { finished, install, PAGE_SIZE, push, pushAndWait, pushServer } from '../helpers/push.ts';

/**
 * Who a push reaches and what each device gets (spec 2.12, decisions.md "Push"): targeting by
 * channel, where, `$inQuery` and deviceType; paging of a large audience; badge increments;
 * scheduling, local time, expiry; missing credentials and invalid tokens. Deliveries are read
 * from the log of the recording networks (test/helpers/push-networks.ts).
 */

const HOUR = 3_600_000;

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`push delivery [${backend}]`, () => {
    const { server } = pushServer(backend);

    describe('targeting', () => {
      let app: AppClient;
      const ids: Record<string, string> = {};
      let alice: string;

      before(async () => {
        app = await server().app();
        const a = await signUp(app);
        const b = await signUp(app);
        alice = a.username;
        const user = (id: string) => ({ __type: 'Pointer', className: '_User', objectId: id });
        ids.A = await install(app, { deviceType: 'ios', channels: ['News'], user: user(a.objectId) });
        ids.B = await install(app, { deviceType: 'android', channels: ['News', 'Sports'], user: user(b.objectId) });
        ids.C = await install(app, { deviceType: 'android', channels: ['Sports'], vip: true });
        ids.D = await install(app, { deviceType: 'web' });
      });

      const reached = async (body: Record<string, unknown>) => {
        const { id, status } = await pushAndWait(app, { data: { alert: 'x' }, ...body });
        const got = server().reached(id);
        assert.equal(status.numSent, got.length);
        return got;
      };
      const of = (...names: string[]) => names.map((name) => ids[name]!).sort();

      it('channels reach the subscribers of any of them', async () => {
        assert.deepEqual(await reached({ channels: ['News'] }), of('A', 'B'));
        assert.deepEqual(await reached({ channels: ['News', 'Sports'] }), of('A', 'B', 'C'));
      });

      it('the broadcast channel "" reaches every installation', async () => {
        assert.deepEqual(await reached({ channels: [''] }), of('A', 'B', 'C', 'D'));
      });

      it('a where over _Installation reaches what it matches', async () => {
        assert.deepEqual(await reached({ where: { vip: true } }), of('C'));
        assert.deepEqual(await reached({ where: {} }), of('A', 'B', 'C', 'D'));
      });

      it('$inQuery into _User reaches the installations of the matching users', async () => {
        assert.deepEqual(await reached({ where: { user: { $inQuery: { className: '_User', where: { username: alice } } } } }), of('A'));
      });

      it('deviceType in where filters by platform', async () => {
        assert.deepEqual(await reached({ where: { deviceType: 'android' } }), of('B', 'C'));
        assert.deepEqual(await reached({ where: { deviceType: { $in: ['ios', 'web'] } } }), of('A', 'D'));
      });

      it('channels and where together reach what both select', async () => {
        assert.deepEqual(await reached({ channels: ['Sports'], where: { vip: { $ne: true } } }), of('B'));
      });
    });

    it(`a 5,000-installation audience is sent in pages of ${PAGE_SIZE}, each device once`, async () => {
      const app = await server().app();
      const requests = Array.from({ length: 5000 }, (_, i) => ({ method: 'POST', path: '/1/installations', body: { deviceType: 'android', installationId: randomUUID(), deviceToken: `bulk-${i}`, channels: ['Bulk'] } }));
      for (let i = 0; i < requests.length; i += 50) {
        const response = await app.post('/1/batch', { requests: requests.slice(i, i + 50) });
        assert.equal(response.status, 200, response.text);
      }
      const { id, status } = await pushAndWait(app, { channels: ['Bulk'], data: { alert: 'all' } });
      assert.equal(status.status, 'succeeded');
      assert.equal(status.numSent, 5000);
      assert.deepEqual(status.sentPerType, { android: 5000 });
      const deliveries = server().deliveries(id);
      assert.equal(deliveries.length, 5000 / PAGE_SIZE);
      for (const delivery of deliveries) assert.equal(delivery.devices.length, PAGE_SIZE);
      const tokens = new Set(deliveries.flatMap((delivery) => delivery.devices.map((device) => device.deviceToken)));
      assert.equal(tokens.size, 5000);
    });

    it('badge "Increment" adds one to each iOS installation\'s stored badge and sends the new value', async () => {
      const app = await server().app();
      const withBadge = await install(app, { deviceType: 'ios', channels: ['Badge'], badge: 3 });
      const without = await install(app, { deviceType: 'ios', channels: ['Badge'] });
      const android = await install(app, { deviceType: 'android', channels: ['Badge'], badge: 7 });
      for (const round of [1, 2]) {
        const { id } = await pushAndWait(app, { channels: ['Badge'], data: { alert: 'x', badge: 'Increment' } });
        const badges = Object.fromEntries(server().deliveries(id).flatMap((delivery) => delivery.devices.map((device) => [device.objectId, device.badge])));
        assert.deepEqual(badges, { [withBadge]: 3 + round, [without]: round, [android]: 7 });
      }
      const stored = async (objectId: string) => (await app.get(`/1/installations/${objectId}`, { key: 'master' })).body.badge;
      assert.equal(await stored(withBadge), 5);
      assert.equal(await stored(without), 2);
      assert.equal(await stored(android), 7);
    });

    it('a push_time a few seconds ahead is delivered then, not before', async () => {
      const app = await server().app();
      const device = await install(app, { deviceType: 'android', channels: ['Soon'] });
      const at = new Date(Date.now() + 2000);
      const { response, id } = await push(app, { channels: ['Soon'], data: { alert: 'later' }, push_time: at.toISOString() });
      assert.equal(response.status, 200, response.text);
      const status = await finished(app, id);
      assert.equal(status.status, 'succeeded');
      assert.equal(status.pushTime, at.toISOString());
      const deliveries = server().deliveries(id);
      assert.deepEqual(server().reached(id), [device]);
      assert.ok(deliveries[0]!.at >= at.getTime(), `sent at ${new Date(deliveries[0]!.at).toISOString()}, before ${at.toISOString()}`);
    });

    it('a local push_time reaches each time zone at its own wall time; installations without timeZone are left out', async () => {
      const app = await server().app();
      const zones = ['Europe/Paris', 'America/New_York', 'Asia/Tokyo'];
      const reachedIds = [];
      for (const timeZone of zones) reachedIds.push(await install(app, { deviceType: 'android', channels: ['Local'], timeZone }));
      await install(app, { deviceType: 'android', channels: ['Local'] });
      // Six hours ago as a wall time: every one of the three zones (UTC−5 to UTC+9) has passed
      // it, so each batch is due at once.
      const wall = new Date(Date.now() - 6 * HOUR).toISOString().slice(0, 19);
      const { id, status } = await pushAndWait(app, { channels: ['Local'], data: { alert: 'local' }, push_time: wall });
      assert.equal(status.status, 'succeeded');
      assert.equal(status.pushTime, `${wall}.000`);
      assert.deepEqual(server().reached(id), reachedIds.sort());
      const offsets: Record<string, number> = {};
      for (const timeZone of zones) {
        const key = String(offsetHours(timeZone, Date.parse(`${wall}Z`)));
        offsets[key] = (offsets[key] ?? 0) + 1;
      }
      assert.deepEqual(status.sentPerUTCOffset, offsets);
      assert.deepEqual(status.failedPerUTCOffset, {});
    });

    it('a push expired before it is sent reaches no one and ends failed; an expiry is passed to the networks', async () => {
      const app = await server().app();
      await install(app, { deviceType: 'android', channels: ['Expiry'] });
      const expired = await pushAndWait(app, { channels: ['Expiry'], data: { alert: 'x' }, expiration_time: Math.floor(Date.now() / 1000) - 60 });
      assert.equal(expired.status.status, 'failed');
      assert.equal(expired.status.numSent, 0);
      assert.match(expired.status.errorMessage, /expired/);
      assert.deepEqual(server().deliveries(expired.id), []);
      const until = new Date(Date.now() + HOUR).toISOString();
      const live = await pushAndWait(app, { channels: ['Expiry'], data: { alert: 'x' }, expiration_time: until });
      assert.equal(live.status.expiry, Date.parse(until));
      assert.equal(server().deliveries(live.id)[0]!.expiresAt, until);
      // expiration_interval counts from push_time.
      const at = Date.now() + 1500;
      const scheduled = await push(app, { channels: ['Expiry'], data: { alert: 'x' }, push_time: new Date(at).toISOString(), expiration_interval: 600 });
      assert.equal(scheduled.response.status, 200, scheduled.response.text);
      const done = await finished(app, scheduled.id);
      assert.equal(done.expiry, at + 600_000);
      assert.equal(done.expiration_interval, 600);
      assert.equal(server().deliveries(scheduled.id)[0]!.expiresAt, new Date(at + 600_000).toISOString());
    });

    it('device types without credentials count as failed, with the missing credential named', async () => {
      const app = await server().app({}, 'push-no-apns');
      await install(app, { deviceType: 'ios', channels: ['Creds'] });
      await install(app, { deviceType: 'ios', channels: ['Creds'] });
      const android = await install(app, { deviceType: 'android', channels: ['Creds'] });
      const mixed = await pushAndWait(app, { channels: ['Creds'], data: { alert: 'x' } });
      assert.equal(mixed.status.status, 'succeeded');
      assert.equal(mixed.status.numSent, 1);
      assert.equal(mixed.status.numFailed, 2);
      assert.deepEqual(mixed.status.failedPerType, { ios: 2 });
      assert.match(mixed.status.errorMessage, /APNs credentials/);
      assert.deepEqual(server().reached(mixed.id), [android]);
      const onlyIos = await pushAndWait(app, { where: { deviceType: 'ios' }, data: { alert: 'x' } });
      assert.equal(onlyIos.status.status, 'failed');
      assert.equal(onlyIos.status.numFailed, 2);
      assert.match(onlyIos.status.errorMessage, /APNs credentials/);
    });

    it('a token the network calls invalid is removed from its installation', async () => {
      const app = await server().app();
      const bad = await install(app, { deviceType: 'android', channels: ['Tokens'], deviceToken: 'invalid-1' });
      const good = await install(app, { deviceType: 'android', channels: ['Tokens'], deviceToken: 'valid-1' });
      const { status } = await pushAndWait(app, { channels: ['Tokens'], data: { alert: 'x' } });
      assert.equal(status.numSent, 1);
      assert.deepEqual(status.failedPerType, { android: 1 });
      assert.match(status.errorMessage, /no longer valid/);
      const read = async (objectId: string) => (await app.get(`/1/installations/${objectId}`, { key: 'master' })).body;
      assert.equal((await read(bad)).deviceToken, undefined);
      assert.equal((await read(good)).deviceToken, 'valid-1');
      // Without a token it is no longer part of any audience.
      const again = await pushAndWait(app, { channels: ['Tokens'], data: { alert: 'x' } });
      assert.equal(again.status.numSent, 1);
      assert.equal(again.status.numFailed, 0);
    });
  });
}

/** The zone's offset from UTC in hours at an instant near `at`, as the test's own runtime reads it. */
function offsetHours(timeZone: string, wallAsUtc: number): number {
  const offsetAt = (at: number) => {
    const parts = Object.fromEntries(new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' }).formatToParts(new Date(at)).map((part) => [part.type, Number(part.value)]));
    return (Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!) - Math.floor(at / 60_000) * 60_000) / 3_600_000;
  };
  return offsetAt(wallAsUtc - offsetAt(wallAsUtc) * 3_600_000);
}
