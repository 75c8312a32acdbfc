import { Errors } from '../errors/index.ts';
import { ok, type RequestContext, type Result } from './context.ts';

/** One line of cloud code's log, in Parse Server's shape (a winston entry). */
export interface ScriptLogLine {
  readonly level: 'error' | 'warn' | 'info' | 'debug';
  readonly message: string;
  /** ISO 8601. */
  readonly timestamp: string;
}

/** Where the lines come from: src/cloud keeps each app's recent lines. */
export interface ScriptLogSource {
  linesOf(applicationId: string): readonly ScriptLogLine[];
}

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;
const DEFAULT_SIZE = 10;

/**
 * GET /1/scriptlog (master key), the route Parse Dashboard's Logs page reads: an array of
 * `{level, message, timestamp}`. Parse Server's query parameters: `level` (the lines of that level,
 * default info), `size` or `n` (how many, default 10), `order` (desc, the default, or asc),
 * `from` and `until` (dates; default the last week up to now).
 */
export async function readScriptLog(ctx: RequestContext, source: ScriptLogSource, query: Readonly<Record<string, unknown>>): Promise<Result> {
  if (!ctx.auth.isMaster) throw Errors.operationForbidden('This endpoint needs the master key.');
  const level = typeof query.level === 'string' && query.level !== '' ? query.level : 'info';
  const size = Number(query.n ?? query.size) || DEFAULT_SIZE;
  const now = Date.now();
  const from = dateOf(query.from) ?? now - WEEK_MS;
  const until = dateOf(query.until) ?? now;
  const lines = source.linesOf(ctx.app.record.applicationId).filter((line) => {
    const at = Date.parse(line.timestamp);
    return line.level === level && at >= from && at <= until;
  });
  const ordered = query.order === 'asc' ? lines : lines.reverse();
  return ok(ordered.slice(0, Math.max(0, size)));
}

function dateOf(value: unknown): number | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const at = new Date(value).getTime();
  return Number.isNaN(at) ? null : at;
}
