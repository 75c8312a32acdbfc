import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import FindMyWay from 'find-my-way';
import type { Logger } from 'pino';
import type { Result } from '../rest/context.ts';
import { JsonText } from '../rest/encoded.ts';
import { parseBodyText } from './body.ts';
import { corsHeaders } from './cors.ts';
import type { HttpDeps } from './deps.ts';
import { failureAnswer } from './errors.ts';
import { requestLogger } from './log.ts';
import { forwardedEntry } from './forwarded.ts';
import { newRequestId } from './request-id.ts';
import { runAppRoute, type AppRequest } from './app-routes.ts';
import { routeEntries, type AppRoute, type RouteTable } from './route.ts';
import type { AnswerHooks, RouteAnswerHook } from './answer-hooks.ts';

/** The router options of fastify's router and of this one: both must route a path alike. */
export const ROUTER_OPTIONS = { ignoreTrailingSlash: true, maxParamLength: 1000 } as const;

/** Body types read as JSON here; any other goes to fastify's parsers (see body.ts). */
const PLAIN_TYPES = new Set([
  'application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8',
  'text/plain', 'text/plain; charset=utf-8', 'text/plain;charset=utf-8',
]);

interface Store {
  /** null on a POST path that exists only for `_method` overrides. */
  readonly route: AppRoute | null;
  /** The route's answer hooks, bound once (null when there are none, as without --metrics). */
  readonly hooks: RouteAnswerHook | null;
}

/**
 * Basalt's own front for the app routes (objects, users, sessions, batch…): the requests an app
 * makes all day. It answers them on node:http without fastify's per-request machinery (its
 * request and reply objects, hook chain and content-type parsers), which cost about a tenth of a
 * read by id. It answers only the ordinary shapes: a path its router matches, GET, POST, PUT or
 * DELETE, and a body that is absent or JSON of a declared length within the limit. Everything
 * else (HEAD, OPTIONS, broken escapes, chunked or oversized bodies, other content types, any
 * request once the server is closing) is left to fastify, whose routes for the same paths answer
 * it as before. Both call runAppRoute, so a use case cannot tell which front it came through.
 */
export class DirectFront {
  private readonly router = FindMyWay(ROUTER_OPTIONS);
  private closing = false;

  constructor(
    private readonly deps: HttpDeps,
    private readonly table: RouteTable,
    /** fastify's logger: request lines carry the same serializers whichever front answers. */
    private readonly log: Logger,
    hooks: AnswerHooks | null = null,
  ) {
    for (const { method, path, route } of routeEntries(table.routes)) this.router.on(method, path, unused, { route, hooks: hooks?.forRoute(path) ?? null } satisfies Store);
  }

  /** From now on every request goes to fastify, which answers 503 while it drains. */
  close(): void {
    this.closing = true;
  }

  /** Answers the request and returns true, or returns false and leaves it untouched. */
  take(req: IncomingMessage, res: ServerResponse): boolean {
    if (this.closing) return false;
    const method = req.method!;
    if (method !== 'GET' && method !== 'POST' && method !== 'PUT' && method !== 'DELETE') return false;
    let found;
    try {
      found = this.router.find(method, req.url!);
    } catch {
      return false;
    }
    if (found === null) return false;
    const body = method === 'GET' ? 'none' : bodyShape(req.headers, this.deps.config.bodyLimit);
    if (body === 'other') return false;

    const id = newRequestId();
    const store = found.store as Store;
    const request = new DirectRequest(req, id, requestLogger(this.log, { reqId: id }, {}), this.deps.config.trustProxy, store.hooks);
    if (this.log.isLevelEnabled('info')) logExchange(request, res);
    const run = () => void this.run(request, res, store.route, found.params as Record<string, string>, found.searchParams);
    if (body === 'none') run();
    else readBody(req, (text) => {
      try {
        request.body = parseBodyText(text);
      } catch (error) {
        this.fail(request, res, error);
        return;
      }
      run();
    });
    return true;
  }

