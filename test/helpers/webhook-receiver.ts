import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One call a receiver got: its body, headers, and whether its signature checked out. */
export interface ReceivedCall {
  readonly path: string;
  readonly body: any;
  readonly headers: IncomingMessage['headers'];
  readonly signed: boolean;
}

/** What a route answers: a status and a JSON body, or `hang` to never answer (a timeout). */
export type Answer = { readonly status?: number; readonly body: unknown } | 'hang';

/**
 * A webhook receiver on 127.0.0.1, as an app's operator would write one: it checks
 * `X-Svc-Webhook-Signature` (HMAC-SHA256 over "<t>.<body>" with the app's webhook key) and
 * records every call; each path answers what the test tells it, call by call.
 */
export class WebhookReceiver {
  readonly calls: ReceivedCall[] = [];
  private readonly routes = new Map<string, (call: ReceivedCall, index: number) => Answer | Promise<Answer>>();
  private readonly hanging = new Set<() => void>();
  private constructor(private readonly server: Server, private readonly key: string) {}

  static async start(webhookKey: string): Promise<WebhookReceiver> {
    const server = createServer();
    const receiver = new WebhookReceiver(server, webhookKey);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const path = req.url ?? '/';
        const call: ReceivedCall = { path, body: JSON.parse(text), headers: req.headers, signed: receiver.verify(req.headers['x-svc-webhook-signature'], text) };
        receiver.calls.push(call);
        const index = receiver.calls.filter((one) => one.path === path).length - 1;
        void Promise.resolve(receiver.routes.get(path)?.(call, index) ?? { status: 404, body: { error: 'no such hook' } }).then((answer) => {
          if (answer === 'hang') {
            receiver.hanging.add(() => res.destroy());
            return;
          }
          res.writeHead(answer.status ?? 200, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify(answer.body));
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** Sets what `path` answers; `answer` gets the call and its number on that path (0 first), and may answer later. */
  on(path: string, answer: (call: ReceivedCall, index: number) => Answer | Promise<Answer>): string {
    this.routes.set(path, answer);
    return this.url(path);
  }

  callsTo(path: string): ReceivedCall[] {
    return this.calls.filter((call) => call.path === path);
  }

  /** Waits (bounded) until `path` got `count` calls. */
  async waitForCalls(path: string, count: number, limitMs = 20_000): Promise<ReceivedCall[]> {
    const deadline = Date.now() + limitMs;
    while (this.callsTo(path).length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    return this.callsTo(path);
  }

  /** The receiver's side of the signature: a fresh time and the MAC of "<t>.<body>". */
  private verify(header: string | string[] | undefined, body: string): boolean {
    const match = typeof header === 'string' ? /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header) : null;
    if (!match) return false;
    const age = Math.abs(Date.now() / 1000 - Number(match[1]));
    const expected = createHmac('sha256', this.key).update(`${match[1]}.${body}`).digest();
    return age < 300 && timingSafeEqual(expected, Buffer.from(match[2]!, 'hex'));
  }

  async close(): Promise<void> {
    for (const end of this.hanging) end();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
