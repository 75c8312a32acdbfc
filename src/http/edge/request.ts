import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { RequestFacts } from '../context.ts';
import { forwardedEntry } from '../forwarded.ts';
import type { RouteAnswerHook } from '../answer-hooks.ts';

const NONE: Record<string, never> = Object.freeze({});

/**
 * One request as the routes, the context (an app route's AppRequest) and the request log read it.
 * Its address, host and protocol follow X-Forwarded-* only with --trust-proxy (http/forwarded.ts).
 */
export class EdgeRequest implements RequestFacts {
  body: unknown = undefined;
  /** Set once the route is found; shared empty objects until then, so a request allocates none. */
  params: Record<string, string> = NONE;
  query: Record<string, unknown> = NONE;
  /** When the request arrived here, for its latency (read only when there are answer hooks). */
  readonly started: number;

  constructor(
    readonly raw: IncomingMessage,
    readonly id: string,
    readonly log: RequestFacts['log'],
    private readonly trustProxy: boolean,
    /** The route's answer hooks (null when there are none, as without --metrics). */
    readonly hooks: RouteAnswerHook | null,
  ) {
    this.started = hooks === null ? 0 : performance.now();
  }

  get method(): string {
    return this.raw.method!;
  }

  get url(): string {
    return this.raw.url!;
  }

  get headers(): IncomingHttpHeaders {
    return this.raw.headers;
  }

  get socket(): IncomingMessage['socket'] {
    return this.raw.socket;
  }

  get ip(): string {
    const forwarded = this.trustProxy ? forwardedEntry(this.raw.headers['x-forwarded-for'], 'first') : undefined;
    return forwarded ?? this.raw.socket.remoteAddress ?? '';
  }

  get host(): string {
    const forwarded = this.trustProxy ? forwardedEntry(this.raw.headers['x-forwarded-host'], 'last') : undefined;
    return forwarded ?? this.raw.headers.host ?? '';
  }

  get protocol(): string {
    const forwarded = this.trustProxy ? forwardedEntry(this.raw.headers['x-forwarded-proto'], 'last') : undefined;
    return forwarded ?? ('encrypted' in this.raw.socket && this.raw.socket.encrypted ? 'https' : 'http');
  }

  /** A request header as one string (the first of a repeated one). */
  header(name: string): string | undefined {
    const value = this.raw.headers[name];
    return Array.isArray(value) ? value[0] : value;
  }
}
