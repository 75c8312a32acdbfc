import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { WnsServer } from '../../../test/helpers/fcm-wns-servers.ts';
import { device, endpoints, message, testClock } from '../../../test/helpers/push-devices.ts';
import { WnsNetwork } from './wns.ts';

/** WNS against a local token endpoint (client credentials) and channel URIs. */
describe('WNS', () => {
  let server: WnsServer;
  const credential = { clientId: 'ms-app://s-1-15-2-basalt', clientSecret: 'wns-secret' };

  before(async () => {
    server = await WnsServer.start();
    server.clients.set(credential.clientId, credential.clientSecret);
  });
  after(() => server.close());

  const network = (clock = testClock(), overrides: Record<string, unknown> = {}) => new WnsNetwork(credential, endpoints({ wnsTokenUrl: server.tokenUrl, ...overrides }), clock.now);
  const receivedBy = (channel: string) => server.received.filter((entry) => entry.channel === channel);

  it('sends a toast for alert and title, with the payload as launch argument, the sound, and the expiry as X-WNS-TTL', async () => {
    const wns = network();
    const target = device('winrt', server.channel('toast-1'));
    const expiresAt = new Date(Date.now() + 600_000);
    assert.deepEqual(await wns.send([target], message({ alert: 'Hi & bye', title: '<Greeting>', sound: 'ms-winsoundevent:Notification.IM', uri: 'https://example.com/x' }, expiresAt)), [{ objectId: target.objectId, ok: true }]);
    const [one] = receivedBy('toast-1');
    assert.equal(one!.headers['x-wns-type'], 'wns/toast');
    assert.equal(one!.headers['content-type'], 'text/xml');
    assert.match(one!.headers.authorization!, /^Bearer wns-token-\d+$/);
    const ttl = Number(one!.headers['x-wns-ttl']);
    assert.ok(ttl > 590 && ttl <= 600, String(ttl));
    const launch = '{&quot;alert&quot;:&quot;Hi &amp; bye&quot;,&quot;title&quot;:&quot;&lt;Greeting&gt;&quot;,&quot;sound&quot;:&quot;ms-winsoundevent:Notification.IM&quot;,&quot;uri&quot;:&quot;https://example.com/x&quot;}';
    assert.equal(one!.body, `<toast launch="${launch}"><visual><binding template="ToastGeneric"><text>&lt;Greeting&gt;</text><text>Hi &amp; bye</text></binding></visual><audio src="ms-winsoundevent:Notification.IM"/></toast>`);
    await wns.close();
  });

  it('chooses badge, raw or the wnsType asked for, and sends no TTL without expiry', async () => {
    const wns = network();
    const [badge, raw, tile] = ['badge-1', 'raw-1', 'tile-1'].map((id) => device('winphone', server.channel(id)));
    await wns.send([badge!], message({ badge: 5 }));
    await wns.send([raw!], message({ sync: 'inbox', n: 1 }));
    await wns.send([tile!], message({ alert: 'Score', wnsType: 'tile' }));
    assert.deepEqual([receivedBy('badge-1')[0]!.headers['x-wns-type'], receivedBy('badge-1')[0]!.body], ['wns/badge', '<badge value="5"/>']);
    assert.deepEqual([receivedBy('raw-1')[0]!.headers['x-wns-type'], receivedBy('raw-1')[0]!.headers['content-type'], receivedBy('raw-1')[0]!.body], ['wns/raw', 'application/octet-stream', '{"sync":"inbox","n":1}']);
    assert.equal(receivedBy('tile-1')[0]!.headers['x-wns-type'], 'wns/tile');
    assert.match(receivedBy('tile-1')[0]!.body, /^<tile><visual><binding template="TileMedium"><text>Score<\/text>/);
    assert.equal(receivedBy('raw-1')[0]!.headers['x-wns-ttl'], undefined);
    await wns.close();
  });

  it('caches the access token, and asks for another once WNS refuses it', async () => {
    const wns = network();
    const before = server.tokenRequests;
    await wns.send(['c1', 'c2', 'c3'].map((id) => device('dotnet', server.channel(id))), message({ alert: 'x' }));
    await wns.send([device('dotnet', server.channel('c4'))], message({ alert: 'y' }));
    assert.equal(server.tokenRequests, before + 1);
    server.expireTokens();
    assert.equal((await wns.send([device('dotnet', server.channel('c5'))], message({ alert: 'z' })))[0]!.ok, true);
    assert.equal(server.tokenRequests, before + 2);
    await wns.close();
  });

  it('marks 404 and 410 invalid, treats the 406 throttle as retryable, and never throws', async () => {
    const wns = network();
    server.script.set('gone', [{ status: 410, headers: { 'X-WNS-NotificationStatus': 'dropped' } }]);
    server.script.set('missing', [{ status: 404 }]);
    server.script.set('throttled', [{ status: 406, headers: { 'X-WNS-NotificationStatus': 'dropped' } }]);
    server.script.set('broken', [{ status: 500 }]);
    const devices = [...['gone', 'missing', 'throttled', 'broken', 'fine'].map((id) => device('winrt', server.channel(id))), device('winrt', 'not a uri'), device('winrt', 'https://evil.example/steal')];
    assert.deepEqual(await wns.send(devices, message({ alert: 'x' })), [
      { objectId: devices[0]!.objectId, ok: false, error: 'WNS 410 dropped', invalidToken: true },
      { objectId: devices[1]!.objectId, ok: false, error: 'WNS 404', invalidToken: true },
      { objectId: devices[2]!.objectId, ok: false, error: 'WNS 406 dropped', retryable: true },
      { objectId: devices[3]!.objectId, ok: false, error: 'WNS 500', retryable: true },
      { objectId: devices[4]!.objectId, ok: true },
      { objectId: devices[5]!.objectId, ok: false, error: 'WNS: the deviceToken is not a channel URI.', invalidToken: true },
      { objectId: devices[6]!.objectId, ok: false, error: "WNS: the channel URI's host evil.example is not one of --wns-channel-hosts.", invalidToken: true },
    ]);
    await wns.close();
  });

  it('fails every device with a refused client secret, without throwing', async () => {
    const wns = new WnsNetwork({ clientId: credential.clientId, clientSecret: 'wrong' }, endpoints({ wnsTokenUrl: server.tokenUrl }));
    const results = await wns.send([device('winrt', server.channel('w1'))], message({ alert: 'x' }));
    assert.deepEqual(results.map(({ objectId, ...rest }) => rest), [{ ok: false, error: 'WNS: WNS access token refused (400 invalid_client: Invalid client id)' }]);
    await wns.close();
  });
});
