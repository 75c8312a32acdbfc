/**
 * A local HTTP/2 server that answers like APNs ("Sending notification requests to APNs",
 * "Handling notification responses from APNs"): it checks the provider token's ES256 signature
 * against the team's public key, or the client certificate, and the request headers, then
 * answers 200 with an apns-id or the documented error reasons.
 */
import { createSecureServer, type Http2SecureServer, type Http2Session, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import { randomUUID, type KeyObject } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { SERVER_TLS, TEST_CA, peekJwt, verifyJwt } from './push-test-keys.ts';

export interface ApnsReceived {
  readonly deviceToken: string;
  readonly headers: IncomingHttpHeaders;
  readonly payload: any;
  /** How the provider proved itself: its key id, or the client certificate's common name. */
  readonly auth: string;
  /** When it arrived (epoch ms). */
  readonly at: number;
}

export interface ScriptedAnswer {
  readonly status: number;
  readonly reason?: string;
  readonly headers?: Record<string, string>;
}

const PUSH_TYPES = new Set(['alert', 'background', 'voip', 'complication', 'fileprovider', 'mdm', 'location', 'liveactivity', 'pushtotalk', 'widgets']);

export class ApnsServer {
  readonly received: ApnsReceived[] = [];
  /** Answers by device token, used in order (the last one stays). */
  readonly script = new Map<string, ScriptedAnswer[]>();
  /** Provider keys by key id. */
  readonly keys = new Map<string, { publicKey: KeyObject; teamId: string }>();
  /** Tokens older than this are "expired" (APNs: one hour). */
  tokenLifetimeSeconds = 3600;
  connections = 0;
  /** Milliseconds each answer waits, so that streams overlap; and the most that did. */
  answerDelayMs = 0;
  inFlight = 0;
  maxInFlight = 0;
  readonly tokensSeen = new Set<string>();
  private readonly sessions = new Set<Http2Session>();

  private constructor(
    private readonly server: Http2SecureServer,
    readonly url: string,
  ) {}

  static async start(): Promise<ApnsServer> {
    const server = createSecureServer({ ...SERVER_TLS, ca: TEST_CA, requestCert: true, rejectUnauthorized: false, allowHTTP1: false });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (typeof address !== 'object' || !address) throw new Error('no address');
    const instance = new ApnsServer(server, `https://localhost:${address.port}`);
    server.on('session', (session) => {
      instance.connections++;
      instance.sessions.add(session);
      session.on('close', () => instance.sessions.delete(session));
    });
    server.on('stream', (stream, headers) => instance.handle(stream, headers));
    return instance;
  }

  /** Sends GOAWAY on every open connection and closes it, as APNs does; resolves once all are closed. */
  async goAway(): Promise<void> {
    const closing = [...this.sessions].map((session) => new Promise<void>((resolve) => {
      session.goaway();
      session.close(() => resolve());
    }));
    await Promise.all(closing);
  }

  private handle(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void {
    const chunks: Buffer[] = [];
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => setTimeout(() => this.answer(stream, headers, chunks), this.answerDelayMs));
  }

  private answer(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, chunks: Buffer[]): void {
    this.inFlight--;
    const answer = (status: number, reason?: string, extra: Record<string, string> = {}) => {
      stream.respond({ ':status': status, 'apns-id': randomUUID(), ...(reason ? { 'content-type': 'application/json' } : {}), ...extra });
      stream.end(reason ? JSON.stringify({ reason, ...(status === 410 ? { timestamp: Date.now() } : {}) }) : undefined);
    };
    const match = /^\/3\/device\/([0-9a-fA-F]+)$/.exec(String(headers[':path']));
    if (headers[':method'] !== 'POST') return answer(405, 'MethodNotAllowed');
    if (!match) return answer(400, 'BadPath');
    const auth = this.authenticate(stream, headers);
    if (auth.reason) return answer(403, auth.reason);
    if (!headers['apns-topic']) return answer(400, 'MissingTopic');
    if (!PUSH_TYPES.has(String(headers['apns-push-type']))) return answer(400, 'InvalidPushType');
    if (headers['apns-priority'] !== undefined && !['1', '5', '10'].includes(String(headers['apns-priority']))) return answer(400, 'BadPriority');
    if (headers['apns-expiration'] !== undefined && !/^\d+$/.test(String(headers['apns-expiration']))) return answer(400, 'BadExpirationDate');
    if (headers['apns-collapse-id'] !== undefined && Buffer.byteLength(String(headers['apns-collapse-id'])) > 64) return answer(400, 'BadCollapseId');
    let payload: any;
    try {
      payload = JSON.parse(Buffer.concat(chunks).toString());
    } catch {
      return answer(400, 'PayloadEmpty');
    }
    if (typeof payload?.aps !== 'object') return answer(400, 'PayloadEmpty');
    const deviceToken = match[1]!;
    this.received.push({ deviceToken, headers, payload, auth: auth.who!, at: Date.now() });
    const scripted = this.script.get(deviceToken);
    const next = scripted && scripted.length > 1 ? scripted.shift()! : scripted?.[0];
    if (next) return answer(next.status, next.reason, next.headers);
    answer(200);
  }

  private authenticate(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): { who?: string; reason?: string } {
    const authorization = headers.authorization;
    if (authorization === undefined) {
      const socket = stream.session?.socket as TLSSocket | undefined;
      if (!socket?.authorized) return { reason: 'MissingProviderToken' };
      return { who: `cert:${socket.getPeerCertificate().subject.CN}` };
    }
    const token = /^bearer (.+)$/.exec(String(authorization))?.[1];
    if (!token) return { reason: 'InvalidProviderToken' };
    const kid = peekJwt(token)?.header.kid;
    const key = this.keys.get(kid);
    const jwt = key ? verifyJwt(token, 'ES256', key.publicKey) : null;
    if (!key || !jwt || jwt.claims.iss !== key.teamId || typeof jwt.claims.iat !== 'number') return { reason: 'InvalidProviderToken' };
    if (Date.now() / 1000 - jwt.claims.iat > this.tokenLifetimeSeconds) return { reason: 'ExpiredProviderToken' };
    this.tokensSeen.add(token);
    return { who: `token:${kid}` };
  }

  async close(): Promise<void> {
    for (const session of this.sessions) session.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
