import { createHmac } from 'node:crypto';
import { Errors } from '../../errors/index.ts';
import type { AuthProvider, ProviderContext } from './provider.ts';
import { baseUrl, fetchJson, requireId, requireString } from './provider.ts';

/**
 * Facebook (spec 2.4.1): the Graph API's `/me` must name the same user id as the authData. With
 * `auth.facebook.appIds` set, `/app` must also name one of the app's Facebook apps, so that a
 * token some other Facebook app obtained for the same person is not accepted. With `appSecret`
 * set, calls carry the `appsecret_proof` that Facebook apps can be configured to require.
 */
export const facebook: AuthProvider = {
  service: 'facebook',
  enabled: ({ settings }) => settings.enabled !== false,
  idOf(data) {
    const id = requireId('facebook', data);
    requireString('facebook', data, 'access_token');
    return id;
  },
  async verify(data, context) {
    const id = requireId('facebook', data);
    const token = requireString('facebook', data, 'access_token');
    const me = await fetchJson('facebook', graphUrl(context, '/me', token, { fields: 'id' }));
    if (me.id !== id) throw Errors.invalidLinkedSession('The facebook authData is not valid: the token belongs to another user.');
    const appIds = context.settings.appIds;
    if (Array.isArray(appIds) && appIds.length > 0) {
      const app = await fetchJson('facebook', graphUrl(context, '/app', token, {}));
      if (typeof app.id !== 'string' || !appIds.includes(app.id)) throw Errors.invalidLinkedSession('The facebook authData is not valid: the token was issued to another Facebook app.');
    }
  },
};

function graphUrl(context: ProviderContext, path: string, token: string, extra: Record<string, string>): string {
  const url = new URL(`${baseUrl(context.settings.graphUrl, context.options.facebookGraphUrl)}${path}`);
  for (const [name, value] of Object.entries(extra)) url.searchParams.set(name, value);
  url.searchParams.set('access_token', token);
  const secret = context.settings.appSecret;
  if (typeof secret === 'string' && secret !== '') url.searchParams.set('appsecret_proof', createHmac('sha256', secret).update(token).digest('hex'));
  return url.toString();
}
