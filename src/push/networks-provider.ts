import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AppRecord } from '../apps/types.ts';
import type { NetworkName, PushNetwork } from './networks/network.ts';

/** The networks an app can be reached through; a name that is absent has no credentials. */
export type PushNetworks = { readonly [N in NetworkName]?: PushNetwork };

/**
 * Where the pipeline gets an app's delivery networks, with the app's credentials bound (its `push`
 * setting). The delivery code (src/push/networks/) supplies the real one; it may cache networks
 * per app and settings, and owns them: the pipeline never closes what it is given.
 */
export interface PushNetworksProvider {
  networksOf(app: AppRecord): Promise<PushNetworks>;
  /** Releases what the provider holds (connections), at server shutdown. */
  close(): Promise<void>;
}

/** Until delivery networks are configured: every device type counts as missing its credentials. */
export const NO_NETWORKS: PushNetworksProvider = {
  networksOf: async () => ({}),
  close: async () => {},
};

/** Which network serves a `deviceType` (spec 2.8; `web` per decisions.md); null: none does. */
export function networkOf(deviceType: unknown): NetworkName | null {
  switch (deviceType) {
    case 'ios':
    case 'osx':
    case 'tvos':
      return 'apns';
    case 'android':
      return 'fcm';
    case 'winrt':
    case 'winphone':
    case 'dotnet':
      return 'wns';
    case 'web':
      return 'webpush';
    default:
      return null;
  }
}

/** The credential an app lacks when a network is absent, as `_PushStatus.errorMessage` says it. */
export const CREDENTIAL_NAMES: Readonly<Record<NetworkName, string>> = {
  apns: 'APNs credentials',
  fcm: 'FCM credentials',
  wns: 'WNS credentials',
  webpush: 'Web Push (VAPID) credentials',
};

/**
 * `--test-push-networks <module>` (tests only, never production): the module's default export is
 * called with each app's record and returns that app's networks, so tests can see exactly what
 * was delivered, to whom, without the real networks. A module without that export stops the start.
 */
export async function loadTestPushNetworks(path: string): Promise<PushNetworksProvider> {
  const url = pathToFileURL(isAbsolute(path) ? path : resolve(path)).href;
  const loaded = (await import(url)) as { default?: unknown };
  if (typeof loaded.default !== 'function') throw new Error(`${path}: a push networks module must export a function as its default`);
  const networksOf = loaded.default as (app: AppRecord) => PushNetworks | Promise<PushNetworks>;
  return { networksOf: async (app) => networksOf(app), close: async () => {} };
}
