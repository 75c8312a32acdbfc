import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { unique } from '../helpers/client.ts';
import { assertError } from '../helpers/users.ts';
import { apps, createApp, listed, readApp } from '../helpers/apps.ts';
import { CLIENT_CERT, newApnsKey, newServiceAccount, newVapidKeys } from '../helpers/push-test-keys.ts';

/**
 * The app setting `push` (docs/push-networks.md): the delivery networks' credentials, checked when
 * written and never shown again: `/1/apps` shows each secret as "********", and an update that
 * sends the mask back keeps the stored secret.
 */

const MASK = '********';
const apnsKey = newApnsKey().privatePem;
const service = newServiceAccount('basalt-api').account;
const vapid = newVapidKeys();

function credentials() {
  return {
    ios: [
      { token: { key: apnsKey, keyId: 'ABC123DEFG', teamId: 'TEAM123456' }, topic: 'com.example.token', production: true },
      { cert: CLIENT_CERT.cert, key: CLIENT_CERT.key, topic: 'com.example.cert' },
      { pfx: CLIENT_CERT.pfx, passphrase: CLIENT_CERT.passphrase, topic: 'com.example.p12' },
    ],
    android: { firebaseServiceAccount: service },
    windows: { clientId: 'ms-app://s-1-15-2-77', clientSecret: 'wns-client-secret' },
    web: { vapidDetails: { subject: 'mailto:push@example.com', publicKey: vapid.publicKey, privateKey: vapid.privateKey } },
  };
}

const masked = {
  ios: [
    { token: { key: MASK, keyId: 'ABC123DEFG', teamId: 'TEAM123456' }, topic: 'com.example.token', production: true },
    { cert: MASK, key: MASK, topic: 'com.example.cert' },
    { pfx: MASK, passphrase: MASK, topic: 'com.example.p12' },
  ],
  android: [{ firebaseServiceAccount: { ...service, private_key: MASK, private_key_id: MASK } }],
  windows: { clientId: 'ms-app://s-1-15-2-77', clientSecret: MASK },
  web: { vapidDetails: { subject: 'mailto:push@example.com', publicKey: vapid.publicKey, privateKey: MASK } },
};

const SECRETS = [apnsKey, CLIENT_CERT.key, CLIENT_CERT.pfx, CLIENT_CERT.passphrase, service.private_key!, service.private_key_id!, 'wns-client-secret', vapid.privateKey];

function assertNoSecret(text: string, label: string): void {
  for (const secret of SECRETS) assert.ok(!text.includes(secret) && !text.includes(JSON.stringify(secret).slice(1, -1)), `${label} shows a secret`);
}

eachBackend('apps: push credentials', (target) => {
  const base = target.url;

  it('accepts credentials of every network and shows them masked on create, read, list and update', async () => {
    const created = await apps(base, 'POST', '', { body: { appName: unique('push'), push: credentials() } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.push, masked);
    assertNoSecret(created.text, 'POST');
    const id = created.body.applicationId;
    const read = await apps(base, 'GET', `/${id}`);
    assert.deepEqual(read.body.push, masked);
    assertNoSecret(read.text, 'GET');
    const list = await apps(base, 'GET', '');
    assert.deepEqual(list.body.results.find((app: { applicationId: string }) => app.applicationId === id).push, masked);
    assertNoSecret(list.text, 'list');
    const updated = await apps(base, 'PUT', `/${id}`, { body: { sessionLength: 3600 } });
    assert.deepEqual(updated.body.push, masked);
    assertNoSecret(updated.text, 'PUT');
  });

  it('keeps the stored secrets when an update sends back the masked credentials it read', async () => {
    const app = await createApp(base, { push: credentials() });
    const edited = structuredClone(app.push);
    edited.windows.clientId = 'ms-app://s-1-15-2-78';
    edited.ios[0].topic = 'com.example.renamed';
    // The masks stand for a .p8 key, a PEM pair, a .p12 and a VAPID key: stored as "********" they would be refused.
    const response = await apps(base, 'PUT', `/${app.applicationId}`, { body: { push: edited } });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.push, { ...masked, ios: [{ ...masked.ios[0], topic: 'com.example.renamed' }, ...masked.ios.slice(1)], windows: { clientId: 'ms-app://s-1-15-2-78', clientSecret: MASK } });
    assert.deepEqual((await readApp(base, app.applicationId)).push, response.body.push);
  });

  it('removes the credentials with null', async () => {
    const app = await createApp(base, { push: credentials() });
    const response = await apps(base, 'PUT', `/${app.applicationId}`, { body: { push: null } });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.push, null);
    // Nothing stored now: a mask sent for a secret is refused as the wrong value it is.
    const refused = await apps(base, 'PUT', `/${app.applicationId}`, { body: { push: { windows: { clientId: 'ms-app://x', clientSecret: MASK } } } });
    assertError(refused, 400, 107);
    assert.equal(refused.body.error, 'App setting push.windows.clientSecret is the mask /1/apps shows, and no secret is stored there: give the secret itself.');
  });

  it('refuses wrong credentials with 400/107 and a message that names the field, and leaves the app unchanged', async () => {
    const app = await createApp(base, { push: credentials() });
    const marker = unique('push-refused');
    const cases: [unknown, string][] = [
      [{ apns: {} }, 'App setting push has an unknown field "apns" (known: ios, android, windows, web).'],
      [{ ios: { token: { key: 'not a key', keyId: 'K', teamId: 'T' } } }, 'App setting push.ios.token.key must be the text of the .p8 key file (an EC P-256 private key in PEM).'],
      [{ ios: { token: { key: apnsKey, keyId: 'K' } } }, 'App setting push.ios.token.teamId must be a non-empty string.'],
      [{ ios: { topic: 'com.example' } }, 'App setting push.ios must be one of {token: {key, keyId, teamId}}, {pfx, passphrase?} or {cert, key, passphrase?}, with topic? and production?.'],
      [{ android: { apiKey: 'AAAA' } }, 'App setting push.android.apiKey (a legacy FCM server key) is no longer accepted by FCM; give firebaseServiceAccount, the service account JSON of the Firebase project.'],
      [{ android: { firebaseServiceAccount: { ...service, private_key: 'x' } } }, 'App setting push.android.firebaseServiceAccount.private_key must be an RSA private key in PEM.'],
      [{ windows: { clientSecret: 's' } }, 'App setting push.windows.clientId must be the package SID (ms-app://…).'],
      [{ web: { vapidDetails: { subject: 'mailto:a@b.c', publicKey: newVapidKeys().publicKey, privateKey: vapid.privateKey } } }, 'App setting push.web.vapidDetails.publicKey must be the public key of privateKey.'],
      ['apns', 'App setting push must be null or an object {ios?, android?, windows?, web?}.'],
    ];
    for (const [push, error] of cases) {
      const response = await apps(base, 'PUT', `/${app.applicationId}`, { body: { appName: marker, push } });
      assertError(response, 400, 107, JSON.stringify(push).slice(0, 80));
      assert.equal(response.body.error, error);
      const refusedCreate = await apps(base, 'POST', '', { body: { appName: marker, push } });
      assertError(refusedCreate, 400, 107);
    }
    assert.deepEqual(await readApp(base, app.applicationId), app);
    assert.equal((await listed(base)).filter((candidate) => candidate.appName === marker).length, 0);
  });
});
