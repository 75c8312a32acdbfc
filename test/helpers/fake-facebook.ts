import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

interface IssuedToken {
  readonly userId: string;
  readonly appId: string;
}

/**
 * A local stand-in for Facebook's Graph API, answering the two calls Basalt makes as Facebook
 * does: `GET /me?fields=id&access_token=…` → `{id, name}` and `GET /app?access_token=…` → the
 * Facebook app the token was issued to. An unknown token gets Facebook's OAuthException (400).
 * With `appSecret`, a call without the right `appsecret_proof` is refused the same way, as
 * Facebook does for apps that require it.
 */
export class FakeFacebook {
  private readonly tokens = new Map<string, IssuedToken>();
  /** Paths (with query) of every request received, in order. */
  readonly requests: string[] = [];
  appSecret: string | null = null;

  private constructor(private readonly server: Server, readonly url: string) {}

  static async start(): Promise<FakeFacebook> {
    let instance!: FakeFacebook;
    const server = createServer((request, response) => instance.handle(request, response));
    const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
    instance = new FakeFacebook(server, `http://127.0.0.1:${port}`);
    return instance;
  }

  /** A token Facebook issued to `appId` for the user `userId`. */
  issue(token: string, userId: string, appId = 'fb-app-1'): void {
    this.tokens.set(token, { userId, appId });
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    this.requests.push(request.url ?? '');
    const url = new URL(request.url ?? '/', this.url);
    const token = url.searchParams.get('access_token') ?? '';
    const issued = this.tokens.get(token);
    const reply = (status: number, body: unknown) => {
      response.writeHead(status, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const oauthError = (message: string) => reply(400, { error: { message, type: 'OAuthException', code: 190 } });
    if (request.method !== 'GET') return reply(405, { error: { message: 'Unsupported method', type: 'GraphMethodException', code: 100 } });
    if (!issued) return oauthError('Invalid OAuth access token.');
    if (this.appSecret !== null) {
      const proof = createHmac('sha256', this.appSecret).update(token).digest('hex');
      if (url.searchParams.get('appsecret_proof') !== proof) return oauthError('API calls from the server require an appsecret_proof argument');
    }
    if (url.pathname === '/me') return reply(200, { id: issued.userId, name: `User ${issued.userId}` });
    if (url.pathname === '/app') return reply(200, { id: issued.appId, name: 'Some Facebook app' });
    return reply(404, { error: { message: `Unknown path ${url.pathname}`, type: 'GraphMethodException', code: 100 } });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
