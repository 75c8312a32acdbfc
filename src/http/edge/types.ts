import type { Readable } from 'node:stream';
import type { EdgeRequest } from './request.ts';

/** HEAD only for a route that answers it itself (file downloads); other GETs get theirs from the edge. */
export type EdgeMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';

/**
 * What a route answers. The body is sent by its kind: a JsonText or any other value as JSON, a
 * string as text/plain, a Buffer as bytes, a Readable streamed, null or undefined as no body.
 * A Content-Type among the headers wins over the kind's.
 */
export interface Answer {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * How a route's body is read. 'json': every body as JSON whatever its type (the JS SDK sends
 * text/plain), within --body-limit; 'form': the same, and application/x-www-form-urlencoded as
 * fields (browser forms); 'raw': not read, the handler streams `request.raw` (file uploads).
 */
export type BodyKind = 'json' | 'form' | 'raw';

/** A route of the edge's one router. */
export interface EdgeRoute {
  readonly method: EdgeMethod;
  readonly path: string;
  readonly handler: (request: EdgeRequest) => Answer | Promise<Answer>;
  /** 'json' unless said. */
  readonly body?: BodyKind;
  /**
   * A GET route answers HEAD with the GET's headers and no body, unless false (a HEAD must not
   * use up an emailed link), or unless the route declares its own HEAD route.
   */
  readonly head?: boolean;
}
