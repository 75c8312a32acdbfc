import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { newServiceAccount, newVapidKeys } from '../../../test/helpers/push-test-keys.ts';
import { endpoints } from '../../../test/helpers/push-devices.ts';
import { PushNetworkProvider, closeSharedNetworks, networkFor, networksOf } from './provider.ts';
import { endpointsOf, hostAllowed } from './endpoints.ts';

describe('push network provider', () => {
  it('maps device types to networks', () => {
    const expected: [string, string | null][] = [['ios', 'apns'], ['osx', 'apns'], ['tvos', 'apns'], ['android', 'fcm'], ['winrt', 'wns'], ['winphone', 'wns'], ['dotnet', 'wns'], ['web', 'webpush'], ['embedded', null], ['toString', null], ['', null]];
    for (const [type, network] of expected) assert.equal(networkFor(type), network, type);
  });

  it('builds the networks an app has credentials for, keeps them, and rebuilds them when the credentials change', async () => {
    const provider = new PushNetworkProvider(endpoints());
    const web = { web: { vapidDetails: { subject: 'mailto:a@example.com', ...newVapidKeys() } } };
    const app = { applicationId: 'app1', settings: { push: web } };
    const first = provider.networksOf(app);
    assert.equal(first.get('webpush')?.name, 'webpush');
    assert.equal(first.get('apns'), null);
    assert.equal(first.missing('apns'), 'The app has no push.ios credentials.');
    assert.equal(first.missing('webpush'), null);
    assert.equal(provider.networksOf({ applicationId: 'app1', settings: { push: structuredClone(web) } }).get('webpush'), first.get('webpush'));
    const changed = provider.networksOf({ applicationId: 'app1', settings: { push: { ...web, android: [{ firebaseServiceAccount: newServiceAccount('p').account }] } } });
    assert.notEqual(changed.get('webpush'), first.get('webpush'));
    assert.equal(changed.get('fcm')?.name, 'fcm');
    const none = provider.networksOf({ applicationId: 'app2', settings: {} });
    assert.deepEqual((['apns', 'fcm', 'wns', 'webpush'] as const).map((name) => none.missing(name)), ['The app has no push.ios credentials.', 'The app has no push.android credentials.', 'The app has no push.windows credentials.', 'The app has no push.web credentials.']);
    await provider.close();
  });

  it('shares one provider per set of server options through networksOf', async () => {
    const options = { apnsUrl: 'https://a', apnsSandboxUrl: 'https://b', fcmUrl: 'https://c', fcmTokenUrl: 'https://d', wnsTokenUrl: 'https://e', wnsChannelHosts: 'notify.windows.com', pushConcurrency: 3 };
    const app = { applicationId: 'shared-app', settings: { push: { windows: { clientId: 'ms-app://x', clientSecret: 's' } } } };
    const first = networksOf(app, options).get('wns');
    assert.equal(first?.name, 'wns');
    assert.equal(networksOf(app, { ...options }).get('wns'), first);
    assert.notEqual(networksOf(app, { ...options, pushConcurrency: 4 }).get('wns'), first);
    await closeSharedNetworks();
    assert.notEqual(networksOf(app, options).get('wns'), first);
    await closeSharedNetworks();
  });

  it('reads the endpoint options, keeping the usual authorities beside an extra CA file', () => {
    const options = { apnsUrl: 'https://a', apnsSandboxUrl: 'https://b', fcmUrl: 'https://c', fcmTokenUrl: 'https://d', wnsTokenUrl: 'https://e', wnsChannelHosts: 'notify.windows.com, Example.test', pushConcurrency: 7 };
    const plain = endpointsOf(options);
    assert.deepEqual(plain, { apnsUrl: 'https://a', apnsSandboxUrl: 'https://b', fcmUrl: 'https://c', fcmTokenUrl: 'https://d', wnsTokenUrl: 'https://e', wnsChannelHosts: ['notify.windows.com', 'example.test'], concurrency: 7 });
    const withCa = endpointsOf({ ...options, pushCaFile: new URL('../../../test/helpers/push-certs/ca.pem', import.meta.url).pathname });
    assert.ok(withCa.ca!.length > 100 && withCa.ca!.at(-1)!.includes('BEGIN CERTIFICATE'));
    assert.equal(hostAllowed(new URL('https://db5.notify.windows.com/?token=x'), plain.wnsChannelHosts), true);
    assert.equal(hostAllowed(new URL('https://notify.windows.com.evil.test/'), plain.wnsChannelHosts), false);
  });
});
