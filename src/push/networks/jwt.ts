import { createSign, type KeyObject } from 'node:crypto';

/**
 * The two JSON Web Tokens the networks ask for, signed with node:crypto (no library: a JWS in
 * compact form is three base64url parts and one signature).
 *   ES256: APNs provider tokens; the signature is the raw r‖s pair (RFC 7518 §3.4), not DER.
 *   RS256: the OAuth2 JWT-bearer assertion of a Google service account.
 */
export function signJwt(algorithm: 'ES256' | 'RS256', header: Record<string, unknown>, claims: Record<string, unknown>, key: KeyObject): string {
  const encode = (part: Record<string, unknown>) => Buffer.from(JSON.stringify(part)).toString('base64url');
  const input = `${encode({ alg: algorithm, typ: 'JWT', ...header })}.${encode(claims)}`;
  const signer = createSign('SHA256');
  signer.update(input);
  const signature = algorithm === 'ES256' ? signer.sign({ key, dsaEncoding: 'ieee-p1363' }) : signer.sign(key);
  return `${input}.${signature.toString('base64url')}`;
}