  private async run(request: DirectRequest, res: ServerResponse, route: AppRoute | null, params: Record<string, string>, query: Record<string, unknown>): Promise<void> {
    let result: Answer;
    try {
      result = await runAppRoute(this.deps, this.table, route, params, query, request);
    } catch (error) {
      result = failureAnswer(error, request.log, request.id);
    }
    this.reply(res, request, result);
  }

  private fail(request: DirectRequest, res: ServerResponse, error: unknown): void {
    this.reply(res, request, failureAnswer(error, request.log, request.id));
  }

  private reply(res: ServerResponse, request: DirectRequest, result: Answer): void {
    send(res, request, result);
    if (request.hooks !== null) request.hooks.answered(res.statusCode, performance.now() - request.started);
  }
}

type Answer = Pick<Result, 'status' | 'body' | 'headers'>;

/**
 * Nothing may escape from here: the caller's promise has no one to report to. A header node
 * refuses to send gets the 500 fastify gives in that case; one that fails midway ends the
 * connection.
 */
function send(res: ServerResponse, request: DirectRequest, result: Answer): void {
  try {
    answer(res, request, result);
  } catch (error) {
    if (res.headersSent) res.destroy();
    else answer(res, request, failureAnswer(error, request.log, request.id));
  }
}

function unused(): void {
  throw new Error('DirectFront routes are looked up, never called.');
}

/**
 * 'none' for no body, 'json' for one read here, 'other' for a request fastify must take: a
 * chunked body, one over the limit (fastify answers 413 and reads it to its end), or a body of
 * another or no declared type.
 */
function bodyShape(headers: IncomingHttpHeaders, limit: number): 'none' | 'json' | 'other' {
  if (headers['transfer-encoding'] !== undefined) return 'other';
  const type = headers['content-type'];
  const length = headers['content-length'];
  if (type === undefined) return length === undefined || length === '0' ? 'none' : 'other';
  if (!PLAIN_TYPES.has(type.toLowerCase())) return 'other';
  return length !== undefined && Number(length) > limit ? 'other' : 'json';
}

/** A client that goes away mid-body is not answered: its socket is gone. */
function readBody(req: IncomingMessage, then: (text: string) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => then(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8')));
  req.on('error', () => {});
}

/** The request and completion lines fastify writes at level info, in the same form. */
function logExchange(request: DirectRequest, res: ServerResponse): void {
  const started = performance.now();
  request.log.info({ req: request }, 'incoming request');
  res.once('finish', () => request.log.info({ res: { statusCode: res.statusCode }, responseTime: performance.now() - started }, 'request completed'));
}

/** One writeHead with every header: node then checks and joins them in one pass. */
function answer(res: ServerResponse, request: DirectRequest, result: Answer): void {
  if (res.headersSent || res.destroyed) return;
  const headers: string[] = ['x-request-id', request.id, ...corsHeaders(request.headers.origin)];
  if (result.headers) for (const name of Object.keys(result.headers)) headers.push(name, result.headers[name]!);
  const { body } = result;
  let text: string | undefined;
  if (body instanceof JsonText) text = body.text;
  else if (typeof body === 'string') text = body;
  else if (body !== undefined) text = JSON.stringify(body);
  if (text !== undefined) {
    headers.push('content-type', typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8');
    headers.push('content-length', String(Buffer.byteLength(text)));
  }
  res.writeHead(result.status, headers);
  res.end(text);
}

/** The request as the context and the request log read it; the same names as a FastifyRequest's. */
class DirectRequest implements AppRequest {
  body: unknown = undefined;
  /** When the request arrived here, for its latency (read only when there are answer hooks). */
  readonly started: number;

  constructor(
    private readonly raw: IncomingMessage,
    readonly id: string,
    readonly log: AppRequest['log'],
    private readonly trustProxy: boolean,
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
}
