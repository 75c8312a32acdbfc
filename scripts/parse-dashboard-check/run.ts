/**
 * The runner of scripts/parse-dashboard-check.ts: runs each step in one browser page, keeps a
 * screenshot of each, and judges it by its own checks and by Basalt's answers meanwhile.
 */
import type { Browser, Page, Response as PageResponse } from 'playwright-core';
import { join } from 'node:path';

export interface CheckTarget {
  readonly serverURL: string;
  readonly dashboardURL: string;
  readonly appId: string;
  readonly masterKey: string;
  readonly appName: string;
  readonly out: string;
}

export interface StepResult {
  readonly name: string;
  /** ok; FAIL; `known gap` (fails as docs/parse-dashboard.md says); FIXED? (a known gap that now passes). */
  readonly outcome: 'ok' | 'FAIL' | 'known gap' | 'FIXED?';
  readonly detail?: string;
}

export interface Step {
  readonly name: string;
  /** Why the step is expected to fail today; it then counts as a known gap. */
  readonly knownGap?: string;
  readonly run: (page: Page, state: State) => Promise<void>;
}

/** What later steps need of earlier ones. */
export interface State {
  readonly target: CheckTarget;
  readonly className: string;
  readonly users: string[];
}

const TIMEOUT = 10_000;

export async function runSteps(browser: Browser, target: CheckTarget, steps: readonly Step[]): Promise<StepResult[]> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
  page.setDefaultTimeout(TIMEOUT);
  const failures: string[] = [];
  // Every answer of Basalt at 400 or above is a failure of the step it happens in, unless the step
  // is a known gap: the dashboard often shows nothing of a failed request.
  page.on('response', (response) => void noteFailure(response, target, failures));
  const state: State = { target, className: `Book${Date.now().toString(36)}`, users: [] };
  const results: StepResult[] = [];
  for (const [index, step] of steps.entries()) {
    failures.length = 0;
    let error: string | null = null;
    try {
      await step.run(page, state);
      await page.waitForTimeout(300);
    } catch (caught) {
      // Playwright's first line says what failed, its call log which element it waited for.
      const lines = caught instanceof Error ? caught.message.split('\n') : [String(caught)];
      error = [lines[0], lines.find((line) => line.includes('waiting for'))?.replace(/\x1b\[\d+m/g, '').trim()].filter(Boolean).join(' ');
    }
    const shot = join(target.out, `${String(index + 1).padStart(2, '0')}-${step.name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}.png`);
    await page.screenshot({ path: shot }).catch(() => undefined);
    const problems = [...(error ? [error] : []), ...failures];
    if (step.knownGap) results.push(problems.length ? { name: step.name, outcome: 'known gap', detail: `${step.knownGap}\n${problems.join('\n')}` } : { name: step.name, outcome: 'FIXED?', detail: `expected to fail (${step.knownGap}) but passed: update docs/parse-dashboard.md` });
    else results.push(problems.length ? { name: step.name, outcome: 'FAIL', detail: problems.join('\n') } : { name: step.name, outcome: 'ok' });
  }
  return results;
}

async function noteFailure(response: PageResponse, target: CheckTarget, failures: string[]): Promise<void> {
  if (!response.url().startsWith(target.serverURL)) return;
  const path = response.url().slice(target.serverURL.length);
  const request = response.request();
  const body = request.postData() ?? '';
  const method = /"_method":"(\w+)"/.exec(body)?.[1] ?? request.method();
  const answer = await response.text().catch(() => '');
  if (response.status() >= 400) {
    failures.push(`Basalt answered ${response.status()} to ${method} ${path}: ${answer.slice(0, 300)}`);
    return;
  }
  // A batch answers 200 with an error in place of each command that failed.
  if (!path.startsWith('/batch')) return;
  let items: unknown;
  try {
    items = JSON.parse(answer);
  } catch {
    return;
  }
  const commands = (JSON.parse(body || '{}') as { requests?: { method: string; path: string }[] }).requests ?? [];
  if (!Array.isArray(items)) return;
  items.forEach((item: { error?: unknown }, index) => {
    if (item?.error === undefined) return;
    const command = commands[index];
    failures.push(`Basalt answered, in a batch, ${JSON.stringify(item.error).slice(0, 300)} to ${command?.method} ${command?.path}`);
  });
}
