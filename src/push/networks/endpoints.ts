import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import type { Config } from '../../config/schema.ts';

/** Where the delivery networks are reached, and how (server options; tests point them at local servers). */
export interface PushEndpoints {
  readonly apnsUrl: string;
  readonly apnsSandboxUrl: string;
  readonly fcmUrl: string;
  readonly fcmTokenUrl: string;
  readonly wnsTokenUrl: string;
  /** Hosts (and their subdomains) a WNS channel URI may name: the access token goes only there. */
  readonly wnsChannelHosts: readonly string[];
  /** Certificate authorities trusted for TLS to the networks; undefined: Node's defaults. */
  readonly ca?: readonly string[];
  /** Requests in flight at once per network and app. */
  readonly concurrency: number;
}

export type EndpointOptions = Pick<Config, 'apnsUrl' | 'apnsSandboxUrl' | 'fcmUrl' | 'fcmTokenUrl' | 'wnsTokenUrl' | 'wnsChannelHosts' | 'pushCaFile' | 'pushConcurrency'>;

/** Reads the push options once (the CA file too). */
export function endpointsOf(config: EndpointOptions): PushEndpoints {
  const extra = config.pushCaFile ? [readFileSync(config.pushCaFile, 'utf8')] : null;
  return {
    apnsUrl: config.apnsUrl,
    apnsSandboxUrl: config.apnsSandboxUrl,
    fcmUrl: config.fcmUrl,
    fcmTokenUrl: config.fcmTokenUrl,
    wnsTokenUrl: config.wnsTokenUrl,
    wnsChannelHosts: hostList(config.wnsChannelHosts),
    // Given alone, `ca` replaces Node's roots: keep them, so real networks still verify.
    ...(extra ? { ca: [...rootCertificates, ...extra] } : {}),
    concurrency: config.pushConcurrency,
  };
}

export function hostList(text: string): string[] {
  return text.split(',').map((host) => host.trim().toLowerCase()).filter((host) => host !== '');
}

/** True when the URL's host is one of `hosts` or a subdomain of one. */
export function hostAllowed(url: URL, hosts: readonly string[]): boolean {
  const host = url.hostname.toLowerCase();
  return hosts.some((allowed) => host === allowed || host.endsWith(`.${allowed}`));
}

/** Seconds from now until `expiresAt` (0 once past); null without expiry. */
export function secondsLeft(expiresAt: Date | null, now = Date.now()): number | null {
  if (!expiresAt) return null;
  return Math.max(0, Math.floor((expiresAt.getTime() - now) / 1000));
}
