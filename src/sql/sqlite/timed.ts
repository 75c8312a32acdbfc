import { Script, createContext } from 'node:vm';
import { Errors } from '../../errors/index.ts';

/**
 * How long one SQLite statement that runs a pattern V8 may backtrack on (sql/sqlite/regex.ts,
 * `mayBacktrack`) may hold the process. better-sqlite3 runs a statement, and the regexp() calls
 * inside it, on the main thread: without a limit, `^(a)\1*(a+)+$` on forty `a`s and a `!` would
 * hold every request of every app for hours.
 */
export const TIMED_STATEMENT_LIMIT_MS = 1000;

// One context and one script for every run; `timeout` makes V8 stop the script (and the regular
// expression running inside the statement's regexp() call) once the time is up. better-sqlite3
// then resets the statement, and the connection stays usable.
const context = createContext({ run: null as (() => unknown) | null });
const script = new Script('run()');

/** `run()`, stopped after `limitMs` with 429/155. */
export function runWithin<T>(run: () => T, limitMs = TIMED_STATEMENT_LIMIT_MS): T {
  context.run = run;
  try {
    return script.runInContext(context, { timeout: limitMs }) as T;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      throw regexTimedOut(limitMs);
    }
    throw error;
  } finally {
    context.run = null;
  }
}

/** A statement with a pattern that may backtrack ran past its limit (here, or on a reader thread). */
export function regexTimedOut(limitMs: number): Error {
  return Errors.requestLimitExceeded(`The regular expression ran for more than ${limitMs} ms and was stopped; back-references, lookaround and counted repetitions can make a pattern backtrack without end.`);
}
