import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { DeliveryResult, PushDevice, PushMessage, PushNetwork } from './network.ts';
import type { FcmCredential } from './credentials.ts';
import { secondsLeft, type PushEndpoints } from './endpoints.ts';
import { HttpClient, TokenCache, excerpt, tokenOf } from './http.ts';
import { signJwt } from './jwt.ts';
import { mapLimited } from './limit.ts';
import { fcmMessage } from './fcm-payload.ts';
import { delivered, failed, failedToConnect, failedWithStatus } from './results.ts';

/**
 * FCM HTTP v1: one `messages:send` per device, authorised by an OAuth2 access token that a
 * service account gets with a signed JWT assertion (RFC 7523), cached until a few minutes before
 * it expires.
 */

const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const TOKEN_MARGIN_MS = 5 * 60_000;

class FcmSender {
  readonly tokens: TokenCache;
  private readonly key: KeyObject;

  constructor(
    readonly credential: FcmCredential,
    private readonly endpoints: PushEndpoints,
    private readonly http: HttpClient,
    private readonly now: () => number,
  ) {
    this.key = createPrivateKey(credential.firebaseServiceAccount.private_key);
    this.tokens = new TokenCache(() => this.fetchToken(), TOKEN_MARGIN_MS, now);
  }

  get projectId(): string {
    return this.credential.firebaseServiceAccount.project_id;
  }

  private async fetchToken(): Promise<{ value: string; lifetimeSeconds: number }> {
    const account = this.credential.firebaseServiceAccount;
    const iat = Math.floor(this.now() / 1000);
    const header = account.private_key_id ? { kid: account.private_key_id } : {};
    const assertion = signJwt('RS256', header, { iss: account.client_email, scope: SCOPE, aud: this.endpoints.fcmTokenUrl, iat, exp: iat + 3600 }, this.key);
    const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion });
    const answer = await this.http.request(this.endpoints.fcmTokenUrl, 'POST', { 'Content-Type': 'application/x-www-form-urlencoded' }, form.toString());
    return tokenOf(answer, 'FCM OAuth token');
  }
}

export class FcmNetwork implements PushNetwork {
  readonly name = 'fcm' as const;
  private readonly http: HttpClient;
  private readonly senders: FcmSender[];

  constructor(
    credentials: readonly FcmCredential[],
    private readonly endpoints: PushEndpoints,
    private readonly now: () => number = Date.now,
  ) {
    this.http = new HttpClient(endpoints.ca, endpoints.concurrency);
    this.senders = credentials.map((credential) => new FcmSender(credential, endpoints, this.http, now));
  }

  async send(devices: readonly PushDevice[], message: PushMessage): Promise<DeliveryResult[]> {
    return mapLimited(devices, this.endpoints.concurrency, async (device) => {
      try {
        return await this.sendOne(device, message);
      } catch (error) {
        return failedToConnect(device, 'FCM', error);
      }
    });
  }

  /** `gcm` installations with a GCMSenderId use that sender's entry; the others, the entry without one. */
  private senderFor(device: PushDevice): FcmSender | null {
    const senderId = device.pushType === 'gcm' ? device.GCMSenderId : null;
    const own = senderId ? this.senders.find((sender) => sender.credential.senderId === senderId) : undefined;
    return own ?? this.senders.find((sender) => sender.credential.senderId === undefined) ?? (this.senders.length === 1 ? this.senders[0]! : null);
  }

  private async sendOne(device: PushDevice, message: PushMessage): Promise<DeliveryResult> {
    const sender = this.senderFor(device);
    if (!sender) return failed(device, `No android push credentials for the GCMSenderId ${JSON.stringify(device.GCMSenderId)}.`);
    const ttl = secondsLeft(message.expiresAt, this.now());
    const body = JSON.stringify(fcmMessage(device.deviceToken, message.data, device.badge, message.pushStatusId, ttl, new Date(this.now())));
    const url = `${this.endpoints.fcmUrl.replace(/\/+$/, '')}/v1/projects/${encodeURIComponent(sender.projectId)}/messages:send`;
    const post = async () => {
      const token = await sender.tokens.get();
      return { token, answer: await this.http.request(url, 'POST', { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body) };
    };
    let { token, answer } = await post();
    if (answer.status === 401) {
      // The token was revoked or expired early: one more try with a new one.
      sender.tokens.drop(token);
      ({ answer } = await post());
    }
    if (answer.status === 200) return delivered(device);
    const problem = fcmError(answer.body);
    const error = `FCM ${answer.status} ${problem.code}${problem.message ? `: ${problem.message}` : ''}`;
    if (problem.invalidToken) return failed(device, error, { invalidToken: true });
    return failedWithStatus(device, error, answer.status, answer.headers);
  }

  async close(): Promise<void> {
    this.http.close();
  }
}

interface FcmProblem {
  readonly code: string;
  readonly message: string;
  readonly invalidToken: boolean;
}

/** Reads FCM's error body: `error.status`, and the FcmError or BadRequest details that name the token. */
function fcmError(body: string): FcmProblem {
  let error: { status?: unknown; message?: unknown; details?: unknown } = {};
  try {
    error = (JSON.parse(body) as { error?: typeof error }).error ?? {};
  } catch {
    return { code: 'UNKNOWN', message: excerpt(body), invalidToken: false };
  }
  const details = Array.isArray(error.details) ? (error.details as Record<string, unknown>[]) : [];
  const errorCode = details.map((detail) => detail.errorCode).find((code) => typeof code === 'string') as string | undefined;
  const code = errorCode ?? (typeof error.status === 'string' ? error.status : 'UNKNOWN');
  const message = typeof error.message === 'string' ? excerpt(error.message) : '';
  const namesToken =
    details.some((detail) => Array.isArray(detail.fieldViolations) && detail.fieldViolations.some((violation: { field?: unknown }) => violation.field === 'message.token')) ||
    /registration token/i.test(message);
  const invalidToken = code === 'UNREGISTERED' || (code === 'INVALID_ARGUMENT' && namesToken);
  return { code, message, invalidToken };
}
