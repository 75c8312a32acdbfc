import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FcmServer } from '../../../test/helpers/fcm-wns-servers.ts';
import { newServiceAccount } from '../../../test/helpers/push-test-keys.ts';
import { device, endpoints, message, testClock } from '../../../test/helpers/push-devices.ts';
import { FcmNetwork } from './fcm.ts';
import type { FcmCredential } from './credentials.ts';

/** FCM HTTP v1 against a local OAuth2 token endpoint (checking the RS256 assertion) and messages:send. */
describe('FCM', () => {
  let server: FcmServer;
  const main = newServiceAccount('basalt-main');
  const sender = newServiceAccount('basalt-sender');

  before(async () => {
    server = await FcmServer.start();
    for (const { account, publicKey } of [main, sender]) server.accounts.set(account.client_email!, { publicKey, projectId: account.project_id! });
  });
  after(() => server.close());

  const network = (credentials: FcmCredential[], clock = testClock()) => new FcmNetwork(credentials, endpoints({ fcmUrl: server.url, fcmTokenUrl: server.tokenUrl }), clock.now);
  const credential = { firebaseServiceAccount: main.account } as unknown as FcmCredential;
  const receivedBy = (token: string) => server.received.filter((entry) => entry.message.token === token);

  it('delivers: notification from alert and title, every data value a string, the Parse payload, android options', async () => {
    const fcm = network([credential]);
    const target = device('android', 'fcm-token-1');
    const data = { alert: 'Hello', title: 'Greeting', sound: 'bell', badge: 3, action: 'com.example.OPEN', uri: 'https://example.com/x', count: 7, nested: { a: [1] }, flag: true };
    const sent = message(data);
    assert.deepEqual(await fcm.send([target], sent), [{ objectId: target.objectId, ok: true }]);
    const [one] = receivedBy('fcm-token-1');
    assert.equal(one!.projectId, 'basalt-main');
    const { time, ...strings } = one!.message.data;
    assert.match(time, /^\d{4}-\d\d-\d\dT/);
    assert.deepEqual(strings, {
      alert: 'Hello',
      title: 'Greeting',
      sound: 'bell',
      badge: '3',
      action: 'com.example.OPEN',
      uri: 'https://example.com/x',
      count: '7',
      nested: '{"a":[1]}',
      flag: 'true',
      data: JSON.stringify(data),
      push_id: sent.pushStatusId,
    });
    assert.deepEqual(one!.message.notification, { title: 'Greeting', body: 'Hello' });
    assert.deepEqual(one!.message.android, { priority: 'high', notification: { sound: 'bell', click_action: 'com.example.OPEN', notification_count: 3 } });
    // The installation's badge after "Increment" is the count shown.
    const counted = device('android', 'fcm-token-badge', { badge: 9 });
    await fcm.send([counted], message({ alert: 'More', badge: 'Increment' }));
    assert.equal(receivedBy('fcm-token-badge')[0]!.message.android.notification.notification_count, 9);
    await fcm.close();
  });

  it('sends a message without alert or title as data only, and the expiry as android.ttl', async () => {
    const fcm = network([credential]);
    const target = device('android', 'fcm-token-2');
    const expiresAt = new Date(Date.now() + 7200_000);
    await fcm.send([target], message({ 'content-available': 1, sync: 'inbox' }, expiresAt));
    const [one] = receivedBy('fcm-token-2');
    assert.equal(one!.message.notification, undefined);
    assert.equal(one!.message.android.priority, 'normal');
    const ttl = Number(/^(\d+)s$/.exec(one!.message.android.ttl)?.[1]);
    assert.ok(ttl > 7100 && ttl <= 7200, one!.message.android.ttl);
    await fcm.close();
  });

  it('asks for one access token and reuses it until five minutes before it expires', async () => {
    const clock = testClock();
    const fcm = network([credential], clock);
    const before = server.tokenRequests;
    await Promise.all([fcm.send([device('android', 'a1'), device('android', 'a2'), device('android', 'a3')], message({ alert: 'x' })), fcm.send([device('android', 'a4')], message({ alert: 'y' }))]);
    assert.equal(server.tokenRequests, before + 1);
    clock.advance(54 * 60_000);
    await fcm.send([device('android', 'a5')], message({ alert: 'z' }));
    assert.equal(server.tokenRequests, before + 1);
    clock.advance(2 * 60_000);
    await fcm.send([device('android', 'a6')], message({ alert: 'z' }));
    assert.equal(server.tokenRequests, before + 2);
    // A token refused with 401 (revoked) is replaced once, and the message goes through.
    server.revokeTokens();
    assert.deepEqual((await fcm.send([device('android', 'a7')], message({ alert: 'z' })))[0]!.ok, true);
    assert.equal(server.tokenRequests, before + 3);
    await fcm.close();
  });

  it('marks UNREGISTERED and INVALID_ARGUMENT on the token invalid; other errors are failures, retryable for 429 and 5xx', async () => {
    const fcm = network([credential]);
    const details = (errorCode: string, extra: object[] = []) => [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode }, ...extra];
    server.script.set('gone', [{ status: 404, body: { error: { code: 404, status: 'NOT_FOUND', message: 'Requested entity was not found.', details: details('UNREGISTERED') } } }]);
    server.script.set('garbled', [{ status: 400, body: { error: { code: 400, status: 'INVALID_ARGUMENT', message: 'The registration token is not a valid FCM registration token', details: details('INVALID_ARGUMENT') } } }]);
    server.script.set('big', [{ status: 400, body: { error: { code: 400, status: 'INVALID_ARGUMENT', message: 'Message is too big', details: details('INVALID_ARGUMENT') } } }]);
    server.script.set('busy', [{ status: 429, headers: { 'Retry-After': '30' }, body: { error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded', details: details('QUOTA_EXCEEDED') } } }]);
    server.script.set('down', [{ status: 503, body: { error: { code: 503, status: 'UNAVAILABLE', message: 'The service is currently unavailable.' } } }]);
    const devices = ['gone', 'garbled', 'big', 'busy', 'down', 'fine'].map((token) => device('android', token));
    assert.deepEqual(await fcm.send(devices, message({ alert: 'x' })), [
      { objectId: devices[0]!.objectId, ok: false, error: 'FCM 404 UNREGISTERED: Requested entity was not found.', invalidToken: true },
      { objectId: devices[1]!.objectId, ok: false, error: 'FCM 400 INVALID_ARGUMENT: The registration token is not a valid FCM registration token', invalidToken: true },
      { objectId: devices[2]!.objectId, ok: false, error: 'FCM 400 INVALID_ARGUMENT: Message is too big' },
      { objectId: devices[3]!.objectId, ok: false, error: 'FCM 429 QUOTA_EXCEEDED: Quota exceeded', retryable: true, retryAfterMs: 30_000 },
      { objectId: devices[4]!.objectId, ok: false, error: 'FCM 503 UNAVAILABLE: The service is currently unavailable.', retryable: true },
      { objectId: devices[5]!.objectId, ok: true },
    ]);
    await fcm.close();
  });

  it('uses the credential of a gcm installation\'s GCMSenderId, the default for the others', async () => {
    const fcm = network([credential, { firebaseServiceAccount: sender.account, senderId: '98765' } as unknown as FcmCredential]);
    const own = device('android', 'by-sender', { pushType: 'gcm', GCMSenderId: '98765' });
    const plain = device('android', 'by-default');
    const unknown = device('android', 'other-sender', { pushType: 'gcm', GCMSenderId: '11111' });
    const results = await fcm.send([own, plain, unknown], message({ alert: 'x' }));
    assert.deepEqual(results.map((result) => result.ok), [true, true, true]);
    assert.equal(receivedBy('by-sender')[0]!.projectId, 'basalt-sender');
    assert.equal(receivedBy('by-default')[0]!.projectId, 'basalt-main');
    assert.equal(receivedBy('other-sender')[0]!.projectId, 'basalt-main');
    const onlySender = network([{ firebaseServiceAccount: sender.account, senderId: '98765' } as unknown as FcmCredential, { firebaseServiceAccount: main.account, senderId: '4444' } as unknown as FcmCredential]);
    assert.deepEqual(await onlySender.send([plain], message({ alert: 'x' })), [{ objectId: plain.objectId, ok: false, error: 'No android push credentials for the GCMSenderId null.' }]);
    await Promise.all([fcm.close(), onlySender.close()]);
  });

  it('fails with a retryable error when FCM cannot be reached', async () => {
    const fcm = new FcmNetwork([credential], endpoints({ fcmTokenUrl: server.tokenUrl }));
    const [result] = await fcm.send([device('android', 'unreachable')], message({ alert: 'x' }));
    assert.equal(result!.ok, false);
    assert.equal(result!.retryable, true);
    assert.match(result!.error!, /^FCM: connect ECONNREFUSED 127\.0\.0\.1:9$/);
    await fcm.close();
  });

  it('fails every device with the token endpoint\'s refusal, asking it once per page, without throwing', async () => {
    const stranger = newServiceAccount('basalt-unknown');
    const fcm = network([{ firebaseServiceAccount: stranger.account } as unknown as FcmCredential]);
    const before = server.tokenRequests;
    const results = await fcm.send([device('android', 'u1'), device('android', 'u2')], message({ alert: 'x' }));
    assert.deepEqual(
      results.map(({ objectId, ...rest }) => rest),
      [1, 2].map(() => ({ ok: false, error: 'FCM: FCM OAuth token refused (400 invalid_grant: Invalid JWT Signature.)' })),
    );
    assert.equal(server.tokenRequests, before + 1);
    await fcm.close();
  });
});
