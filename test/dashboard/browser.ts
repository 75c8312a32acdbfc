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
  await page.goto(`${target.url}/`);
  await page.getByLabel('Email').fill(ADMIN.email);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Apps' }).waitFor();
}
