/**
 * Local servers for the OAuth-authorised networks, over HTTPS with the test certificate:
 *   FcmServer: Google's OAuth2 token endpoint (the JWT-bearer grant, RFC 7523; it checks the RS256
 *   assertion against the service account's public key) and FCM HTTP v1 `messages:send`.
 *   WnsServer: the WNS token endpoint (client credentials) and channel URIs.
 * Both answer like the real services, including their error bodies.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { KeyObject } from 'node:crypto';
import { SERVER_TLS, peekJwt, verifyJwt } from './push-test-keys.ts';

export interface Scripted {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

async function listen(handle: (request: IncomingMessage, body: string, response: ServerResponse) => void): Promise<{ server: Server; url: string }> {
  const server = createServer(SERVER_TLS, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handle(request, Buffer.concat(chunks).toString(), response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('no address');
  return { server, url: `https://localhost:${address.port}` };
}

function reply(response: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers });
  response.end(body === undefined ? undefined : JSON.stringify(body));
}

function next(script: Map<string, Scripted[]>, key: string): Scripted | undefined {
  const list = script.get(key);
  return list && list.length > 1 ? list.shift() : list?.[0];
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

export class FcmServer {
  /** Service accounts by client_email. */
  readonly accounts = new Map<string, { publicKey: KeyObject; projectId: string }>();
  readonly issued = new Map<string, string>();
  tokenRequests = 0;
  tokenLifetimeSeconds = 3600;
  readonly received: { projectId: string; message: any; headers: IncomingHttpHeaders }[] = [];
  readonly script = new Map<string, Scripted[]>();

  private constructor(private readonly server: Server, readonly url: string) {}

  get tokenUrl(): string {
    return `${this.url}/token`;
  }

  static async start(): Promise<FcmServer> {
    let instance!: FcmServer;
    const { server, url } = await listen((request, body, response) => instance.handle(request, body, response));
    instance = new FcmServer(server, url);
    return instance;
  }

  /** Ends every issued token's life early, as a revocation does. */
  revokeTokens(): void {
    this.issued.clear();
  }

  private handle(request: IncomingMessage, body: string, response: ServerResponse): void {
    if (request.method === 'POST' && request.url === '/token') return this.token(body, response);
    const send = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(request.url ?? '');
    if (request.method !== 'POST' || !send) return reply(response, 404, { error: { code: 404, status: 'NOT_FOUND', message: 'no such method' } });
    const projectId = decodeURIComponent(send[1]!);
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!token || this.issued.get(token) !== projectId) {
      return reply(response, 401, { error: { code: 401, status: 'UNAUTHENTICATED', message: 'Request had invalid authentication credentials.' } });
    }
    let message: any;
    try {
      message = JSON.parse(body).message;
    } catch {
      return reply(response, 400, { error: { code: 400, status: 'INVALID_ARGUMENT', message: 'Invalid JSON payload received.' } });
    }
    const badData = message?.data && Object.values(message.data).some((value) => typeof value !== 'string');
    if (typeof message?.token !== 'string' || badData) {
      return reply(response, 400, { error: { code: 400, status: 'INVALID_ARGUMENT', message: badData ? 'Invalid value at message.data: strings only' : 'token missing' } });
    }
    this.received.push({ projectId, message, headers: request.headers });
    const scripted = next(this.script, message.token);
    if (scripted) return reply(response, scripted.status, scripted.body, scripted.headers);
    reply(response, 200, { name: `projects/${projectId}/messages/${this.received.length}` });
  }

  private token(body: string, response: ServerResponse): void {
    this.tokenRequests++;
    const form = new URLSearchParams(body);
    const refuse = (description: string) => reply(response, 400, { error: 'invalid_grant', error_description: description });
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return reply(response, 400, { error: 'unsupported_grant_type' });
    const assertion = form.get('assertion') ?? '';
    const account = this.accounts.get(peekJwt(assertion)?.claims.iss);
    const jwt = account ? verifyJwt(assertion, 'RS256', account.publicKey) : null;
    if (!account || !jwt) return refuse('Invalid JWT Signature.');
    const now = Date.now() / 1000;
    if (jwt.claims.aud !== this.tokenUrl) return refuse('Invalid JWT: aud');
    if (jwt.claims.scope !== 'https://www.googleapis.com/auth/firebase.messaging') return refuse('Invalid JWT: scope');
    if (typeof jwt.claims.iat !== 'number' || typeof jwt.claims.exp !== 'number' || jwt.claims.exp <= now || jwt.claims.exp - jwt.claims.iat > 3600) return refuse('Invalid JWT: Token must be a short-lived token (60 minutes)');
    const token = `ya29.test-${this.tokenRequests}-${account.projectId}`;
    this.issued.set(token, account.projectId);
    reply(response, 200, { access_token: token, expires_in: this.tokenLifetimeSeconds, token_type: 'Bearer' });
  }

  close(): Promise<void> {
    return close(this.server);
  }
}

