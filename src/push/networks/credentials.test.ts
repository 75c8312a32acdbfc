import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CLIENT_CERT, newApnsKey, newServiceAccount, newVapidKeys } from '../../../test/helpers/push-test-keys.ts';
import { MASK, maskPushCredentials, pushCredentialsOf, pushCredentialsProblem, restoreMaskedSecrets } from './credentials.ts';

const apnsKey = newApnsKey().privatePem;
const service = newServiceAccount('basalt-cred').account;
const vapid = newVapidKeys();
const full = {
  ios: [{ token: { key: apnsKey, keyId: 'ABC123DEFG', teamId: 'TEAM123456' }, topic: 'com.example.a', production: true }, { pfx: CLIENT_CERT.pfx, passphrase: CLIENT_CERT.passphrase, topic: 'com.example.b' }],
  android: [{ firebaseServiceAccount: service }, { firebaseServiceAccount: service, senderId: '123456' }],
  windows: { clientId: 'ms-app://s-1-15-2-1', clientSecret: 'secret' },
  web: { vapidDetails: { subject: 'mailto:a@example.com', ...vapid } },
};

describe('push credentials', () => {
  it('accepts every shape, and stores each per-network list as an array', () => {
    assert.equal(pushCredentialsProblem(full), null);
    assert.equal(pushCredentialsProblem(null), null);
    assert.equal(pushCredentialsProblem({}), null);
    const single = { ios: { cert: CLIENT_CERT.cert, key: CLIENT_CERT.key, bundleId: 'com.example.c' }, android: { firebaseServiceAccount: service } };
    assert.equal(pushCredentialsProblem(single), null);
    assert.deepEqual(pushCredentialsOf(single), { ios: [{ cert: CLIENT_CERT.cert, key: CLIENT_CERT.key, topic: 'com.example.c' }], android: [{ firebaseServiceAccount: service }] });
  });

  it('says which field is wrong and why', () => {
    const otherKey = newVapidKeys();
    const cases: [unknown, string][] = [
      ['apns', 'App setting push must be null or an object {ios?, android?, windows?, web?}.'],
      [{ apns: {} }, 'App setting push has an unknown field "apns" (known: ios, android, windows, web).'],
      [{ ios: {} }, 'App setting push.ios must be one of {token: {key, keyId, teamId}}, {pfx, passphrase?} or {cert, key, passphrase?}, with topic? and production?.'],
      [{ ios: [] }, 'App setting push.ios must be an object or an array of 1 to 50 objects.'],
      [{ ios: { token: { key: 'nope', keyId: 'K', teamId: 'T' } } }, 'App setting push.ios.token.key must be the text of the .p8 key file (an EC P-256 private key in PEM).'],
      [{ ios: { token: { key: service.private_key, keyId: 'K', teamId: 'T' } } }, 'App setting push.ios.token.key must be the text of the .p8 key file (an EC P-256 private key in PEM).'],
      [{ ios: [{ token: { key: apnsKey, keyId: 'K', teamId: 'T' } }, { token: { key: apnsKey, teamId: 'T' } }] }, 'App setting push.ios[1].token.keyId must be a non-empty string.'],
      [{ ios: { token: { key: apnsKey, keyId: 'K', teamId: 'T' }, production: 'yes' } }, 'App setting push.ios.production must be a boolean.'],
      [{ ios: [{ token: { key: apnsKey, keyId: 'K', teamId: 'T' } }, { token: { key: apnsKey, keyId: 'K', teamId: 'T' } }] }, 'App setting push.ios has two entries for the same topic (or two without one).'],
      [{ ios: { pfx: CLIENT_CERT.pfx, passphrase: 'wrong' } }, 'App setting push.ios must be a certificate and key that load together'],
      [{ ios: { cert: CLIENT_CERT.cert } }, 'App setting push.ios.key must be a PEM private key (with cert).'],
      [{ android: { apiKey: 'AAAA' } }, 'App setting push.android.apiKey (a legacy FCM server key) is no longer accepted by FCM; give firebaseServiceAccount, the service account JSON of the Firebase project.'],
      [{ android: { firebaseServiceAccount: 'file.json' } }, 'App setting push.android.firebaseServiceAccount must be an object: the content of the service account JSON file.'],
      [{ android: { firebaseServiceAccount: { ...service, private_key: apnsKey } } }, 'App setting push.android.firebaseServiceAccount.private_key must be an RSA private key in PEM.'],
      [{ android: { firebaseServiceAccount: { ...service, project_id: '' } } }, 'App setting push.android.firebaseServiceAccount.project_id must be a non-empty string.'],
      [{ android: { firebaseServiceAccount: service, senderId: 12 } }, 'App setting push.android.senderId must be the GCMSenderId of the installations it serves.'],
      [{ windows: { clientId: 'ms-app://x' } }, 'App setting push.windows.clientSecret must be a non-empty string.'],
      [{ web: { vapidDetails: { subject: 'me', ...vapid } } }, 'App setting push.web.vapidDetails.subject must be a mailto: or https: URL.'],
      [{ web: { vapidDetails: { subject: 'mailto:a@b.c', publicKey: 'short', privateKey: vapid.privateKey } } }, 'App setting push.web.vapidDetails.publicKey must be a P-256 public key, 65 bytes in base64url (as web-push generateVAPIDKeys gives).'],
      [{ web: { vapidDetails: { subject: 'mailto:a@b.c', publicKey: otherKey.publicKey, privateKey: vapid.privateKey } } }, 'App setting push.web.vapidDetails.publicKey must be the public key of privateKey.'],
    ];
    cases.push([{ windows: { clientId: 'ms-app://x', clientSecret: MASK } }, 'App setting push.windows.clientSecret is the mask /1/apps shows, and no secret is stored there: give the secret itself.']);
    cases.push([{ android: [full.android[0], { firebaseServiceAccount: { ...service, private_key_id: MASK }, senderId: '9' }] }, 'App setting push.android[1].firebaseServiceAccount.private_key_id is the mask /1/apps shows, and no secret is stored there: give the secret itself.']);
    for (const [value, message] of cases) {
      const problem = pushCredentialsProblem(value);
      assert.ok(problem?.startsWith(message.replace(/\.$/, '')), `${JSON.stringify(value).slice(0, 120)}\n  got: ${problem}\n  expected: ${message}`);
    }
  });

  it('masks every secret and shows the rest', () => {
    const shown = maskPushCredentials(pushCredentialsOf(full)) as any;
    assert.deepEqual(shown.ios, [
      { token: { key: MASK, keyId: 'ABC123DEFG', teamId: 'TEAM123456' }, topic: 'com.example.a', production: true },
      { pfx: MASK, passphrase: MASK, topic: 'com.example.b' },
    ]);
    assert.deepEqual(shown.android[1], { firebaseServiceAccount: { ...service, private_key: MASK, private_key_id: MASK }, senderId: '123456' });
    assert.deepEqual(shown.windows, { clientId: 'ms-app://s-1-15-2-1', clientSecret: MASK });
    assert.deepEqual(shown.web, { vapidDetails: { subject: 'mailto:a@example.com', publicKey: vapid.publicKey, privateKey: MASK } });
    assert.ok(!JSON.stringify(shown).includes('PRIVATE KEY'));
    assert.equal(maskPushCredentials(null), null);
  });

  it('puts the stored secrets back where an update sends the mask, and leaves a mask with nothing stored', () => {
    const stored = pushCredentialsOf(full);
    const edited = maskPushCredentials(stored) as any;
    edited.windows.clientId = 'ms-app://s-1-15-2-2';
    const restored = restoreMaskedSecrets(edited, stored) as any;
    assert.deepEqual(restored, { ...stored, windows: { clientId: 'ms-app://s-1-15-2-2', clientSecret: 'secret' } });
    // A single object in the body for a stored list of one.
    const single = pushCredentialsOf({ windows: full.windows, ios: full.ios[0] });
    assert.deepEqual((restoreMaskedSecrets({ ios: { token: { key: MASK, keyId: 'NEW', teamId: 'T' } } }, single) as any).ios.token.key, apnsKey);
    assert.deepEqual(restoreMaskedSecrets({ web: { vapidDetails: { subject: 'mailto:x@y.z', publicKey: vapid.publicKey, privateKey: MASK } } }, {}), { web: { vapidDetails: { subject: 'mailto:x@y.z', publicKey: vapid.publicKey, privateKey: MASK } } });
  });
});
