import fc from 'fast-check';
import type { FuzzRequest } from './requests.ts';

/** An answer slower than this counts as a hang: a bound for a stall, not a speed test. */
export const HANG_BOUND_MS = 5_000;

/** The seed every run uses, so that CI replays the same requests; a random one runs beside it. */
export const FIXED_SEED = 20_261_126;

/**
 * TEST_FUZZ_SEED replays a run: the seed printed by a failing run (see docs/testing.md).
 * TEST_FUZZ_RUNS sets the requests per family and seed, for a longer campaign.
 */
export function fuzzSettings(env: NodeJS.ProcessEnv = process.env): { seeds: number[]; runs: number | null } {
  const given = env.TEST_FUZZ_SEED;
  const random = given !== undefined && given !== '' ? Number(given) : Math.floor(Math.random() * 2 ** 31);
  if (!Number.isInteger(random)) throw new Error(`TEST_FUZZ_SEED must be an integer, not ${given}`);
  const runs = env.TEST_FUZZ_RUNS ? Number(env.TEST_FUZZ_RUNS) : null;
  if (runs !== null && !(Number.isInteger(runs) && runs > 0)) throw new Error(`TEST_FUZZ_RUNS must be a positive integer, not ${env.TEST_FUZZ_RUNS}`);
  return { seeds: given ? [random] : [FIXED_SEED, random], runs };
}

interface Outcome {
  readonly status: number;
  readonly text: string;
  readonly ms: number;
}

/** What a run saw: answers by status, and the slowest answer. */
export class FuzzTally {
  readonly statuses = new Map<number, number>();
  requests = 0;
  /** The slowest answer seen, to tell where a run spends its time. */
  slowest: { ms: number; request: string } = { ms: 0, request: '' };

  summary(): string {
    const statuses = [...this.statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status}×${count}`).join(' ');
    return `${this.requests} requests; statuses ${statuses}; slowest ${Math.round(this.slowest.ms)} ms: ${this.slowest.request.slice(0, 400)}`;
  }
}

async function send(baseUrl: string, request: FuzzRequest): Promise<Outcome> {
  const started = performance.now();
  const bodyless = request.method === 'GET' || request.method === 'HEAD';
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: bodyless ? undefined : request.body,
    // Far past the bound: only a server that never answers meets it.
    signal: AbortSignal.timeout(HANG_BOUND_MS * 6),
  });
  const text = await response.text();
  return { status: response.status, text, ms: performance.now() - started };
}

/** Why an answer breaks the rules, or null. */
function fault(request: FuzzRequest, outcome: Outcome): string | null {
  if (outcome.status >= 500) return `answered ${outcome.status}: ${outcome.text.slice(0, 300)}`;
  if (outcome.ms > HANG_BOUND_MS) return `answered only after ${Math.round(outcome.ms)} ms`;
  // 416 is HTTP's answer to a byte range of a file, without a body; HEAD answers carry none.
  if (outcome.status >= 400 && outcome.status !== 416 && request.method !== 'HEAD') {
    let body: unknown;
    try {
      body = JSON.parse(outcome.text);
    } catch {
      return `answered ${outcome.status} with a body that is not JSON: ${outcome.text.slice(0, 300)}`;
    }
    const shaped = typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).sort().join() === 'code,error';
    const { code, error } = (body ?? {}) as { code?: unknown; error?: unknown };
    if (!shaped || typeof code !== 'number' || typeof error !== 'string') return `answered ${outcome.status} with a body other than {code, error}: ${outcome.text.slice(0, 300)}`;
  }
  return null;
}

/**
 * Sends `runs` requests drawn from `requests` for each seed, and fails on the first answer
 * that breaks the rules (shrunk by fast-check to a small request, with the seed to replay it).
 */
export async function fuzz(baseUrl: string, requests: fc.Arbitrary<FuzzRequest>, seeds: readonly number[], runs: number, tally: FuzzTally): Promise<void> {
  for (const seed of seeds) {
    const details = await fc.check(
      fc.asyncProperty(requests, async (request) => {
        let outcome: Outcome;
        try {
          outcome = await send(baseUrl, request);
        } catch (error) {
          throw new Error(`no answer (${(error as Error).message}; ${String((error as Error).cause ?? '')})`);
        }
        tally.requests++;
        if (outcome.ms > tally.slowest.ms) tally.slowest = { ms: outcome.ms, request: `${describe(request)} → ${outcome.status}` };
        tally.statuses.set(outcome.status, (tally.statuses.get(outcome.status) ?? 0) + 1);
        const problem = fault(request, outcome);
        if (problem === null) return;
        throw new Error(problem);
      }),
      // Shrinking a failure sends a request per step; past this the smallest one found so far is reported.
      { seed, numRuns: runs, interruptAfterTimeLimit: 60_000 },
    );
    if (details.failed) {
      const request = details.counterexample?.[0];
      const why = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
      throw new Error(`seed ${seed} (replay: TEST_FUZZ_SEED=${seed}), after ${details.numRuns} requests, shrunk ${details.numShrinks} times:\n${request ? describe(request) : '?'}\n→ ${why}`);
    }
  }
}

/** A request as a failure prints it: long runs of one character or one escape cut short. */
export function describe(request: FuzzRequest): string {
  const cut = (text: string) => text.replace(/(.)\1{40,}/gs, (run, char: string) => `${char.repeat(5)}…(${run.length}×)`).replace(/((%[0-9A-F]{2}|[^%]){2,12}?)\1{8,}/g, (run, unit: string) => `${unit}…(${run.length / unit.length}×)`).slice(0, 2_000);
  return `${request.method} ${cut(request.path)}\nheaders ${cut(JSON.stringify(request.headers))}${request.body === undefined ? '' : `\nbody ${cut(JSON.stringify(request.body))}`}`;
}
