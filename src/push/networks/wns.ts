import type { DeliveryResult, PushDevice, PushMessage, PushNetwork } from './network.ts';
import type { WnsCredential } from './credentials.ts';
import { hostAllowed, secondsLeft, type PushEndpoints } from './endpoints.ts';
import { HttpClient, TokenCache, tokenOf } from './http.ts';
import { mapLimited } from './limit.ts';
import { wnsNotification } from './wns-payload.ts';
import { delivered, failed, failedToConnect, failedWithStatus } from './results.ts';

/**
 * WNS: an access token from the OAuth client-credentials grant (the package SID and secret), then
 * one POST to each device's channel URI. The channel URI comes from the installation, which a
 * client writes: the token is sent only to the hosts of --wns-channel-hosts.
 */

const TOKEN_MARGIN_MS = 5 * 60_000;

export class WnsNetwork implements PushNetwork {
  readonly name = 'wns' as const;
  private readonly http: HttpClient;
  readonly tokens: TokenCache;

  constructor(
    private readonly credential: WnsCredential,
    private readonly endpoints: PushEndpoints,
    private readonly now: () => number = Date.now,
  ) {
    this.http = new HttpClient(endpoints.ca, endpoints.concurrency);
    this.tokens = new TokenCache(() => this.fetchToken(), TOKEN_MARGIN_MS, now);
  }

  private async fetchToken(): Promise<{ value: string; lifetimeSeconds: number }> {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: this.credential.clientId, client_secret: this.credential.clientSecret, scope: 'notify.windows.com' });
    const answer = await this.http.request(this.endpoints.wnsTokenUrl, 'POST', { 'Content-Type': 'application/x-www-form-urlencoded' }, form.toString());
    return tokenOf(answer, 'WNS access token');
  }

  async send(devices: readonly PushDevice[], message: PushMessage): Promise<DeliveryResult[]> {
    return mapLimited(devices, this.endpoints.concurrency, async (device) => {
      try {
        return await this.sendOne(device, message);
      } catch (error) {
        return failedToConnect(device, 'WNS', error);
      }
    });
  }

  private async sendOne(device: PushDevice, message: PushMessage): Promise<DeliveryResult> {
    let channel: URL;
    try {
      channel = new URL(device.deviceToken);
    } catch {
      return failed(device, 'WNS: the deviceToken is not a channel URI.', { invalidToken: true });
    }
    if (channel.protocol !== 'https:' || !hostAllowed(channel, this.endpoints.wnsChannelHosts)) {
      return failed(device, `WNS: the channel URI's host ${channel.hostname} is not one of --wns-channel-hosts.`, { invalidToken: true });
    }
    const notification = wnsNotification(message.data, device.badge);
    const headers: Record<string, string> = { 'X-WNS-Type': `wns/${notification.type}`, 'Content-Type': notification.contentType };
    const ttl = secondsLeft(message.expiresAt, this.now());
    if (ttl !== null) headers['X-WNS-TTL'] = String(Math.max(1, ttl));
    const post = async () => {
      const token = await this.tokens.get();
      return { token, answer: await this.http.request(channel.href, 'POST', { ...headers, Authorization: `Bearer ${token}` }, notification.body) };
    };
    let { token, answer } = await post();
    if (answer.status === 401) {
      // An expired token (WNS says so in WWW-Authenticate): one more try with a new one.
      this.tokens.drop(token);
      ({ answer } = await post());
    }
    if (answer.status === 200) return delivered(device);
    const status = answer.headers['x-wns-notificationstatus'];
    const error = `WNS ${answer.status}${typeof status === 'string' ? ` ${status}` : ''}${typeof answer.headers['x-wns-error-description'] === 'string' ? `: ${answer.headers['x-wns-error-description']}` : ''}`;
    // 404: no such channel; 410: the channel expired.
    if (answer.status === 404 || answer.status === 410) return failed(device, error, { invalidToken: true });
    // 406: WNS's throttle, to be treated like 429.
    return failedWithStatus(device, error, answer.status === 406 ? 429 : answer.status, answer.headers);
  }

  async close(): Promise<void> {
    this.http.close();
  }
}
