import { Errors } from '../errors/index.ts';
import type { OutboxEntry } from '../storage/sql-outbox.ts';
import { ok, type RequestContext, type Result } from './context.ts';
import { parseLimit } from './find.ts';

/** A mail as the API shows it: `html` and `error` only when the row holds them. */
function renderMail(entry: OutboxEntry): Record<string, unknown> {
  return {
    objectId: entry.id,
    to: entry.to,
    subject: entry.subject,
    text: entry.text,
    ...(entry.html === null ? {} : { html: entry.html }),
    status: entry.status,
    ...(entry.error === null ? {} : { error: entry.error }),
    createdAt: entry.createdAt,
  };
}

/**
 * GET /1/outbox?limit&before (docs/api.md "The outbox"): the master key only (403/119); the mail
 * kept in the app's outbox, newest first, `limit` of them (default 100, at most 1000) older than
 * the mail whose objectId is `before`; `next`, the `before` of the next page, is there only when
 * older mail follows. A keyset page, never a skip.
 */
export async function listOutbox(ctx: RequestContext, query: Readonly<Record<string, unknown>>): Promise<Result> {
  if (!ctx.auth.isMaster) throw Errors.operationForbidden('The outbox is open to the master key only.');
  const limit = parseLimit(query.limit);
  const before = query.before ?? '';
  if (typeof before !== 'string') throw Errors.invalidQuery('before must be the objectId of one mail.');
  // One more than the page tells whether another page follows.
  const listed = limit === 0 ? [] : await ctx.app.outbox.list({ before: before || null, limit: limit + 1 });
  if (listed === null) throw Errors.invalidQuery(`before names no mail of the outbox: ${JSON.stringify(before.slice(0, 100))}.`);
  const page = listed.slice(0, limit);
  const results = page.map(renderMail);
  return ok(listed.length > limit ? { results, next: page.at(-1)!.id } : { results });
}
