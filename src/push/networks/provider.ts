import type { NetworkName, PushNetwork } from './network.ts';
import { pushCredentialsOf, type PushCredentials } from './credentials.ts';
import { endpointsOf, type EndpointOptions, type PushEndpoints } from './endpoints.ts';
import { ApnsNetwork } from './apns.ts';
import { FcmNetwork } from './fcm.ts';
import { WnsNetwork } from './wns.ts';
import { WebPushNetwork } from './webpush.ts';

/**
 * Which network serves each `deviceType`, and each app's networks built from its `push` setting.
 * Free of the HTTP framework and the database: the push pipeline hands in what it read.
 */

const BY_DEVICE_TYPE: Readonly<Record<string, NetworkName>> = {
  ios: 'apns',
  osx: 'apns',
  tvos: 'apns',
  android: 'fcm',
  winrt: 'wns',
  winphone: 'wns',
  dotnet: 'wns',
  web: 'webpush',
};

/** The network of a device type; null for one no network serves (embedded, or anything unknown). */
export function networkFor(deviceType: string): NetworkName | null {
  return Object.hasOwn(BY_DEVICE_TYPE, deviceType) ? BY_DEVICE_TYPE[deviceType]! : null;
}

/** What the provider reads of an app: its id and its settings (an AppRecord fits). */
export interface PushApp {
  readonly applicationId: string;
  readonly settings: { readonly push?: unknown };
}

/** One app's networks: a network is absent when the app has no credentials for it. */
export interface AppNetworks {
  get(name: NetworkName): PushNetwork | null;
  /** Why devices of this network cannot be sent to (for `_PushStatus.errorMessage`), or null. */
  missing(name: NetworkName): string | null;
}

const SETTING_OF: Readonly<Record<NetworkName, string>> = { apns: 'push.ios', fcm: 'push.android', wns: 'push.windows', webpush: 'push.web' };

function build(credentials: PushCredentials, endpoints: PushEndpoints, now: () => number): Map<NetworkName, PushNetwork> {
  const networks = new Map<NetworkName, PushNetwork>();
  if (credentials.ios?.length) networks.set('apns', new ApnsNetwork(credentials.ios, endpoints, now));
  if (credentials.android?.length) networks.set('fcm', new FcmNetwork(credentials.android, endpoints, now));
  if (credentials.windows) networks.set('wns', new WnsNetwork(credentials.windows, endpoints, now));
  if (credentials.web) networks.set('webpush', new WebPushNetwork(credentials.web, endpoints, now));
  return networks;
}

/**
 * Keeps each app's networks (and so their HTTP/2 sessions and OAuth tokens) between pushes, and
 * builds them anew when the app's credentials or the endpoints change.
 */
export class PushNetworkProvider {
  private readonly apps = new Map<string, { key: string; networks: Map<NetworkName, PushNetwork> }>();

  constructor(
    private readonly endpoints: PushEndpoints,
    private readonly now: () => number = Date.now,
  ) {}

  networksOf(app: PushApp): AppNetworks {
    const key = JSON.stringify(app.settings.push ?? null);
    let entry = this.apps.get(app.applicationId);
    if (!entry || entry.key !== key) {
      // Streams under way on the old sessions finish; new sends use the new credentials.
      if (entry) void closeAll(entry.networks);
      entry = { key, networks: build(pushCredentialsOf(app.settings.push), this.endpoints, this.now) };
      this.apps.set(app.applicationId, entry);
    }
    const networks = entry.networks;
    return {
      get: (name) => networks.get(name) ?? null,
      missing: (name) => (networks.has(name) ? null : `The app has no ${SETTING_OF[name]} credentials.`),
    };
  }

  async close(): Promise<void> {
    const all = [...this.apps.values()];
    this.apps.clear();
    await Promise.all(all.map((entry) => closeAll(entry.networks)));
  }
}

async function closeAll(networks: Map<NetworkName, PushNetwork>): Promise<void> {
  await Promise.all([...networks.values()].map((network) => network.close().catch(() => undefined)));
}

// One provider per set of endpoint options, for callers that hold the server's configuration
// rather than a provider of their own.
const shared = new Map<string, PushNetworkProvider>();

/** The app's networks under the server's push options (see PushNetworkProvider). */
export function networksOf(app: PushApp, options: EndpointOptions): AppNetworks {
  const key = JSON.stringify(options);
  let provider = shared.get(key);
  if (!provider) {
    provider = new PushNetworkProvider(endpointsOf(options));
    shared.set(key, provider);
  }
  return provider.networksOf(app);
}

/** Closes every network `networksOf` opened (at shutdown). */
export async function closeSharedNetworks(): Promise<void> {
  const providers = [...shared.values()];
  shared.clear();
  await Promise.all(providers.map((provider) => provider.close()));
}
