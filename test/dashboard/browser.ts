import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ADMIN, type Target } from '../helpers/targets.ts';

/** Debian's Chromium (.ci/run installs it); playwright-core downloads no browser of its own. */
export const CHROMIUM = '/usr/bin/chromium';

/** Screenshots of every page the tests see: artifacts of the run, never committed (tmp/ is ignored). */
export const SCREENSHOTS = new URL('../../tmp/dashboard-e2e/', import.meta.url).pathname;

export function launch(): Promise<Browser> {
  // The sandbox needs user namespaces, which containers running as root usually lack.
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

export async function screenshot(page: Page, target: Target, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${target.backend}-${name}.png`) });
}

/** Opens the server's root as a browser does and signs in with the test account. */
export async function signIn(page: Page, target: Target): Promise<void> {
  await signInAt(page, `${target.url}/`);
  await page.getByRole('heading', { name: 'Apps' }).waitFor();
}

/** How long a loaded page may take to show the sign-in form before it is loaded again. */
const FORM_WAIT_MS = 15_000;

/**
 * Loads a dashboard address (nothing is kept between loads, so every load asks to sign in) and
 * signs in with the test account. A page that has not shown the form after FORM_WAIT_MS is
 * described on stderr (its address, text, script errors and failed requests) and loaded once
 * more: seen once on a loaded CI machine, a blank page after a load that had ended.
 */
export async function signInAt(page: Page, url: string): Promise<void> {
  const troubles: string[] = [];
  const onError = (error: Error) => troubles.push(`script error: ${error.message}`);
  const onFailed = (request: { url(): string; failure(): { errorText: string } | null }) => troubles.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ''}`);
  page.on('pageerror', onError);
  page.on('requestfailed', onFailed);
  try {
    await page.goto(url);
    const email = page.getByLabel('Email');
    const shown = await email.waitFor({ timeout: FORM_WAIT_MS }).then(
      () => true,
      () => false,
    );
    if (!shown) {
      const text = (await page.locator('body').textContent().catch(() => null))?.slice(0, 200);
      console.error(`[dashboard test] no sign-in form ${FORM_WAIT_MS} ms after loading ${page.url()}; page text: ${JSON.stringify(text)}; ${troubles.join('; ') || 'no script error or failed request'}; loading it again`);
      await page.goto(url);
    }
    await email.fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  } finally {
    page.off('pageerror', onError);
    page.off('requestfailed', onFailed);
  }
}