export class WnsServer {
  readonly clients = new Map<string, string>();
  readonly issued = new Set<string>();
  tokenRequests = 0;
  readonly received: { channel: string; headers: IncomingHttpHeaders; body: string }[] = [];
  readonly script = new Map<string, Scripted[]>();

  private constructor(private readonly server: Server, readonly url: string) {}

  get tokenUrl(): string {
    return `${this.url}/accesstoken.srf`;
  }

  /** A channel URI of this server, as Windows hands one to an app (127.0.0.1 so that --wns-channel-hosts can name it). */
  channel(id: string): string {
    return `${this.url.replace('localhost', '127.0.0.1')}/w/?token=${encodeURIComponent(id)}`;
  }

  static async start(): Promise<WnsServer> {
    let instance!: WnsServer;
    const { server, url } = await listen((request, body, response) => instance.handle(request, body, response));
    instance = new WnsServer(server, url);
    return instance;
  }

  private handle(request: IncomingMessage, body: string, response: ServerResponse): void {
    if (request.method === 'POST' && request.url === '/accesstoken.srf') {
      this.tokenRequests++;
      const form = new URLSearchParams(body);
      if (form.get('grant_type') !== 'client_credentials' || form.get('scope') !== 'notify.windows.com') return reply(response, 400, { error: 'invalid_request' });
      const secret = this.clients.get(form.get('client_id') ?? '');
      if (secret === undefined || secret !== form.get('client_secret')) return reply(response, 400, { error: 'invalid_client', error_description: 'Invalid client id' });
      const token = `wns-token-${this.tokenRequests}`;
      this.issued.add(token);
      return reply(response, 200, { access_token: token, token_type: 'bearer', expires_in: 86400 });
    }
    const url = new URL(request.url ?? '/', this.url);
    const channel = url.searchParams.get('token');
    if (request.method !== 'POST' || url.pathname !== '/w/' || !channel) return reply(response, 404);
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!token || !this.issued.has(token)) return reply(response, 401, undefined, { 'WWW-Authenticate': 'Bearer error="invalid_token",error_description="Token expired"' });
    const type = String(request.headers['x-wns-type']);
    if (!['wns/toast', 'wns/tile', 'wns/badge', 'wns/raw'].includes(type)) return reply(response, 400, undefined, { 'X-WNS-Error-Description': 'bad X-WNS-Type' });
    const expected = type === 'wns/raw' ? 'application/octet-stream' : 'text/xml';
    if (request.headers['content-type'] !== expected) return reply(response, 400, undefined, { 'X-WNS-Error-Description': 'bad Content-Type' });
    this.received.push({ channel, headers: request.headers, body });
    const scripted = next(this.script, channel);
    if (scripted) return reply(response, scripted.status, scripted.body, scripted.headers);
    reply(response, 200, undefined, { 'X-WNS-NotificationStatus': 'received', 'X-WNS-Msg-ID': String(this.received.length) });
  }

  /** Forgets every issued token, so that the next request with one is refused with 401. */
  expireTokens(): void {
    this.issued.clear();
  }

  close(): Promise<void> {
    return close(this.server);
  }
}
