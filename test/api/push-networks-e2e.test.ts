import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AppClient } from '../helpers/client.ts';
import { install, pushAndWait } from '../helpers/push.ts';
import { realPushServer, webPushId, type RealPushServer } from '../helpers/push-e2e.ts';

/**
 * POST /1/push through the real delivery networks (APNs, FCM v1, WNS, Web Push) to local servers
 * that speak each protocol: who receives what (docs/push.md "Payload mapping"), `_PushStatus`
 * counters, invalid tokens removed, expiry passed on, and 429 with Retry-After sent again.
 */

interface Audience {
  readonly ids: Record<'ios' | 'android' | 'winrt' | 'web', string>;
  readonly tokens: ReturnType<RealPushServer['tokens']>;
}

/** One installation of each device type, in channel `channel`, with the local servers' tokens. */
async function audience(server: RealPushServer, app: AppClient, channel: string): Promise<Audience> {
  const tokens = server.tokens();
  const ids = {} as Audience['ids'];
  for (const deviceType of ['ios', 'android', 'winrt', 'web'] as const) {
    // A stored badge: a push with a number badge shows that number, not the stored one.
    ids[deviceType] = await install(app, { deviceType, deviceToken: tokens[deviceType], channels: [channel], badge: 9 });
  }
  return { ids, tokens };
}

