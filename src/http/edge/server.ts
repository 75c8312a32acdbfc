import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { clientErrorHandler, expectationFailed } from '../errors.ts';
import type { Edge } from './edge.ts';

/**
 * How long a kept-alive connection may stay idle between requests. No timeout is set on a
 * request itself or on an idle socket otherwise: a slow upload or a long query is not cut off,
 * and shutdown closes idle connections (HttpServer.close).
 */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/** The node:http server the edge answers on: its timeouts, its refusals, listen and close. */
export class HttpServer {
  readonly server: Server;

  constructor(private readonly edge: Edge) {
    this.server = createServer(edge.handle);
    this.server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    this.server.requestTimeout = 0;
    this.server.setTimeout(0);
    // node's own answers have no body or another shape: these are {code, error} (errors.ts).
    this.server.on('clientError', clientErrorHandler);
    this.server.on('checkExpectation', expectationFailed);
  }

  /** Listens; the address as a URL (`http://127.0.0.1:1337`). */
  listen(port: number, host: string): Promise<string> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve(urlOf(this.server.address() as AddressInfo));
      });
    });
  }

  address(): AddressInfo | string | null {
    return this.server.address();
  }

  /**
   * Stops accepting connections and closes the idle ones; a request under way is answered, and
   * its connection closed after the answer. Resolves once every connection is closed.
   */
  close(): Promise<void> {
    this.edge.close();
    if (!this.server.listening) return Promise.resolve();
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeIdleConnections();
    });
  }
}

function urlOf(address: AddressInfo): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}
