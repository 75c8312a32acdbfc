import { createECDH, createPrivateKey } from 'node:crypto';
import { createSecureContext } from 'node:tls';

/**
 * The app setting `push`: per-app credentials of the delivery networks, in the shapes of Parse
 * Server's push adapter options so that apps moving over recognise them. Written through
 * `/1/apps`, never read back: `maskPushCredentials` is what `/1/apps` shows.
 */

export interface ApnsTokenKey {
  /** The text of the `.p8` file: an EC P-256 private key in PEM. */
  readonly key: string;
  readonly keyId: string;
  readonly teamId: string;
}

export interface ApnsCredential {
  readonly token?: ApnsTokenKey;
  /** A PKCS#12 bundle (`.p12`), base64: certificate auth. */
  readonly pfx?: string;
  /** PEM certificate and private key: certificate auth without a bundle. */
  readonly cert?: string;
  readonly key?: string;
  readonly passphrase?: string;
  /** The bundle id; without it, each installation's `appIdentifier`. */
  readonly topic?: string;
  /** Production endpoint; false (Parse Server's default): the sandbox. */
  readonly production?: boolean;
}

export interface GoogleServiceAccount {
  readonly project_id: string;
  readonly private_key: string;
  readonly client_email: string;
  readonly private_key_id?: string;
  readonly [field: string]: unknown;
}

export interface FcmCredential {
  readonly firebaseServiceAccount: GoogleServiceAccount;
  /** The `GCMSenderId` of the installations this entry serves; the entry without one serves the rest. */
  readonly senderId?: string;
}

export interface WnsCredential {
  /** The package SID (`ms-app://…`). */
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface WebPushCredential {
  readonly vapidDetails: { readonly subject: string; readonly publicKey: string; readonly privateKey: string };
}

export interface PushCredentials {
  readonly ios?: readonly ApnsCredential[];
  readonly android?: readonly FcmCredential[];
  readonly windows?: WnsCredential;
  readonly web?: WebPushCredential;
}

/** What `/1/apps` shows in place of a secret. Sending it back in an update keeps the stored value. */
export const MASK = '********';

const MAX_ENTRIES = 50;
const MAX_TEXT = 20_000;

class Problem extends Error {}

function fail(path: string, expects: string): never {
  throw new Problem(`${path} must be ${expects}`);
}

function fields(value: unknown, path: string, allowed: readonly string[], expects = 'an object'): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(path, expects);
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    if (!allowed.includes(key)) throw new Problem(`${path} has an unknown field ${JSON.stringify(key.slice(0, 80))} (known: ${allowed.join(', ')})`);
  }
  return object;
}

function text(value: unknown, path: string, expects = 'a non-empty string'): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_TEXT) fail(path, expects);
  return value;
}

function optionalText(value: unknown, path: string): void {
  if (value !== undefined) text(value, path);
}

function entries(value: unknown, path: string): { value: unknown; path: string }[] {
  if (!Array.isArray(value)) return [{ value, path }];
  if (value.length === 0 || value.length > MAX_ENTRIES) fail(path, `an object or an array of 1 to ${MAX_ENTRIES} objects`);
  return value.map((item, index) => ({ value: item, path: `${path}[${index}]` }));
}

function privateKeyOf(pem: string, path: string, type: 'ec' | 'rsa', expects: string): void {
  try {
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType !== type) fail(path, expects);
    if (type === 'ec' && key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') fail(path, expects);
  } catch (error) {
    if (error instanceof Problem) throw error;
    fail(path, expects);
  }
}

function checkApns(value: unknown, path: string): ApnsCredential {
  const entry = fields(value, path, ['token', 'pfx', 'cert', 'key', 'passphrase', 'topic', 'production', 'bundleId']);
  const ways = [entry.token !== undefined, entry.pfx !== undefined, entry.cert !== undefined || entry.key !== undefined].filter(Boolean).length;
  if (ways !== 1) fail(path, 'one of {token: {key, keyId, teamId}}, {pfx, passphrase?} or {cert, key, passphrase?}, with topic? and production?');
  if (entry.production !== undefined && typeof entry.production !== 'boolean') fail(`${path}.production`, 'a boolean');
  // Parse Server's older name for the topic.
  const topic = entry.topic ?? entry.bundleId;
  optionalText(topic, `${path}.topic`);
  optionalText(entry.passphrase, `${path}.passphrase`);
  const common = { ...(topic !== undefined ? { topic: topic as string } : {}), ...(entry.production !== undefined ? { production: entry.production as boolean } : {}) };
  if (entry.token !== undefined) {
    const token = fields(entry.token, `${path}.token`, ['key', 'keyId', 'teamId']);
    const key = text(token.key, `${path}.token.key`, 'the text of the .p8 key file (an EC P-256 private key in PEM)');
    privateKeyOf(key, `${path}.token.key`, 'ec', 'the text of the .p8 key file (an EC P-256 private key in PEM)');
    return { token: { key, keyId: text(token.keyId, `${path}.token.keyId`), teamId: text(token.teamId, `${path}.token.teamId`) }, ...common };
  }
  const passphrase = entry.passphrase as string | undefined;
  try {
    if (entry.pfx !== undefined) {
      const pfx = text(entry.pfx, `${path}.pfx`, 'the .p12 file in base64');
      createSecureContext({ pfx: Buffer.from(pfx, 'base64'), ...(passphrase !== undefined ? { passphrase } : {}) });
      return { pfx, ...(passphrase !== undefined ? { passphrase } : {}), ...common };
    }
    const cert = text(entry.cert, `${path}.cert`, 'a PEM certificate (with key)');
    const key = text(entry.key, `${path}.key`, 'a PEM private key (with cert)');
    createSecureContext({ cert, key, ...(passphrase !== undefined ? { passphrase } : {}) });
    return { cert, key, ...(passphrase !== undefined ? { passphrase } : {}), ...common };
  } catch (error) {
    if (error instanceof Problem) throw error;
    fail(path, `a certificate and key that load together (${(error as Error).message})`);
  }
}

