import { Script, createContext } from 'node:vm';

/**
 * How long a password may take to test against an app's pattern. The pattern is the app owner's
 * and the password the caller's: a pattern that backtracks badly (`^(a+)+$`) and a password made
 * for it would otherwise hold the process, and every app on it, for minutes.
 */
export const PATTERN_TIME_LIMIT_MS = 100;

// One context and one script for every test: only the watchdog of `timeout` is made per run.
const NOTHING = /(?:)/;
const context = createContext({ pattern: NOTHING, input: '' });
const script = new Script('pattern.test(input)');

/** Whether the password matches; null when the test ran out of time and was stopped. */
export function matchesWithin(pattern: RegExp, password: string, limitMs = PATTERN_TIME_LIMIT_MS): boolean | null {
  context.pattern = pattern;
  context.input = password;
  try {
    return script.runInContext(context, { timeout: limitMs }) === true;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return null;
    throw error;
  } finally {
    context.pattern = NOTHING;
    context.input = '';
  }
}
