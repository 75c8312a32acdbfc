import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

interface Account {
  readonly tokenSecret: string;
  readonly id: string;
  readonly screenName: string;
}

/**
 * A local stand-in for Twitter's `GET /1.1/account/verify_credentials.json`. Like Twitter, it
 * checks the OAuth 1.0a signature of every request against the consumer secret and the user's
 * token secret, computed here independently of Basalt's own signing code, and refuses a reused
 * nonce; anything wrong gets Twitter's 401 `{"errors": [{"code": 32, …}]}`.
 */
export class FakeTwitter {
  private readonly accounts = new Map<string, Account>();
  private readonly nonces = new Set<string>();
  /** Why each refused request was refused. */
  readonly refusals: string[] = [];

  private constructor(private readonly server: Server, readonly url: string, readonly consumerKey: string, readonly consumerSecret: string) {}

  static async start(consumerKey: string, consumerSecret: string): Promise<FakeTwitter> {
    let instance!: FakeTwitter;
    const server = createServer((request, response) => instance.handle(request, response));
    const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
    instance = new FakeTwitter(server, `http://127.0.0.1:${port}`, consumerKey, consumerSecret);
    return instance;
  }

  /** An access token and secret that Twitter issued to the account `id`. */
  issue(token: string, tokenSecret: string, id: string, screenName: string): void {
    this.accounts.set(token, { tokenSecret, id, screenName });
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const refuse = (why: string) => {
      this.refusals.push(why);
      response.writeHead(401, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ errors: [{ code: 32, message: 'Could not authenticate you.' }] }));
    };
    const url = new URL(request.url ?? '/', `http://${request.headers.host}`);
    if (request.method !== 'GET' || url.pathname !== '/1.1/account/verify_credentials.json') {
      response.writeHead(404, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ errors: [{ code: 34, message: 'Sorry, that page does not exist.' }] }));
      return;
    }
    const header = request.headers.authorization ?? '';
    if (!header.startsWith('OAuth ')) return refuse('no OAuth header');
    const oauth = new Map<string, string>();
    for (const part of header.slice(6).split(',')) {
      const match = /^\s*([^=]+)="([^"]*)"\s*$/.exec(part);
      if (match) oauth.set(decodeURIComponent(match[1]!), decodeURIComponent(match[2]!));
    }
    if (oauth.get('oauth_consumer_key') !== this.consumerKey) return refuse('wrong consumer key');
    if (oauth.get('oauth_signature_method') !== 'HMAC-SHA1' || oauth.get('oauth_version') !== '1.0') return refuse('wrong method or version');
    const account = this.accounts.get(oauth.get('oauth_token') ?? '');
    if (!account) return refuse('unknown token');
    const timestamp = Number(oauth.get('oauth_timestamp'));
    if (!Number.isFinite(timestamp) || Math.abs(timestamp - Date.now() / 1000) > 300) return refuse('timestamp out of range');
    const nonce = oauth.get('oauth_nonce') ?? '';
    if (nonce === '' || this.nonces.has(nonce)) return refuse('reused nonce');
    this.nonces.add(nonce);

    // RFC 5849 section 3.4.1: every parameter but the signature, encoded, sorted, joined.
    const rfc3986 = (text: string) => encodeURIComponent(text).replace(/[!*'()]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
    const params: string[] = [];
    for (const [name, value] of url.searchParams) params.push(`${rfc3986(name)}=${rfc3986(value)}`);
    for (const [name, value] of oauth) if (name !== 'oauth_signature') params.push(`${rfc3986(name)}=${rfc3986(value)}`);
    params.sort();
    const baseString = `GET&${rfc3986(`${url.origin}${url.pathname}`)}&${rfc3986(params.join('&'))}`;
    const expected = createHmac('sha1', `${rfc3986(this.consumerSecret)}&${rfc3986(account.tokenSecret)}`).update(baseString).digest('base64');
    if (oauth.get('oauth_signature') !== expected) return refuse('bad signature');

    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify({ id: Number(account.id), id_str: account.id, screen_name: account.screenName, name: account.screenName }));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
