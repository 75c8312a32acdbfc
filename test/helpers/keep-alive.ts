import { connect, type Socket } from 'node:net';

/** One answer read off a raw connection. */
export interface WireAnswer {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Record<string, string>;
  readonly text: string;
  readonly body: any;
}

export interface WireRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: Buffer;
  /** The body is written in parts of this many bytes, each once the socket took the last. */
  readonly chunk?: number;
  /**
   * Sends `Expect: 100-continue` and writes the body only after a 100 Continue; a final answer
   * that comes first is taken as the answer and the body is not sent.
   */
  readonly expectContinue?: boolean;
  /** Sends the body with Transfer-Encoding: chunked, one chunk per part, instead of a Content-Length. */
  readonly chunked?: boolean;
}

/**
 * One HTTP/1.1 connection on node:net, kept open across requests, written like a slow client:
 * the request head, then the body in parts, each written once the socket took the last, and the
 * answer read only then. A server that resets the connection under such a client fails the
 * request with the socket's error; one that answers and closes is seen in `closed`.
 */
export class KeptAliveConnection {
  private buffer = Buffer.alloc(0);
  private waiter: (() => void) | null = null;
  private failure: Error | null = null;
  closed = false;

  private constructor(
    private readonly socket: Socket,
    private readonly host: string,
  ) {
    socket.on('data', (data: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, data]);
      this.wake();
    });
    socket.on('error', (error) => {
      this.failure = error;
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  static open(url: string): Promise<KeptAliveConnection> {
    const { hostname, port, host } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect({ host: hostname, port: Number(port) }, () => resolve(new KeptAliveConnection(socket, host)));
      socket.once('error', reject);
    });
  }

  async request(request: WireRequest): Promise<WireAnswer> {
    const body = request.body ?? Buffer.alloc(0);
    const framing: Record<string, string> = request.chunked ? { 'Transfer-Encoding': 'chunked' } : { 'Content-Length': String(body.length) };
    const headers: Record<string, string> = { Host: this.host, ...framing, ...request.headers };
    if (request.expectContinue) headers.Expect = '100-continue';
    const head = `${request.method} ${request.path} HTTP/1.1\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
    await this.write(Buffer.from(head, 'latin1'));
    if (request.expectContinue) {
      const first = await this.readAnswer();
      if (first.status !== 100) return first;
    }
    const chunk = request.chunk ?? 64 * 1024;
    for (let offset = 0; offset < body.length; offset += chunk) {
      const part = body.subarray(offset, offset + chunk);
      await this.write(request.chunked ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]) : part);
    }
    if (request.chunked) await this.write(Buffer.from('0\r\n\r\n'));
    return this.readAnswer();
  }

  close(): void {
    this.socket.destroy();
  }

  private write(data: Buffer): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.socket.write(data, (error) => (error ? reject(error) : resolve())));
  }

  /** The next answer, head and body (by its Content-Length; the server's answers all carry one). */
  private async readAnswer(): Promise<WireAnswer> {
    let end: number;
    while ((end = this.buffer.indexOf('\r\n\r\n')) < 0) await this.more();
    const lines = this.buffer.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0]!)?.[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = status === 100 ? 0 : Number(headers['content-length'] ?? NaN);
    if (!Number.isInteger(length)) throw new Error(`an answer without a Content-Length: ${lines[0]}`);
    while (this.buffer.length < end + 4 + length) await this.more();
    const text = this.buffer.subarray(end + 4, end + 4 + length).toString('utf8');
    this.buffer = this.buffer.subarray(end + 4 + length);
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status, headers, text, body };
  }

  private more(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed) return Promise.reject(new Error('the server closed the connection before its answer was complete'));
    return new Promise((resolve) => (this.waiter = resolve));
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.();
  }
}

/** Writes `raw` on a fresh connection and reads until the server closes it. */
export function rawExchange(url: string, raw: string | Buffer): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.write(raw));
    let answer = '';
    socket.on('data', (data) => (answer += data.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
  });
}