function checkFcm(value: unknown, path: string): FcmCredential {
  const entry = fields(value, path, ['firebaseServiceAccount', 'senderId', 'apiKey']);
  if (entry.apiKey !== undefined) throw new Problem(`${path}.apiKey (a legacy FCM server key) is no longer accepted by FCM; give firebaseServiceAccount, the service account JSON of the Firebase project`);
  const account = entry.firebaseServiceAccount;
  if (typeof account !== 'object' || account === null || Array.isArray(account)) fail(`${path}.firebaseServiceAccount`, 'an object: the content of the service account JSON file');
  const service = account as Record<string, unknown>;
  text(service.project_id, `${path}.firebaseServiceAccount.project_id`);
  text(service.client_email, `${path}.firebaseServiceAccount.client_email`);
  const key = text(service.private_key, `${path}.firebaseServiceAccount.private_key`, 'an RSA private key in PEM');
  privateKeyOf(key, `${path}.firebaseServiceAccount.private_key`, 'rsa', 'an RSA private key in PEM');
  optionalText(service.private_key_id, `${path}.firebaseServiceAccount.private_key_id`);
  if (entry.senderId !== undefined && (typeof entry.senderId !== 'string' || !/^[0-9A-Za-z_-]{1,100}$/.test(entry.senderId))) fail(`${path}.senderId`, 'the GCMSenderId of the installations it serves');
  return { firebaseServiceAccount: service as GoogleServiceAccount, ...(entry.senderId !== undefined ? { senderId: entry.senderId as string } : {}) };
}

function checkWns(value: unknown, path: string): WnsCredential {
  const entry = fields(value, path, ['clientId', 'clientSecret']);
  return { clientId: text(entry.clientId, `${path}.clientId`, 'the package SID (ms-app://…)'), clientSecret: text(entry.clientSecret, `${path}.clientSecret`) };
}

function base64url(value: unknown, path: string, bytes: number, expects: string): Buffer {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]+={0,2}$/.test(value)) fail(path, expects);
  const decoded = Buffer.from(value, 'base64url');
  if (decoded.length !== bytes) fail(path, expects);
  return decoded;
}

function checkWeb(value: unknown, path: string): WebPushCredential {
  const entry = fields(value, path, ['vapidDetails']);
  const vapid = fields(entry.vapidDetails, `${path}.vapidDetails`, ['subject', 'publicKey', 'privateKey'], 'an object {subject, publicKey, privateKey}');
  const subject = text(vapid.subject, `${path}.vapidDetails.subject`, 'a mailto: or https: URL');
  if (!/^(mailto:.+|https:\/\/.+)$/.test(subject)) fail(`${path}.vapidDetails.subject`, 'a mailto: or https: URL');
  const publicKey = base64url(vapid.publicKey, `${path}.vapidDetails.publicKey`, 65, 'a P-256 public key, 65 bytes in base64url (as web-push generateVAPIDKeys gives)');
  const privateKey = base64url(vapid.privateKey, `${path}.vapidDetails.privateKey`, 32, 'a P-256 private key, 32 bytes in base64url');
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(privateKey);
    if (!ecdh.getPublicKey().equals(publicKey)) fail(`${path}.vapidDetails.publicKey`, 'the public key of privateKey');
  } catch (error) {
    if (error instanceof Problem) throw error;
    fail(`${path}.vapidDetails.privateKey`, 'a P-256 private key, 32 bytes in base64url');
  }
  return { vapidDetails: { subject, publicKey: vapid.publicKey as string, privateKey: vapid.privateKey as string } };
}

