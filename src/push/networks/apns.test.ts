import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApnsServer } from '../../../test/helpers/apns-server.ts';
import { CLIENT_CERT, newApnsKey } from '../../../test/helpers/push-test-keys.ts';
import { apnsToken, device, endpoints, message, testClock } from '../../../test/helpers/push-devices.ts';
import { ApnsNetwork } from './apns.ts';

/** APNs against a local HTTP/2 server that checks the provider token's signature and the headers. */
describe('APNs', () => {
  let server: ApnsServer;
  const key = newApnsKey();
  const token = { key: key.privatePem, keyId: 'KEY1234567', teamId: 'TEAM123456' };

  before(async () => {
    server = await ApnsServer.start();
    server.keys.set(token.keyId, { publicKey: key.publicKey, teamId: token.teamId });
  });
  after(() => server.close());

  const network = (credentials: object[], clock = testClock()) => new ApnsNetwork(credentials, endpoints({ apnsUrl: server.url, apnsSandboxUrl: server.url }), clock.now);
  const receivedBy = (deviceToken: string) => server.received.filter((entry) => entry.deviceToken === deviceToken);

  it('delivers with token auth: the aps mapping, custom keys at the top level, and the headers', async () => {
    const apns = network([{ token, topic: 'com.example.app' }]);
    const [first, second] = [device('ios', apnsToken(), { badge: 4 }), device('ios', apnsToken())];
    const data = { alert: 'Hello', title: 'Greeting', sound: 'ping.caf', badge: 'Increment', category: 'MSG', 'content-available': 1, 'mutable-content': true, uri: 'https://example.com/x', action: 'com.example.OPEN', score: { n: 1 } };
    const results = await apns.send([first, second], message(data));
    assert.deepEqual(results, [{ objectId: first.objectId, ok: true }, { objectId: second.objectId, ok: true }]);
    const [one] = receivedBy(first.deviceToken);
    assert.deepEqual(one!.payload, {
      uri: 'https://example.com/x',
      action: 'com.example.OPEN',
      score: { n: 1 },
      aps: { alert: { body: 'Hello', title: 'Greeting' }, sound: 'ping.caf', badge: 4, category: 'MSG', 'content-available': 1, 'mutable-content': 1 },
    });
    assert.equal(one!.auth, `token:${token.keyId}`);
    assert.equal(one!.headers['apns-topic'], 'com.example.app');
    assert.equal(one!.headers['apns-push-type'], 'alert');
    assert.equal(one!.headers['apns-priority'], '10');
    assert.equal(one!.headers['apns-expiration'], undefined);
    assert.equal(one!.headers['apns-collapse-id'], undefined);
    // The second installation has no stored badge: "Increment" gives it none.
    assert.deepEqual(receivedBy(second.deviceToken)[0]!.payload.aps.badge, undefined);
    await apns.close();
  });

  it('sends content-available alone as a background push with priority 5, and a plain alert as text', async () => {
    const apns = network([{ token, topic: 'com.example.app' }]);
    const silent = device('ios', apnsToken());
    const plain = device('ios', apnsToken());
    await apns.send([silent], message({ 'content-available': 1, sync: 'inbox' }));
    await apns.send([plain], message({ alert: 'Just text', badge: 2 }));
    const [background] = receivedBy(silent.deviceToken);
    assert.deepEqual(background!.payload, { sync: 'inbox', aps: { 'content-available': 1 } });
    assert.equal(background!.headers['apns-push-type'], 'background');
    assert.equal(background!.headers['apns-priority'], '5');
    assert.deepEqual(receivedBy(plain.deviceToken)[0]!.payload, { aps: { alert: 'Just text', badge: 2 } });
    await apns.close();
  });

  it('passes the expiry as apns-expiration and collapse_id as apns-collapse-id, not in the payload', async () => {
    const apns = network([{ token, topic: 'com.example.app' }]);
    const target = device('ios', apnsToken());
    const expiresAt = new Date(Date.now() + 3_600_000);
    const results = await apns.send([target], message({ alert: 'Sale', collapse_id: 'sale-1' }, expiresAt));
    assert.equal(results[0]!.ok, true);
    const [one] = receivedBy(target.deviceToken);
    assert.equal(one!.headers['apns-expiration'], String(Math.floor(expiresAt.getTime() / 1000)));
    assert.equal(one!.headers['apns-collapse-id'], 'sale-1');
    assert.deepEqual(one!.payload, { aps: { alert: 'Sale' } });
    await apns.close();
  });

  it('answers one result per device, marking 410, BadDeviceToken and malformed tokens invalid, and never throws', async () => {
    const apns = network([{ token, topic: 'com.example.app' }]);
    const gone = device('ios', apnsToken());
    const bad = device('ios', apnsToken());
    const otherTopic = device('ios', apnsToken());
    const busy = device('ios', apnsToken());
    const good = device('ios', apnsToken());
    const malformed = device('ios', 'not-a-token/../../x');
    server.script.set(gone.deviceToken, [{ status: 410, reason: 'Unregistered' }]);
    server.script.set(bad.deviceToken, [{ status: 400, reason: 'BadDeviceToken' }]);
    server.script.set(otherTopic.deviceToken, [{ status: 400, reason: 'DeviceTokenNotForTopic' }]);
    server.script.set(busy.deviceToken, [{ status: 429, reason: 'TooManyRequests' }]);
    const results = await apns.send([gone, bad, otherTopic, busy, good, malformed], message({ alert: 'x' }));
    assert.deepEqual(results, [
      { objectId: gone.objectId, ok: false, error: 'APNs 410 Unregistered', invalidToken: true },
      { objectId: bad.objectId, ok: false, error: 'APNs 400 BadDeviceToken', invalidToken: true },
      { objectId: otherTopic.objectId, ok: false, error: 'APNs 400 DeviceTokenNotForTopic' },
      { objectId: busy.objectId, ok: false, error: 'APNs 429 TooManyRequests', retryable: true },
      { objectId: good.objectId, ok: true },
      { objectId: malformed.objectId, ok: false, error: 'APNs: the deviceToken is not a hexadecimal APNs token.', invalidToken: true },
    ]);
    assert.equal(receivedBy(malformed.deviceToken).length, 0);
    await apns.close();
  });

  it('reuses the provider token until it is 50 minutes old, and signs a new one after ExpiredProviderToken', async () => {
    const clock = testClock();
    const apns = network([{ token, topic: 'com.example.app' }], clock);
    const seen = () => new Set(server.received.filter((entry) => entry.auth === `token:${token.keyId}`).map((entry) => entry.headers.authorization));
    const before = seen().size;
    await apns.send([device('ios', apnsToken())], message({ alert: '1' }));
    clock.advance(49 * 60_000);
    await apns.send([device('ios', apnsToken())], message({ alert: '2' }));
    assert.equal(seen().size, before + 1, 'one token for the first 50 minutes');
    clock.advance(2 * 60_000);
    await apns.send([device('ios', apnsToken())], message({ alert: '3' }));
    assert.equal(seen().size, before + 2, 'a new token after 50 minutes');

    const expired = device('ios', apnsToken());
    server.script.set(expired.deviceToken, [{ status: 403, reason: 'ExpiredProviderToken' }, { status: 200 }]);
    assert.deepEqual(await apns.send([expired], message({ alert: '4' })), [{ objectId: expired.objectId, ok: true }]);
    assert.equal(receivedBy(expired.deviceToken).length, 2);
    assert.notEqual(receivedBy(expired.deviceToken)[0]!.headers.authorization, receivedBy(expired.deviceToken)[1]!.headers.authorization);
    await apns.close();
  });

  it('keeps one HTTP/2 connection for many sends, and opens another after GOAWAY', async () => {
    const apns = network([{ token, topic: 'com.example.app' }]);
    const start = server.connections;
    await apns.send(Array.from({ length: 10 }, () => device('ios', apnsToken())), message({ alert: 'a' }));
    await apns.send(Array.from({ length: 10 }, () => device('ios', apnsToken())), message({ alert: 'b' }));
    assert.equal(server.connections, start + 1);
    await server.goAway();
    const results = await apns.send([device('ios', apnsToken())], message({ alert: 'c' }));
    assert.equal(results[0]!.ok, true, JSON.stringify(results));
    assert.equal(server.connections, start + 2);
    await apns.close();
  });

  it('reports a provider token APNs cannot verify as a failure of each device, not of its token', async () => {
    const impostor = network([{ token: { ...token, key: newApnsKey().privatePem }, topic: 'com.example.app' }]);
    const target = device('ios', apnsToken());
    assert.deepEqual(await impostor.send([target], message({ alert: 'x' })), [{ objectId: target.objectId, ok: false, error: 'APNs 403 InvalidProviderToken' }]);
    assert.equal(receivedBy(target.deviceToken).length, 0);
    await impostor.close();
  });

  it('keeps at most --push-concurrency streams in flight, over one connection', async () => {
    const apns = new ApnsNetwork([{ token, topic: 'com.example.app' }], endpoints({ apnsUrl: server.url, apnsSandboxUrl: server.url, concurrency: 3 }));
    server.answerDelayMs = 20;
    server.maxInFlight = 0;
    const start = server.connections;
    try {
      const results = await apns.send(Array.from({ length: 12 }, () => device('ios', apnsToken())), message({ alert: 'many' }));
      assert.equal(results.filter((result) => result.ok).length, 12);
    } finally {
      server.answerDelayMs = 0;
    }
    assert.equal(server.maxInFlight, 3);
    assert.equal(server.connections, start + 1);
    await apns.close();
  });

  it('authenticates with a client certificate (PEM pair or .p12), on the endpoint of production or sandbox', async () => {
    const production = new ApnsNetwork(
      [{ cert: CLIENT_CERT.cert, key: CLIENT_CERT.key, topic: 'com.example.pem', production: true }, { pfx: CLIENT_CERT.pfx, passphrase: CLIENT_CERT.passphrase, topic: 'com.example.p12', production: true }],
      endpoints({ apnsUrl: server.url }),
    );
    const pem = device('ios', apnsToken(), { appIdentifier: 'com.example.pem' });
    const p12 = device('tvos', apnsToken(), { appIdentifier: 'com.example.p12' });
    assert.deepEqual(await production.send([pem, p12], message({ alert: 'c' })), [{ objectId: pem.objectId, ok: true }, { objectId: p12.objectId, ok: true }]);
    assert.equal(receivedBy(pem.deviceToken)[0]!.auth, 'cert:Apple Push Services: com.example.basalt');
    assert.equal(receivedBy(pem.deviceToken)[0]!.headers['apns-topic'], 'com.example.pem');
    assert.equal(receivedBy(p12.deviceToken)[0]!.headers['apns-topic'], 'com.example.p12');
    await production.close();

    // Without production: true the sandbox endpoint is used; here nothing listens there.
    const sandbox = new ApnsNetwork([{ cert: CLIENT_CERT.cert, key: CLIENT_CERT.key, topic: 'com.example.pem' }], endpoints({ apnsUrl: server.url }));
    const [result] = await sandbox.send([pem], message({ alert: 'd' }));
    assert.equal(result!.ok, false);
    assert.equal(result!.retryable, true);
    assert.match(result!.error!, /^APNs: .*ECONNREFUSED/);
    await sandbox.close();
  });

  it('picks the credential of the device bundle id, and says which bundle id has none', async () => {
    const apns = network([{ token, topic: 'com.example.one' }, { token, topic: 'com.example.two' }]);
    const two = device('ios', apnsToken(), { appIdentifier: 'com.example.two' });
    const stranger = device('ios', apnsToken(), { appIdentifier: 'com.example.three' });
    assert.deepEqual(await apns.send([two, stranger], message({ alert: 'x' })), [
      { objectId: two.objectId, ok: true },
      { objectId: stranger.objectId, ok: false, error: 'No ios push credentials for the bundle id "com.example.three".' },
    ]);
    assert.equal(receivedBy(two.deviceToken)[0]!.headers['apns-topic'], 'com.example.two');
    // Without a topic in the credential, the installation's appIdentifier is the topic.
    const any = network([{ token }]);
    const own = device('osx', apnsToken(), { appIdentifier: 'com.example.mac' });
    assert.equal((await any.send([own], message({ alert: 'x' })))[0]!.ok, true);
    assert.equal(receivedBy(own.deviceToken)[0]!.headers['apns-topic'], 'com.example.mac');
    await Promise.all([apns.close(), any.close()]);
  });
});
