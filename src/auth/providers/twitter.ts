import { createHmac, randomBytes } from 'node:crypto';
import { Errors } from '../../errors/index.ts';
import type { AuthProvider, ProviderContext } from './provider.ts';
import { baseUrl, fetchJson, requireId, requireString } from './provider.ts';

const VERIFY_PATH = '/1.1/account/verify_credentials.json';

/**
 * Twitter (spec 2.4.1): `account/verify_credentials`, signed with OAuth 1.0a, must answer with
 * the authData's id. The consumer key and secret are the app's (`auth.twitter`), never the
 * client's: a client could otherwise vouch for itself with any Twitter app's keys. A
 * `consumer_key` in the authData must be the app's.
 */
export const twitter: AuthProvider = {
  service: 'twitter',
  enabled: ({ settings }) => settings.enabled !== false && typeof settings.consumerKey === 'string' && typeof settings.consumerSecret === 'string',
  idOf(data) {
    const id = requireId('twitter', data);
    requireString('twitter', data, 'auth_token');
    requireString('twitter', data, 'auth_token_secret');
    return id;
  },
  async verify(data, context) {
    const id = requireId('twitter', data);
    const consumerKey = String(context.settings.consumerKey);
    if (data.consumer_key !== undefined && data.consumer_key !== consumerKey) throw Errors.invalidLinkedSession('The twitter authData is not valid: it was obtained with another consumer key.');
    const url = `${apiUrl(context)}${VERIFY_PATH}`;
    const authorization = oauth1Header({
      method: 'GET',
      url,
      consumerKey,
      consumerSecret: String(context.settings.consumerSecret),
      token: requireString('twitter', data, 'auth_token'),
      tokenSecret: requireString('twitter', data, 'auth_token_secret'),
      nonce: randomBytes(16).toString('hex'),
      timestamp: Math.floor(Date.now() / 1000),
    });
    const account = await fetchJson('twitter', url, { Authorization: authorization });
    if (account.id_str !== id) throw Errors.invalidLinkedSession('The twitter authData is not valid: the token belongs to another user.');
  },
};

function apiUrl(context: ProviderContext): string {
  return baseUrl(context.settings.apiUrl, context.options.twitterApiUrl);
}

export interface OAuth1Request {
  readonly method: string;
  /** May carry a query string; its parameters are signed. */
  readonly url: string;
  /** Form-encoded body parameters, which are signed too. */
  readonly bodyParams?: Readonly<Record<string, string>>;
  readonly consumerKey: string;
  readonly consumerSecret: string;
  readonly token: string;
  readonly tokenSecret: string;
  readonly nonce: string;
  readonly timestamp: number;
}

/** RFC 3986 percent-encoding, which OAuth 1.0a requires (encodeURIComponent leaves !'()* alone). */
export function percentEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The `Authorization: OAuth …` header of RFC 5849 with HMAC-SHA1 (section 3.4). */
export function oauth1Header(request: OAuth1Request): string {
  const oauth: Record<string, string> = {
    oauth_consumer_key: request.consumerKey,
    oauth_nonce: request.nonce,
    oauth_signature_method: 'HMAC-SHA1',
    oauth_timestamp: String(request.timestamp),
    oauth_token: request.token,
    oauth_version: '1.0',
  };
  const url = new URL(request.url);
  const pairs: [string, string][] = [...url.searchParams, ...Object.entries(request.bodyParams ?? {}), ...Object.entries(oauth)].map(([k, v]) => [percentEncode(k), percentEncode(v)]);
  pairs.sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  const parameters = pairs.map(([k, v]) => `${k}=${v}`).join('&');
  // The base URI has no query and no default port; URL.host already drops :80 and :443.
  const base = [request.method.toUpperCase(), percentEncode(`${url.protocol}//${url.host}${url.pathname}`), percentEncode(parameters)].join('&');
  const key = `${percentEncode(request.consumerSecret)}&${percentEncode(request.tokenSecret)}`;
  const signature = createHmac('sha1', key).update(base).digest('base64');
  const fields = { ...oauth, oauth_signature: signature };
  return `OAuth ${Object.entries(fields).map(([k, v]) => `${percentEncode(k)}="${percentEncode(v)}"`).join(', ')}`;
}
