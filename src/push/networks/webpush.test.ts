import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { WebPushServer } from '../../../test/helpers/webpush-server.ts';
import { newVapidKeys } from '../../../test/helpers/push-test-keys.ts';
import { device, endpoints, message } from '../../../test/helpers/push-devices.ts';
import webpush from 'web-push';
import { WebPushNetwork } from './webpush.ts';

/** Web Push against a local push service that checks the VAPID token and decrypts each payload. */
describe('Web Push', () => {
  let server: WebPushServer;
  const vapidDetails = { subject: 'mailto:push@example.com', ...newVapidKeys() };

  before(async () => {
    server = await WebPushServer.start();
  });
  after(() => server.close());

  const network = () => new WebPushNetwork({ vapidDetails }, endpoints());
  const receivedBy = (id: string) => server.received.filter((entry) => entry.id === id);

  it('delivers the data as encrypted JSON that only the subscription can read, signed with the VAPID key', async () => {
    const web = network();
    const target = device('web', server.subscribe('sub-1'));
    const data = { alert: 'Hello', title: 'Greeting', uri: 'https://example.com/x', badge: 2, custom: { a: 1 } };
    assert.deepEqual(await web.send([target], message(data)), [{ objectId: target.objectId, ok: true }]);
    const [one] = receivedBy('sub-1');
    assert.deepEqual(JSON.parse(one!.plaintext), data);
    assert.equal(one!.vapid.publicKey, vapidDetails.publicKey);
    assert.equal(one!.vapid.claims.sub, 'mailto:push@example.com');
    assert.equal(one!.headers['content-encoding'], 'aes128gcm');
    // Without expiry, four weeks.
    assert.equal(one!.headers.ttl, String(28 * 86_400));
    assert.deepEqual(server.refused, []);
    await web.close();
  });

  it('gives each installation its own badge after "Increment"', async () => {
    const web = network();
    const counted = device('web', server.subscribe('sub-badge'), { badge: 6 });
    const plain = device('web', server.subscribe('sub-plain'));
    await web.send([counted, plain], message({ alert: 'x', badge: 'Increment' }));
    assert.deepEqual(JSON.parse(receivedBy('sub-badge')[0]!.plaintext), { alert: 'x', badge: 6 });
    assert.deepEqual(JSON.parse(receivedBy('sub-plain')[0]!.plaintext), { alert: 'x', badge: 'Increment' });
    await web.close();
  });

  it('signs one VAPID token per push service for many devices, with the app\'s keys even when web-push has global ones', async () => {
    const other = newVapidKeys();
    webpush.setVapidDetails('mailto:other@example.com', other.publicKey, other.privateKey);
    const web = network();
    const devices = ['v1', 'v2', 'v3'].map((id) => device('web', server.subscribe(id)));
    assert.deepEqual((await web.send(devices, message({ alert: 'x' }))).map((result) => result.ok), [true, true, true]);
    const authorizations = new Set(['v1', 'v2', 'v3'].map((id) => receivedBy(id)[0]!.headers.authorization));
    assert.equal(authorizations.size, 1);
    assert.equal(receivedBy('v1')[0]!.vapid.publicKey, vapidDetails.publicKey);
    assert.equal(receivedBy('v1')[0]!.vapid.claims.aud, server.url);
    await web.close();
  });

  it('passes the expiry as TTL', async () => {
    const web = network();
    const target = device('web', server.subscribe('sub-ttl'));
    await web.send([target], message({ alert: 'x' }, new Date(Date.now() + 90_000)));
    const ttl = Number(receivedBy('sub-ttl')[0]!.headers.ttl);
    assert.ok(ttl > 80 && ttl <= 90, String(ttl));
    await web.close();
  });

  it('marks 404, 410 and unreadable subscriptions invalid, 429 retryable with Retry-After, and never throws', async () => {
    const web = network();
    const gone = device('web', server.subscribe('gone'));
    const busy = device('web', server.subscribe('busy'));
    const fine = device('web', server.subscribe('fine'));
    server.script.set('gone', [{ status: 410 }]);
    server.script.set('busy', [{ status: 429, headers: { 'Retry-After': '12' } }]);
    const unknown = device('web', JSON.stringify({ endpoint: `${server.url}/push/never-made`, keys: JSON.parse(fine.deviceToken).keys }));
    const garbage = device('web', '{not json');
    const plainHttp = device('web', JSON.stringify({ endpoint: 'http://127.0.0.1:1/push/x', keys: { p256dh: 'a', auth: 'b' } }));
    const shortKey = device('web', JSON.stringify({ endpoint: `${server.url}/push/fine`, keys: { p256dh: 'AAAA', auth: 'AAAA' } }));
    const results = await web.send([gone, busy, fine, unknown, garbage, plainHttp, shortKey], message({ alert: 'x' }));
    const notSubscription = 'Web Push: the deviceToken is not a PushSubscription (JSON with an https endpoint and keys p256dh and auth).';
    assert.deepEqual(results.slice(0, 5), [
      { objectId: gone.objectId, ok: false, error: 'Web Push 410', invalidToken: true },
      { objectId: busy.objectId, ok: false, error: 'Web Push 429', retryable: true, retryAfterMs: 12_000 },
      { objectId: fine.objectId, ok: true },
      { objectId: unknown.objectId, ok: false, error: 'Web Push 404', invalidToken: true },
      { objectId: garbage.objectId, ok: false, error: notSubscription, invalidToken: true },
    ]);
    assert.deepEqual(results[5], { objectId: plainHttp.objectId, ok: false, error: notSubscription, invalidToken: true });
    assert.equal(results[6]!.ok, false);
    assert.equal(results[6]!.invalidToken, true, JSON.stringify(results[6]));
    await web.close();
  });
});
