import { connect, constants, type ClientHttp2Session, type IncomingHttpHeaders, type SecureClientSessionOptions } from 'node:http2';
import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { DeliveryResult, PushDevice, PushMessage, PushNetwork } from './network.ts';
import type { ApnsCredential } from './credentials.ts';
import type { PushEndpoints } from './endpoints.ts';
import { signJwt } from './jwt.ts';
import { mapLimited } from './limit.ts';
import { apnsRequest } from './apns-payload.ts';
import { delivered, failed, failedToConnect, failedWithStatus } from './results.ts';

/**
 * APNs over HTTP/2 (Apple's "Sending notification requests to APNs"): one session per credential,
 * kept open and shared by every send, many streams at once; a session that the server closes
 * (GOAWAY, idle timeout) or that fails is dropped and the next request opens another.
 */

/** Apple accepts a provider token for an hour and refuses a new one more often than every 20 minutes. */
const TOKEN_LIFETIME_MS = 50 * 60_000;
const REQUEST_TIMEOUT_MS = 30_000;
const MAX_ANSWER = 16 * 1024;
/** Reasons after which the token will never work again (the pipeline removes it). */
// Not DeviceTokenNotForTopic: that one follows a wrong credential, and must not empty the audience.
const INVALID_TOKEN_REASONS = new Set(['BadDeviceToken', 'Unregistered']);

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

class ApnsSender {
  private session: ClientHttp2Session | null = null;
  /** Streams under way per session: the session holds the process open only while it has some. */
  private readonly streams = new WeakMap<ClientHttp2Session, number>();
  private token: { value: string; issuedAt: number } | null = null;
  private readonly signingKey: KeyObject | null;
  private readonly tls: SecureClientSessionOptions;

  constructor(
    readonly credential: ApnsCredential,
    private readonly url: string,
    ca: readonly string[] | undefined,
    private readonly now: () => number,
  ) {
    this.signingKey = credential.token ? createPrivateKey(credential.token.key) : null;
    const client = credential.pfx
      ? { pfx: Buffer.from(credential.pfx, 'base64') }
      : credential.cert && credential.key
        ? { cert: credential.cert, key: credential.key }
        : {};
    this.tls = { ...client, ...(credential.passphrase !== undefined ? { passphrase: credential.passphrase } : {}), ...(ca ? { ca: [...ca] } : {}) };
  }

  /** The provider token (token auth), reused until it is 50 minutes old; null with certificate auth. */
  authorization(): string | null {
    const token = this.credential.token;
    if (!token || !this.signingKey) return null;
    const now = this.now();
    if (!this.token || now - this.token.issuedAt >= TOKEN_LIFETIME_MS) {
      const value = signJwt('ES256', { kid: token.keyId }, { iss: token.teamId, iat: Math.floor(now / 1000) }, this.signingKey);
      this.token = { value, issuedAt: now };
    }
    return this.token.value;
  }

  /** APNs said the token expired (a clock apart, or a key revoked and restored): sign a new one. */
  dropToken(): void {
    this.token = null;
  }

  private connection(): ClientHttp2Session {
    const current = this.session;
    if (current && !current.closed && !current.destroyed) return current;
    const session = connect(this.url, this.tls);
    const forget = () => {
      if (this.session === session) this.session = null;
    };
    session.on('goaway', forget);
    session.on('close', forget);
    // An error also closes the session; the streams under way fail with it.
    session.on('error', forget);
    // An idle connection must not keep the process alive; one with streams under way must.
    session.unref();
    this.session = session;
    return session;
  }

  post(path: string, headers: Record<string, string>, body: string): Promise<Answer> {
    return new Promise((resolve, reject) => {
      let stream;
      try {
        const session = this.connection();
        stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/json', ...headers });
        if (this.streams.get(session) === undefined) session.ref();
        this.streams.set(session, (this.streams.get(session) ?? 0) + 1);
        stream.on('close', () => {
          const left = (this.streams.get(session) ?? 1) - 1;
          if (left > 0) this.streams.set(session, left);
          else {
            this.streams.delete(session);
            session.unref();
          }
        });
      } catch (error) {
        // A session that cannot open a stream (closing, or out of stream ids) is replaced.
        this.session?.destroy();
        this.session = null;
        reject(error);
        return;
      }
      let answerHeaders: IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      let size = 0;
      stream.setTimeout(REQUEST_TIMEOUT_MS, () => stream.close(constants.NGHTTP2_CANCEL));
      stream.on('response', (received) => {
        answerHeaders = received;
      });
      stream.on('data', (chunk: Buffer) => {
        if (size < MAX_ANSWER) chunks.push(chunk);
        size += chunk.length;
      });
      stream.on('end', () => {
        const status = Number(answerHeaders[':status'] ?? 0);
        if (status === 0) reject(new Error('APNs closed the stream without an answer'));
        else resolve({ status, headers: answerHeaders, body: Buffer.concat(chunks).toString('utf8') });
      });
      stream.on('error', reject);
      stream.on('close', () => {
        if (!answerHeaders[':status']) reject(new Error(`APNs stream closed (code ${stream.rstCode ?? 'none'})`));
      });
      stream.end(body);
    });
  }

