import type { NetworkName } from './networks/network.ts';
import type { PushNetworks, PushNetworksProvider } from './networks-provider.ts';
import { PushNetworkProvider } from './networks/provider.ts';
import { endpointsOf, type EndpointOptions } from './networks/endpoints.ts';

const NAMES: readonly NetworkName[] = ['apns', 'fcm', 'wns', 'webpush'];

/** The pipeline's view of the delivery networks (src/push/networks/): each app's, from its `push` credentials. */
export function realPushNetworks(options: EndpointOptions): PushNetworksProvider {
  const provider = new PushNetworkProvider(endpointsOf(options));
  return {
    networksOf: async (app) => {
      const networks = provider.networksOf({ applicationId: app.applicationId, settings: app.settings as { readonly push?: unknown } });
      const found: { [N in NetworkName]?: NonNullable<ReturnType<typeof networks.get>> } = {};
      for (const name of NAMES) {
        const network = networks.get(name);
        if (network) found[name] = network;
      }
      return found satisfies PushNetworks;
    },
    close: () => provider.close(),
  };
}
