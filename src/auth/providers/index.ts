import type { AuthProvider } from './provider.ts';
import { anonymous } from './anonymous.ts';
import { facebook } from './facebook.ts';
import { twitter } from './twitter.ts';

export type { AuthProvider, ProviderContext } from './provider.ts';

const PROVIDERS: ReadonlyMap<string, AuthProvider> = new Map([anonymous, facebook, twitter].map((provider) => [provider.service, provider]));

/** The authData services Basalt can check; any other key of authData is refused with 252. */
export function providerFor(service: string): AuthProvider | null {
  return PROVIDERS.get(service) ?? null;
}
