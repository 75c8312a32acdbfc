/**
 * Keys, certificates and JWT checks shared by the local push servers and their tests. The
 * certificates in push-certs/ are test-only (a CA that signs a localhost server certificate and an
 * APNs-style client certificate, valid for a century); keys are made fresh for each run.
 */
import { createPublicKey, generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

const dir = new URL('./push-certs/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, dir), 'utf8');

export const TEST_CA = read('ca.pem');
export const SERVER_TLS = { key: read('server.key'), cert: read('server.pem') };
/** The client certificate APNs certificate auth presents: PEM pair, and the same as a .p12 (base64). */
export const CLIENT_CERT = { cert: read('client.pem'), key: read('client.key'), pfx: readFileSync(new URL('client.p12', dir)).toString('base64'), passphrase: 'test-passphrase' };

/** An APNs `.p8`-style key: EC P-256, PKCS#8 PEM. */
export function newApnsKey(): { privatePem: string; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return { privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, publicKey };
}

/** A Google service account JSON with a fresh RSA key. */
export function newServiceAccount(projectId: string): { account: Record<string, string>; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const account = {
    type: 'service_account',
    project_id: projectId,
    private_key_id: `kid-${projectId}`,
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    client_email: `push@${projectId}.iam.gserviceaccount.com`,
    client_id: '1234567890',
    token_uri: 'https://oauth2.googleapis.com/token',
  };
  return { account, publicKey };
}

/** VAPID keys as web-push's generateVAPIDKeys gives them: raw P-256 points in base64url. */
export function newVapidKeys(): { publicKey: string; privateKey: string } {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const jwk = privateKey.export({ format: 'jwk' });
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
  return { publicKey: point.toString('base64url'), privateKey: jwk.d! };
}

/** The public key of a raw uncompressed P-256 point (65 bytes). */
export function p256PublicKey(point: Buffer): KeyObject {
  return createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33, 65).toString('base64url') }, format: 'jwk' });
}

export interface Jwt {
  readonly header: Record<string, any>;
  readonly claims: Record<string, any>;
}

/** Decodes a compact JWS and checks its signature; null when it does not verify. */
export function verifyJwt(token: string, algorithm: 'ES256' | 'RS256', key: KeyObject): Jwt | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const [head, body, signature] = parts as [string, string, string];
  let decoded: Jwt;
  try {
    decoded = { header: JSON.parse(Buffer.from(head, 'base64url').toString()), claims: JSON.parse(Buffer.from(body, 'base64url').toString()) };
  } catch {
    return null;
  }
  if (decoded.header.alg !== algorithm) return null;
  const data = Buffer.from(`${head}.${body}`);
  const sig = Buffer.from(signature, 'base64url');
  const ok = algorithm === 'ES256' ? verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, sig) : verify('sha256', data, key, sig);
  return ok ? decoded : null;
}

/** The claims part of a JWT, unchecked (to tell which key should have signed it). */
export function peekJwt(token: string): Jwt | null {
  try {
    const [head, body] = token.split('.');
    return { header: JSON.parse(Buffer.from(head!, 'base64url').toString()), claims: JSON.parse(Buffer.from(body!, 'base64url').toString()) };
  } catch {
    return null;
  }
}
