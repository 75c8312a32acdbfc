import type { AuthProvider } from './provider.ts';
import { requireId } from './provider.ts';

/**
 * Anonymous users (spec 2.4.1): the client makes up a random UUID and keeps it; there is nothing
 * to check with anyone. An app can switch it off with `auth: {anonymous: {enabled: false}}`.
 */
export const anonymous: AuthProvider = {
  service: 'anonymous',
  enabled: ({ settings }) => settings.enabled !== false,
  idOf: (data) => requireId('anonymous', data),
  verify: async () => {},
};
