import type { AppRoute } from '../route.ts';
import { readScriptLog, type ScriptLogSource } from '../../rest/script-log.ts';

const NO_LINES: ScriptLogSource = { linesOf: () => [] };

/** GET /1/scriptlog: recent cloud code log lines (master key), as Parse Dashboard's Logs page reads them. */
export function scriptLogRoutes(source: ScriptLogSource | null): AppRoute[] {
  return [{ method: 'GET', path: '/1/scriptlog', handler: (ctx, { query }) => readScriptLog(ctx, source ?? NO_LINES, query) }];
}
