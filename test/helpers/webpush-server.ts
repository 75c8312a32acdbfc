/**
 * A local Web Push service (RFC 8030) over HTTPS. Each subscription it hands out has a fresh
 * ECDH P-256 key pair and auth secret, as a browser makes them; a push to it must carry a VAPID
 * token (RFC 8292) that verifies against the key it names, and an aes128gcm body (RFC 8291) that
 * this server decrypts with the subscription's private key. What it records is the plaintext.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { createDecipheriv, createECDH, createHmac, randomBytes, type ECDH } from 'node:crypto';
import { SERVER_TLS, p256PublicKey, verifyJwt } from './push-test-keys.ts';
import type { Scripted } from './fcm-wns-servers.ts';

export interface WebPushReceived {
  readonly id: string;
  readonly headers: IncomingHttpHeaders;
  readonly plaintext: string;
  readonly vapid: { readonly publicKey: string; readonly claims: Record<string, any> };
}

const hmac = (key: Buffer, data: Buffer) => createHmac('sha256', key).update(data).digest();

/** RFC 8291 §3.4 and RFC 8188: one record, keyid = the sender's public key. */
export function decryptAes128gcm(body: Buffer, receiver: ECDH, authSecret: Buffer): string {
  const salt = body.subarray(0, 16);
  const idLength = body[20]!;
  const senderPublic = body.subarray(21, 21 + idLength);
  const record = body.subarray(21 + idLength);
  const ecdhSecret = receiver.computeSecret(senderPublic);
  const prkKey = hmac(authSecret, ecdhSecret);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), receiver.getPublicKey(), senderPublic, Buffer.from([1])]);
  const ikm = hmac(prkKey, keyInfo);
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.from('Content-Encoding: aes128gcm\0\x01')).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from('Content-Encoding: nonce\0\x01')).subarray(0, 12);
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 2 and then zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error('no last-record delimiter');
  return padded.subarray(0, end).toString('utf8');
}

export class WebPushServer {
  readonly received: WebPushReceived[] = [];
  readonly refused: { id: string; why: string }[] = [];
  readonly script = new Map<string, Scripted[]>();
  private readonly subscriptions = new Map<string, { receiver: ECDH; auth: Buffer }>();

  private constructor(private readonly server: Server, readonly url: string) {}

  static async start(): Promise<WebPushServer> {
    let instance!: WebPushServer;
    const server = createServer(SERVER_TLS, (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const { status, headers } = instance.handle(request.method ?? '', request.url ?? '', request.headers, Buffer.concat(chunks));
        response.writeHead(status, headers);
        response.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (typeof address !== 'object' || !address) throw new Error('no address');
    instance = new WebPushServer(server, `https://localhost:${address.port}`);
    return instance;
  }

  /** A browser's PushSubscription for a new endpoint of this server, as the JSON an installation stores. */
  subscribe(id: string): string {
    const receiver = createECDH('prime256v1');
    receiver.generateKeys();
    const auth = randomBytes(16);
    this.subscriptions.set(id, { receiver, auth });
    return JSON.stringify({ endpoint: `${this.url}/push/${id}`, expirationTime: null, keys: { p256dh: receiver.getPublicKey().toString('base64url'), auth: auth.toString('base64url') } });
  }

  private handle(method: string, path: string, headers: IncomingHttpHeaders, body: Buffer): { status: number; headers?: Record<string, string> } {
    const id = /^\/push\/([^/]+)$/.exec(path)?.[1];
    const subscription = id ? this.subscriptions.get(id) : undefined;
    if (method !== 'POST' || !id || !subscription) return { status: 404 };
    const refuse = (status: number, why: string) => {
      this.refused.push({ id, why });
      return { status };
    };
    const vapid = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(String(headers.authorization ?? ''));
    if (!vapid) return refuse(401, 'no VAPID authorization');
    const jwt = verifyJwt(vapid[1]!, 'ES256', p256PublicKey(Buffer.from(vapid[2]!, 'base64url')));
    if (!jwt) return refuse(403, 'VAPID signature');
    const now = Date.now() / 1000;
    if (jwt.claims.aud !== this.url || typeof jwt.claims.exp !== 'number' || jwt.claims.exp < now || jwt.claims.exp > now + 86_400) return refuse(403, 'VAPID claims');
    if (!/^\d+$/.test(String(headers.ttl))) return refuse(400, 'TTL');
    if (headers['content-encoding'] !== 'aes128gcm') return refuse(415, 'Content-Encoding');
    let plaintext: string;
    try {
      plaintext = decryptAes128gcm(body, subscription.receiver, subscription.auth);
    } catch (error) {
      return refuse(400, `decryption: ${(error as Error).message}`);
    }
    this.received.push({ id, headers, plaintext, vapid: { publicKey: vapid[2]!, claims: jwt.claims } });
    const list = this.script.get(id);
    const scripted = list && list.length > 1 ? list.shift() : list?.[0];
    if (scripted) return { status: scripted.status, ...(scripted.headers ? { headers: scripted.headers } : {}) };
    return { status: 201, headers: { Location: `${this.url}/message/${this.received.length}` } };
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