/** Checks a `push` setting and gives it in its normal form (every per-network list an array). Throws a Problem. */
function normalise(value: unknown): PushCredentials {
  const push = fields(value, 'push', ['ios', 'android', 'windows', 'web'], 'null or an object {ios?, android?, windows?, web?}');
  const result: { -readonly [K in keyof PushCredentials]: PushCredentials[K] } = {};
  if (push.ios !== undefined) {
    const ios = entries(push.ios, 'push.ios').map(({ value: item, path }) => checkApns(item, path));
    const topics = ios.map((entry) => entry.topic ?? '');
    if (new Set(topics).size !== topics.length) throw new Problem('push.ios has two entries for the same topic (or two without one)');
    result.ios = ios;
  }
  if (push.android !== undefined) {
    const android = entries(push.android, 'push.android').map(({ value: item, path }) => checkFcm(item, path));
    const senders = android.map((entry) => entry.senderId ?? '');
    if (new Set(senders).size !== senders.length) throw new Problem('push.android has two entries for the same senderId (or two without one)');
    result.android = android;
  }
  if (push.windows !== undefined) result.windows = checkWns(push.windows, 'push.windows');
  if (push.web !== undefined) result.web = checkWeb(push.web, 'push.web');
  return result;
}

/** Why a `push` setting is refused (a sentence for code 107), or null when it is good. Null removes the setting. */
export function pushCredentialsProblem(value: unknown): string | null {
  if (value === null) return null;
  try {
    normalise(value);
    const masked = maskedSecretAt(value);
    if (masked) return `App setting ${masked} is the mask /1/apps shows, and no secret is stored there: give the secret itself.`;
    return null;
  } catch (error) {
    if (error instanceof Problem) return `App setting ${error.message}.`;
    throw error;
  }
}

/** The stored setting as typed credentials; a setting that no longer passes (none should) gives none. */
export function pushCredentialsOf(value: unknown): PushCredentials {
  if (value === null || value === undefined) return {};
  try {
    return normalise(value);
  } catch (error) {
    if (error instanceof Problem) return {};
    throw error;
  }
}

// Secret fields by where they sit; everything else (topic, keyId, teamId, project_id, client_email,
// clientId, subject, publicKey, production, senderId) is shown as stored.
const SECRETS: Record<string, readonly string[]> = {
  ios: ['pfx', 'cert', 'key', 'passphrase'],
  'ios.token': ['key'],
  'android.firebaseServiceAccount': ['private_key', 'private_key_id'],
  windows: ['clientSecret'],
  'web.vapidDetails': ['privateKey'],
};

type Visit = (object: Record<string, unknown>, secrets: readonly string[], at: string) => Record<string, unknown>;

/** Copies a push setting, letting `visit` rewrite each object that holds secrets. */
function mapSecrets(value: unknown, visit: Visit): unknown {
  const walk = (node: unknown, path: string, at: string): unknown => {
    if (Array.isArray(node)) return node.map((item, index) => walk(item, path, `${at}[${index}]`));
    if (typeof node !== 'object' || node === null) return node;
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(node)) {
      const childPath = path === '' ? key : `${path}.${key}`;
      copy[key] = Object.hasOwn(SECRETS, childPath) || Object.keys(SECRETS).some((known) => known.startsWith(`${childPath}.`)) ? walk(item, childPath, `${at}.${key}`) : item;
    }
    return Object.hasOwn(SECRETS, path) ? visit(copy, SECRETS[path]!, at) : copy;
  };
  return walk(value, '', 'push');
}

/** The setting as `/1/apps` shows it: every secret replaced by MASK. */
export function maskPushCredentials(value: unknown): unknown {
  return mapSecrets(value, (object, secrets) => {
    for (const name of secrets) if (object[name] !== undefined) object[name] = MASK;
    return object;
  });
}

/**
 * An update that sends back what `/1/apps` showed keeps the stored secrets: each MASK is replaced
 * by the stored value at the same place. A MASK with nothing stored there stays, and is refused
 * by the check as the wrong value it is.
 */
export function restoreMaskedSecrets(next: unknown, stored: unknown): unknown {
  const storedAt = (at: string): unknown => {
    let node: unknown = { push: stored };
    for (const step of at.match(/[^.[\]]+/g) ?? []) {
      // Stored lists are arrays; a body may give a list of one as the object alone.
      if (Array.isArray(node) && !/^\d+$/.test(step) && node.length === 1) node = node[0];
      if (typeof node !== 'object' || node === null) return undefined;
      node = (node as Record<string, unknown>)[step];
    }
    return node;
  };
  return mapSecrets(next, (object, secrets, at) => {
    const before = storedAt(at);
    const kept = typeof before === 'object' && before !== null ? (before as Record<string, unknown>) : {};
    for (const name of secrets) if (object[name] === MASK && typeof kept[name] === 'string') object[name] = kept[name];
    return object;
  });
}

/** Where a secret is still MASK after restoreMaskedSecrets (nothing was stored there), or null. */
function maskedSecretAt(value: unknown): string | null {
  let found: string | null = null;
  mapSecrets(value, (object, secrets, at) => {
    for (const name of secrets) if (found === null && object[name] === MASK) found = `${at}.${name}`;
    return object;
  });
  return found;
}
