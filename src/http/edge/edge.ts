import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import FindMyWay from 'find-my-way';
import type { Logger } from 'pino';
import { ApiError, CATALOG } from '../../errors/index.ts';
import type { AnswerHooks, RouteAnswerHook } from '../answer-hooks.ts';
import { PREFLIGHT } from '../cors.ts';
import { failureAnswer, meantMethod, noEndpoint } from '../errors.ts';
import { requestLogger } from '../log.ts';
import { newRequestId } from '../request-id.ts';
import { discardRest, hasBody, readBody } from './body.ts';
import { writeAnswer } from './answer.ts';
import { EdgeRequest } from './request.ts';
import type { Answer, EdgeRoute } from './types.ts';

/** The router's options: a trailing slash is ignored, and a parameter may be long (object ids, file names). */
export const ROUTER_OPTIONS = { ignoreTrailingSlash: true, maxParamLength: 1000 } as const;

interface Store {
  readonly route: EdgeRoute;
  /** The route's answer hooks, bound once (null when there are none, as without --metrics). */
  readonly hooks: RouteAnswerHook | null;
}

export interface EdgeOptions {
  /** --body-limit: the largest body read as JSON. */
  readonly bodyLimit: number;
  /** --trust-proxy: X-Forwarded-* name the client, its host and protocol. */
  readonly trustProxy: boolean;
}

/**
 * Basalt's HTTP edge: every request of every route passes here, on node:http. One find-my-way
 * router holds every route (app routes, health, apps, files, emailed pages, the dashboard,
 * /metrics). For each request it assigns the request id, writes the request log lines, answers
 * CORS preflights, reads the body as its route says (body.ts), runs the route, renders a failure
 * as `{code, error}` (failureAnswer), answers HEAD from a GET route, writes the answer with the
 * CORS headers (answer.ts) and calls the answer hooks (the metrics count). Once the server is
 * closing, a new request is answered 503 and its connection closed.
 */
export class Edge {
  private readonly router = FindMyWay(ROUTER_OPTIONS);
  private readonly unmatchedHooks: RouteAnswerHook | null;
  private closing = false;

  constructor(
    routes: readonly EdgeRoute[],
    private readonly options: EdgeOptions,
    /** Request lines are written through children of this logger (log.ts, requestLogger). */
    private readonly log: Logger,
    hooks: AnswerHooks | null = null,
  ) {
    const declared = new Set(routes.map((route) => `${route.method} ${route.path}`));
    for (const route of routes) {
      const store: Store = { route, hooks: hooks?.forRoute(route.path) ?? null };
      this.router.on(route.method, route.path, unused, store);
      if (route.method === 'GET' && route.head !== false && !declared.has(`HEAD ${route.path}`)) this.router.on('HEAD', route.path, unused, store);
    }
    this.unmatchedHooks = hooks?.forRoute(undefined) ?? null;
  }

  /** From now on a new request is answered 503, and every answer closes its connection. */
  close(): void {
    this.closing = true;
  }

  /** node:http's request listener. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    const method = req.method!;
    let found = null;
    if (method !== 'OPTIONS' && !this.closing) {
      try {
        found = this.router.find(method as 'GET', req.url!);
      } catch {
        // A path the router cannot take apart (a broken %-escape) names no endpoint.
      }
    }
    const store = found?.store as Store | undefined;
    const id = newRequestId();
    const request = new EdgeRequest(req, id, requestLogger(this.log, { reqId: id }, {}), this.options.trustProxy, store ? store.hooks : this.unmatchedHooks);
    if (this.log.isLevelEnabled('info')) logExchange(request, res);
    if (this.closing) {
      this.reply(res, request, SHUTTING_DOWN, true);
      return;
    }
    if (method === 'OPTIONS') {
      this.reply(res, request, PREFLIGHT, false);
      return;
    }
    if (!found || !store) {
      this.unmatched(req, res, request);
      return;
    }
    request.params = found.params as Record<string, string>;
    request.query = found.searchParams;
    const route = store.route;
    const kind = route.body ?? 'json';
    if (kind === 'raw') void this.runRaw(res, request, route);
    else if (method === 'GET' || method === 'HEAD' || !hasBody(req)) void this.run(res, request, route);
    else {
      readBody(req, this.options.bodyLimit, kind === 'form', (error, body, close) => {
        if (error !== null) {
          this.fail(res, request, error, close);
          return;
        }
        request.body = body;
        void this.run(res, request, route);
      });
    }
  };

  /** 404/108 naming the method the client meant (a POST's `_method`), once any body is read. */
  private unmatched(req: IncomingMessage, res: ServerResponse, request: EdgeRequest): void {
    const answer = () => this.reply(res, request, { status: 404, body: noEndpoint(meantMethod(request.method, request.body), request.url).toJSON() }, false);
    if (request.method === 'GET' || request.method === 'HEAD' || !hasBody(req)) {
      answer();
      return;
    }
    readBody(req, this.options.bodyLimit, false, (error, body, close) => {
      if (error !== null) {
        this.fail(res, request, error, close);
        return;
      }
      request.body = body;
      answer();
    });
  }

  private async run(res: ServerResponse, request: EdgeRequest, route: EdgeRoute): Promise<void> {
    let answer: Answer;
    try {
      answer = await route.handler(request);
    } catch (error) {
      answer = failureAnswer(error, request.log, request.id);
    }
    this.reply(res, request, answer, false);
  }

  /**
   * A route that streams its body (an upload) may answer before the body ended (a refusal, a file
   * over the limit, a repeated request id): the rest is then read and dropped (body.ts, discardRest).
   */
  private async runRaw(res: ServerResponse, request: EdgeRequest, route: EdgeRoute): Promise<void> {
    let answer: Answer;
    try {
      answer = await route.handler(request);
    } catch (error) {
      answer = failureAnswer(error, request.log, request.id);
    }
    discardRest(request.raw, (close) => this.reply(res, request, answer, close));
  }

  private fail(res: ServerResponse, request: EdgeRequest, error: unknown, close: boolean): void {
    this.reply(res, request, failureAnswer(error, request.log, request.id), close);
  }

  /**
   * Nothing may escape from here: the caller's promise has no one to report to. An answer node
   * refuses to send (a header it cannot take) gets a 500 instead; one that fails midway ends the
   * connection.
   */
  private reply(res: ServerResponse, request: EdgeRequest, answer: Answer, close: boolean): void {
    try {
      writeAnswer(res, request, answer, close || this.closing);
    } catch (error) {
      if (res.headersSent) res.destroy();
      else writeAnswer(res, request, failureAnswer(error, request.log, request.id), close || this.closing);
    }
    if (request.hooks !== null) request.hooks.answered(res.statusCode, performance.now() - request.started);
  }
}

/** The answer to a request that arrives once the server is closing; the client may send it again elsewhere. */
const SHUTTING_DOWN: Answer = { status: 503, body: new ApiError(CATALOG.connectionFailed, 'The server is shutting down; send the request again.', 503).toJSON() };

function unused(): void {
  throw new Error('Edge routes are looked up, never called.');
}

/** The "incoming request" and "request completed" lines at level info (the request log). */
function logExchange(request: EdgeRequest, res: ServerResponse): void {
  const started = performance.now();
  request.log.info({ req: request }, 'incoming request');
  res.once('finish', () => request.log.info({ res: { statusCode: res.statusCode }, responseTime: performance.now() - started }, 'request completed'));
}