  close(): Promise<void> {
    const session = this.session;
    this.session = null;
    if (!session || session.closed || session.destroyed) return Promise.resolve();
    return new Promise((resolve) => session.close(() => resolve()));
  }
}

export class ApnsNetwork implements PushNetwork {
  readonly name = 'apns' as const;
  private readonly senders: ApnsSender[];

  constructor(
    credentials: readonly ApnsCredential[],
    private readonly endpoints: PushEndpoints,
    now: () => number = Date.now,
  ) {
    this.senders = credentials.map((credential) => new ApnsSender(credential, credential.production ? endpoints.apnsUrl : endpoints.apnsSandboxUrl, endpoints.ca, now));
  }

  async send(devices: readonly PushDevice[], message: PushMessage): Promise<DeliveryResult[]> {
    return mapLimited(devices, this.endpoints.concurrency, async (device) => {
      try {
        return await this.sendOne(device, message);
      } catch (error) {
        return failedToConnect(device, 'APNs', error);
      }
    });
  }

  /** The credential for a device: the one of its bundle id, else the one without a topic, else the only one. */
  private senderFor(device: PushDevice): ApnsSender | null {
    const byTopic = this.senders.find((sender) => sender.credential.topic !== undefined && sender.credential.topic === device.appIdentifier);
    return byTopic ?? this.senders.find((sender) => sender.credential.topic === undefined) ?? (this.senders.length === 1 ? this.senders[0]! : null);
  }

  private async sendOne(device: PushDevice, message: PushMessage): Promise<DeliveryResult> {
    const sender = this.senderFor(device);
    if (!sender) return failed(device, `No ios push credentials for the bundle id ${JSON.stringify(device.appIdentifier)}.`);
    const topic = sender.credential.topic ?? device.appIdentifier;
    if (!topic) return failed(device, 'No APNs topic: the push credentials name none and the installation has no appIdentifier.');
    if (!/^[0-9a-fA-F]{16,200}$/.test(device.deviceToken)) return failed(device, 'APNs: the deviceToken is not a hexadecimal APNs token.', { invalidToken: true });

    const request = apnsRequest(message.data, device.badge);
    const headers: Record<string, string> = { 'apns-topic': topic, 'apns-push-type': request.pushType, 'apns-priority': request.priority };
    if (message.expiresAt) headers['apns-expiration'] = String(Math.max(1, Math.floor(message.expiresAt.getTime() / 1000)));
    if (request.collapseId) headers['apns-collapse-id'] = request.collapseId;
    const body = JSON.stringify(request.payload);
    const path = `/3/device/${device.deviceToken}`;

    const attempt = () => {
      const authorization = sender.authorization();
      return sender.post(path, authorization ? { ...headers, authorization: `bearer ${authorization}` } : headers, body);
    };
    let answer: Answer;
    try {
      answer = await attempt();
    } catch {
      // The session may have been closed under the stream (GOAWAY, idle timeout): once more, on a new one.
      answer = await attempt();
    }
    let reason = reasonOf(answer.body);
    if (answer.status === 403 && reason === 'ExpiredProviderToken') {
      sender.dropToken();
      answer = await attempt();
      reason = reasonOf(answer.body);
    }
    if (answer.status === 200) return delivered(device);
    const error = `APNs ${answer.status}${reason ? ` ${reason}` : ''}`;
    if (answer.status === 410 || INVALID_TOKEN_REASONS.has(reason)) return failed(device, error, { invalidToken: true });
    return failedWithStatus(device, error, answer.status, answer.headers);
  }

  async close(): Promise<void> {
    await Promise.all(this.senders.map((sender) => sender.close()));
  }
}

function reasonOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { reason?: unknown };
    return typeof parsed.reason === 'string' ? parsed.reason : '';
  } catch {
    return '';
  }
}
