import type { FastifyInstance } from 'fastify';
import { Errors } from '../errors/index.ts';

/**
 * Every body is read as JSON whatever its content type: the Parse JS SDK sends JSON as
 * text/plain to avoid CORS preflights. Malformed JSON is 107; an empty body is no body.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(Errors.invalidJson('The request body is not valid JSON.'), undefined);
    }
  });
}