async function installation(app: AppClient, id: string): Promise<Record<string, any>> {
  const response = await app.get(`/1/installations/${id}`, { key: 'master' });
  assert.equal(response.status, 200, response.text);
  return response.body;
}

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`push through the delivery networks [${backend}]`, () => {
    const { server } = realPushServer(backend);
    const apnsOf = (token: string) => server().networks.apns.received.filter((entry) => entry.deviceToken === token);
    const fcmOf = (token: string) => server().networks.fcm.received.filter((entry) => entry.message.token === token);
    const wnsOf = (channel: string) => server().networks.wns.received.filter((entry) => server().networks.wns.channel(entry.channel) === channel);
    const webOf = (token: string) => server().networks.web.received.filter((entry) => entry.id === webPushId(token));

    it('each network receives exactly its devices with the documented payload, and the status counts them', async () => {
      const app = await server().app();
      const { tokens } = await audience(server(), app, 'E2E');
      const other = await audience(server(), app, 'Elsewhere');
      const data = { alert: 'Hello', badge: 3, sound: 'ping.caf', title: 'Greeting', score: 7 };
      const { id, status } = await pushAndWait(app, { channels: ['E2E'], data });

      assert.equal(status.status, 'succeeded', JSON.stringify(status));
      assert.equal(status.numSent, 4);
      assert.equal(status.numFailed, 0);
      assert.deepEqual(status.sentPerType, { ios: 1, android: 1, winrt: 1, web: 1 });
      assert.deepEqual(status.failedPerType, {});

      const [apns, ...moreApns] = apnsOf(tokens.ios);
      assert.equal(moreApns.length, 0);
      assert.deepEqual(apns!.payload, { score: 7, aps: { alert: { body: 'Hello', title: 'Greeting' }, badge: 3, sound: 'ping.caf' } });
      assert.equal(apns!.headers['apns-topic'], 'com.example.basalt');
      assert.equal(apns!.headers['apns-push-type'], 'alert');
      assert.equal(apns!.headers['apns-priority'], '10');
      assert.equal(apns!.headers['apns-expiration'], undefined);
      assert.equal(apns!.auth, 'token:KEYE2E0001');

      const [fcm, ...moreFcm] = fcmOf(tokens.android);
      assert.equal(moreFcm.length, 0);
      assert.equal(fcm!.projectId, 'basalt-e2e');
      const { time, ...strings } = fcm!.message.data;
      assert.ok(!Number.isNaN(Date.parse(time)), time);
      assert.deepEqual(strings, { alert: 'Hello', badge: '3', sound: 'ping.caf', title: 'Greeting', score: '7', data: JSON.stringify(data), push_id: id });
      assert.deepEqual(fcm!.message.notification, { title: 'Greeting', body: 'Hello' });
      assert.deepEqual(fcm!.message.android, { priority: 'high', notification: { sound: 'ping.caf', notification_count: 3 } });

      const [wns, ...moreWns] = wnsOf(tokens.winrt);
      assert.equal(moreWns.length, 0);
      assert.equal(wns!.headers['x-wns-type'], 'wns/toast');
      assert.equal(wns!.headers['x-wns-ttl'], undefined);
      const launch = /<toast launch="([^"]*)">/.exec(wns!.body)![1]!;
      assert.deepEqual(JSON.parse(launch.replaceAll('&quot;', '"')), data);
      assert.ok(wns!.body.includes('<binding template="ToastGeneric"><text>Greeting</text><text>Hello</text></binding></visual><audio src="ping.caf"/></toast>'), wns!.body);

      const [web, ...moreWeb] = webOf(tokens.web);
      assert.equal(moreWeb.length, 0);
      assert.deepEqual(JSON.parse(web!.plaintext), data);
      assert.equal(web!.headers.ttl, String(28 * 86_400));

      // The other channel's devices got nothing.
      assert.deepEqual([apnsOf(other.tokens.ios), fcmOf(other.tokens.android), wnsOf(other.tokens.winrt), webOf(other.tokens.web)].map((list) => list.length), [0, 0, 0, 0]);
    });

    it('a token each network answers as invalid is removed from its installation', async () => {
      const app = await server().app();
      const { ids, tokens } = await audience(server(), app, 'Gone');
      const networks = server().networks;
      networks.apns.script.set(tokens.ios, [{ status: 410, reason: 'Unregistered' }]);
      networks.fcm.script.set(tokens.android, [{ status: 404, body: { error: { code: 404, status: 'NOT_FOUND', message: 'Requested entity was not found.', details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'UNREGISTERED' }] } } }]);
      networks.wns.script.set(`wns-${tokens.winrt.split('wns-')[1]}`, [{ status: 410 }]);
      networks.web.script.set(webPushId(tokens.web), [{ status: 410 }]);
      const { status } = await pushAndWait(app, { channels: ['Gone'], data: { alert: 'x' } });

      assert.equal(status.status, 'failed', JSON.stringify(status));
      assert.equal(status.numSent, 0);
      assert.deepEqual(status.failedPerType, { ios: 1, android: 1, winrt: 1, web: 1 });
      for (const id of Object.values(ids)) {
        const stored = await installation(app, id);
        assert.equal(stored.deviceToken, undefined, JSON.stringify(stored));
      }
    });

    it('expiration_time reaches every network: apns-expiration, FCM ttl, WNS TTL, Web Push TTL', async () => {
      const app = await server().app();
      const { tokens } = await audience(server(), app, 'Expiring');
      const expires = Math.floor(Date.now() / 1000) + 3600;
      const { status } = await pushAndWait(app, { channels: ['Expiring'], data: { alert: 'x' }, expiration_time: new Date(expires * 1000).toISOString() });
      assert.equal(status.numSent, 4, JSON.stringify(status));

      assert.equal(apnsOf(tokens.ios)[0]!.headers['apns-expiration'], String(expires));
      // Seconds left when sent: at most the hour, and not a default.
      const left = (text: string) => {
        const seconds = Number(text);
        assert.ok(seconds > 0 && seconds <= 3600, text);
      };
      left(/^(\d+)s$/.exec(fcmOf(tokens.android)[0]!.message.android.ttl)![1]!);
      left(String(wnsOf(tokens.winrt)[0]!.headers['x-wns-ttl']));
      left(String(webOf(tokens.web)[0]!.headers.ttl));
    });
    it('devices answered 429 with Retry-After are sent again after it and counted once', async () => {
      const app = await server().app();
      const { tokens } = await audience(server(), app, 'Busy');
      const networks = server().networks;
      networks.apns.script.set(tokens.ios, [{ status: 429, reason: 'TooManyRequests', headers: { 'retry-after': '1' } }, { status: 200 }]);
      networks.fcm.script.set(tokens.android, [{ status: 429, body: { error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded.' } }, headers: { 'Retry-After': '1' } }, { status: 200, body: { name: 'projects/basalt-e2e/messages/1' } }]);
      const { status } = await pushAndWait(app, { channels: ['Busy'], data: { alert: 'again' } });

      assert.equal(status.status, 'succeeded', JSON.stringify(status));
      assert.equal(status.numSent, 4);
      assert.equal(status.numFailed, 0);
      assert.deepEqual(status.sentPerType, { ios: 1, android: 1, winrt: 1, web: 1 });
      assert.equal(status.errorMessage, undefined);
      const apns = apnsOf(tokens.ios);
      assert.equal(apns.length, 2);
      assert.ok(apns[1]!.at - apns[0]!.at >= 1000, `sent again ${apns[1]!.at - apns[0]!.at} ms later, before its Retry-After`);
      assert.equal(fcmOf(tokens.android).length, 2);
      assert.equal(wnsOf(tokens.winrt).length, 1);
      assert.equal(webOf(tokens.web).length, 1);
    });

    it('a device a network keeps refusing with 503 is tried five times, then counted failed once', async () => {
      const app = await server().app();
      const { tokens } = await audience(server(), app, 'Down');
      server().networks.apns.script.set(tokens.ios, [{ status: 503, reason: 'ServiceUnavailable', headers: { 'retry-after': '0' } }]);
      const { status } = await pushAndWait(app, { channels: ['Down'], data: { alert: 'x' } });

      assert.equal(status.status, 'succeeded', JSON.stringify(status));
      assert.equal(status.numSent, 3);
      assert.equal(status.numFailed, 1);
      assert.deepEqual(status.failedPerType, { ios: 1 });
      assert.match(status.errorMessage, /ServiceUnavailable/);
      assert.equal(apnsOf(tokens.ios).length, 5);
    });
    it('a local push_time is sent per UTC offset through the networks, each batch at its own moment', async () => {
      const app = await server().app();
      const tokens = server().tokens();
      // Offsets without daylight saving: 0, +5:30 and +9.
      const zones = { ios: 'Atlantic/Reykjavik', android: 'Asia/Kolkata', winrt: 'Asia/Tokyo', web: 'Asia/Tokyo' } as const;
      for (const deviceType of ['ios', 'android', 'winrt', 'web'] as const) await install(app, { deviceType, deviceToken: tokens[deviceType], channels: ['Local'], timeZone: zones[deviceType] });
      const late = server().tokens();
      await install(app, { deviceType: 'ios', deviceToken: late.ios, channels: ['Local'] });
      // A wall time a few seconds ahead: still to come at UTC+0, long past at +5:30 and +9.
      const wall = new Date(Date.now() + 3000).toISOString().slice(0, 19);
      const { status } = await pushAndWait(app, { channels: ['Local'], data: { alert: 'local' }, push_time: wall });

      assert.equal(status.status, 'succeeded', JSON.stringify(status));
      assert.deepEqual(status.sentPerUTCOffset, { '0': 1, '5.5': 1, '9': 2 });
      assert.deepEqual(status.failedPerUTCOffset, {});
      assert.deepEqual(status.sentPerType, { ios: 1, android: 1, winrt: 1, web: 1 });
      const [apns] = apnsOf(tokens.ios);
      assert.ok(apns!.at >= Date.parse(`${wall}Z`), `UTC+0 was sent at ${new Date(apns!.at).toISOString()}, before ${wall}`);
      assert.deepEqual([fcmOf(tokens.android).length, wnsOf(tokens.winrt).length, webOf(tokens.web).length], [1, 1, 1]);
      // An installation without a timeZone is left out of a local-time push.
      assert.deepEqual(apnsOf(late.ios), []);
    });
  });
}
