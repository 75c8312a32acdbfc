import { Agent } from 'node:https';
import webpush from 'web-push';
import type { DeliveryResult, PushDevice, PushMessage, PushNetwork } from './network.ts';
import type { WebPushCredential } from './credentials.ts';
import { secondsLeft, type PushEndpoints } from './endpoints.ts';
import { mapLimited } from './limit.ts';
import { delivered, failed, failedToConnect, failedWithStatus } from './results.ts';

/**
 * Web Push (RFC 8030) with VAPID (RFC 8292) and aes128gcm payload encryption (RFC 8291), done by
 * the `web-push` library. The device token is the browser's PushSubscription as JSON; the payload
 * is the push's `data` as JSON, for the service worker to read.
 */

/** Without an expiry, the push service may keep the message four weeks (web-push's default). */
const DEFAULT_TTL = 28 * 86_400;
const TIMEOUT_MS = 30_000;
/** web-push signs VAPID tokens for 12 hours; one is reused per push service for 11 of them. */
const VAPID_REUSE_MS = 11 * 3_600_000;

interface Subscription {
  readonly endpoint: string;
  readonly keys: { readonly p256dh: string; readonly auth: string };
}

function subscriptionOf(token: string): Subscription | null {
  try {
    const parsed = JSON.parse(token) as { endpoint?: unknown; keys?: { p256dh?: unknown; auth?: unknown } };
    const endpoint = parsed.endpoint;
    if (typeof endpoint !== 'string' || new URL(endpoint).protocol !== 'https:') return null;
    if (typeof parsed.keys?.p256dh !== 'string' || typeof parsed.keys.auth !== 'string') return null;
    return { endpoint, keys: { p256dh: parsed.keys.p256dh, auth: parsed.keys.auth } };
  } catch {
    return null;
  }
}

export class WebPushNetwork implements PushNetwork {
  readonly name = 'webpush' as const;
  private readonly agent: Agent;
  // Signing a VAPID token costs more than encrypting a payload (web-push turns the key into PEM
  // each time): one token per push service origin, which is its audience, serves every device there.
  private readonly vapid = new Map<string, { authorization: string; until: number }>();

  constructor(
    private readonly credential: WebPushCredential,
    private readonly endpoints: PushEndpoints,
    private readonly now: () => number = Date.now,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: endpoints.concurrency, ...(endpoints.ca ? { ca: [...endpoints.ca] } : {}) });
  }

  async send(devices: readonly PushDevice[], message: PushMessage): Promise<DeliveryResult[]> {
    const shared = JSON.stringify(message.data);
    // The installation's badge after "Increment" replaces the one given.
    const payloadFor = (device: PushDevice) => (device.badge === null ? shared : JSON.stringify({ ...message.data, badge: device.badge }));
    const ttl = secondsLeft(message.expiresAt, this.now()) ?? DEFAULT_TTL;
    return mapLimited(devices, this.endpoints.concurrency, async (device) => {
      const subscription = subscriptionOf(device.deviceToken);
      if (!subscription) return failed(device, 'Web Push: the deviceToken is not a PushSubscription (JSON with an https endpoint and keys p256dh and auth).', { invalidToken: true });
      try {
        const headers = { Authorization: this.authorizationFor(new URL(subscription.endpoint).origin) };
        // vapidDetails null (which web-push accepts, its types do not): the Authorization given is
        // used, never keys some other code set with web-push's global setVapidDetails.
        await webpush.sendNotification(subscription, payloadFor(device), { vapidDetails: null as unknown as undefined, headers, TTL: ttl, agent: this.agent, timeout: TIMEOUT_MS });
        return delivered(device);
      } catch (error) {
        if (error instanceof webpush.WebPushError) {
          const text = `Web Push ${error.statusCode}${error.body ? `: ${error.body.slice(0, 200)}` : ''}`;
          // 404: no such subscription; 410: the browser unsubscribed.
          if (error.statusCode === 404 || error.statusCode === 410) return failed(device, text, { invalidToken: true });
          return failedWithStatus(device, text, error.statusCode, error.headers as Record<string, unknown>);
        }
        // A key of the wrong length in the subscription is refused before sending.
        if (error instanceof Error && /p256dh|auth|public key|subscription/i.test(error.message)) return failed(device, `Web Push: ${error.message}`, { invalidToken: true });
        return failedToConnect(device, 'Web Push', error);
      }
    });
  }

  private authorizationFor(origin: string): string {
    const cached = this.vapid.get(origin);
    if (cached && Date.now() < cached.until) return cached.authorization;
    const { subject, publicKey, privateKey } = this.credential.vapidDetails;
    const authorization = webpush.getVapidHeaders(origin, subject, publicKey, privateKey, 'aes128gcm').Authorization;
    this.vapid.set(origin, { authorization, until: Date.now() + VAPID_REUSE_MS });
    return authorization;
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }
}
