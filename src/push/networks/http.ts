import http from 'node:http';
import https from 'node:https';

export interface HttpAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** Larger answers are cut: the networks answer a few hundred bytes, and a stray server must not fill memory. */
const MAX_ANSWER = 64 * 1024;
const TIMEOUT_MS = 30_000;

/**
 * HTTP/1.1 to one network's endpoints with kept-alive connections (FCM, WNS, the token
 * endpoints). node:https rather than fetch, because fetch takes no extra certificate authorities
 * without a separate undici dependency.
 */
export class HttpClient {
  private readonly httpsAgent: https.Agent;
  private readonly httpAgent = new http.Agent({ keepAlive: true });

  constructor(ca: readonly string[] | undefined, maxSockets: number) {
    this.httpsAgent = new https.Agent({ keepAlive: true, maxSockets, ...(ca ? { ca: [...ca] } : {}) });
  }

  request(url: string, method: string, headers: Record<string, string>, body: string | Buffer): Promise<HttpAnswer> {
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    if (!secure && target.protocol !== 'http:') return Promise.reject(new Error(`not an http(s) URL: ${target.protocol}`));
    const payload = typeof body === 'string' ? Buffer.from(body) : body;
    return new Promise((resolve, reject) => {
      const request = (secure ? https : http).request(
        target,
        { method, headers: { ...headers, 'Content-Length': String(payload.length) }, agent: secure ? this.httpsAgent : this.httpAgent, timeout: TIMEOUT_MS },
        (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            if (size < MAX_ANSWER) chunks.push(chunk);
            size += chunk.length;
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).subarray(0, MAX_ANSWER).toString('utf8') }));
          response.on('error', reject);
        },
      );
      request.on('timeout', () => request.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
      request.on('error', reject);
      request.end(payload);
    });
  }

  close(): void {
    this.httpsAgent.destroy();
    this.httpAgent.destroy();
  }
}

const REFUSAL_MS = 10_000;

/** A cached bearer token, fetched once at a time and renewed `marginMs` before it expires. */
export class TokenCache {
  private token: { value: string; expiresAt: number } | null = null;
  private pending: Promise<string> | null = null;
  private refusal: { error: unknown; until: number } | null = null;

  constructor(
    private readonly fetchToken: () => Promise<{ value: string; lifetimeSeconds: number }>,
    private readonly marginMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(): Promise<string> {
    if (this.token && this.now() < this.token.expiresAt - this.marginMs) return Promise.resolve(this.token.value);
    // A refusal stands for a few seconds, so that a page of devices does not ask again for each one.
    if (this.refusal && this.now() < this.refusal.until) return Promise.reject(this.refusal.error);
    this.pending ??= this.fetchToken()
      .then(({ value, lifetimeSeconds }) => {
        this.token = { value, expiresAt: this.now() + lifetimeSeconds * 1000 };
        this.refusal = null;
        return value;
      })
      .catch((error: unknown) => {
        this.refusal = { error, until: this.now() + REFUSAL_MS };
        throw error;
      })
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }

  /** The network refused the token (expired early, revoked): the next get fetches another. */
  drop(value: string): void {
    if (this.token?.value === value) this.token = null;
  }
}

/** The first words of an answer, for an error message. */
export function excerpt(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** The token endpoint said no: wrong credentials (4xx) stay wrong; 429 and 5xx may pass later. */
export class TokenRefused extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** An OAuth2 token answer (RFC 6749 §5.1), or an error that says what the endpoint said. */
export function tokenOf(answer: HttpAnswer, what: string): { value: string; lifetimeSeconds: number } {
  let parsed: { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown } = {};
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    // reported below
  }
  if (answer.status !== 200 || typeof parsed.access_token !== 'string') {
    const said = typeof parsed.error === 'string' ? `${parsed.error}${typeof parsed.error_description === 'string' ? `: ${parsed.error_description}` : ''}` : excerpt(answer.body);
    throw new TokenRefused(`${what} refused (${answer.status} ${said})`, answer.status);
  }
  const lifetime = Number(parsed.expires_in);
  return { value: parsed.access_token, lifetimeSeconds: Number.isFinite(lifetime) && lifetime > 0 ? lifetime : 3600 };
}
