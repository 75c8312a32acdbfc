/**
 * `npm run bench:dashboard`: the dashboard's data browser over a class of a million objects, in
 * Debian's Chromium, timed with the page's own clock (performance.now, polled every frame). A
 * script, not a test: it asserts nothing and prints its figures. docs/dashboard.md quotes them.
 *
 *   BENCH_DASHBOARD_ROWS     objects in the class (default 1,000,000)
 *   BENCH_TARGETS            comma list of sqlite,postgres (default both)
 *   BENCH_POSTGRES_URL       server to create the temporary database on
 *
 * The objects are written straight into the class table by bench/seed.ts (the batch API would
 * take far longer than the measurement); the server is the built one (`npm run build` first).
 */
import { chromium, type Page } from 'playwright-core';
import { ITEM_SET, postgresSeeder, sqliteSeeder, type Seeder } from './seed.ts';
import { ADMIN, APP, startBasalt, tempDataDir, tempDatabase, type Cleanup } from './servers.ts';
import { createClass } from './queries.ts';

const ROWS = Number(process.env.BENCH_DASHBOARD_ROWS ?? 1_000_000);
const TARGETS = (process.env.BENCH_TARGETS ?? 'sqlite,postgres').split(',');
const ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Runs `action` in the page, then answers the ms until `done` holds (checked every frame). */
// Predicates are functions, not strings: the page's Content-Security-Policy forbids eval.
async function timed(page: Page, action: () => Promise<void>, done: () => unknown): Promise<number> {
  await page.evaluate(() => ((window as unknown as { t0: number }).t0 = performance.now()));
  await action();
  await page.waitForFunction(done, undefined, { polling: 'raf', timeout: 600_000 });
  return page.evaluate(() => performance.now() - (window as unknown as { t0: number }).t0);
}

const firstRowIs = () => {
  const id = document.querySelector('.grid-row[data-object-id]')?.getAttribute('data-object-id');
  return id && id !== (window as unknown as { previousFirst?: string | null }).previousFirst;
};
const totalShown = () => /objects?$/.test(document.querySelector('[data-total]')?.textContent ?? '');
const deepEnough = () => Number(document.querySelector('[role="grid"]')?.getAttribute('aria-rowcount')) > 10_001;

async function rememberFirst(page: Page): Promise<void> {
  await page.evaluate(() => ((window as unknown as { previousFirst?: string | null }).previousFirst = document.querySelector('.grid-row[data-object-id]')?.getAttribute('data-object-id')));
}

async function measure(url: string): Promise<Record<string, number>> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.goto(`${url}/dashboard/apps/${APP.id}/browser`);
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: /^Item/ }).waitFor();
    const figures: Record<string, number> = {};
    await rememberFirst(page);
    figures['first rows painted (class opened)'] = await timed(page, () => page.getByRole('link', { name: /^Item/ }).click(), firstRowIs);
    await page.waitForFunction(totalShown, undefined, { timeout: 120_000 });
    figures['count shown (class opened)'] = await page.evaluate(() => performance.now() - (window as unknown as { t0: number }).t0);
    // 50 pages of 200 by keyset: each page as cheap as the first.
    figures['scroll through 10,000 rows'] = await timed(
      page,
      async () => {
        // Scrolls to the end again whenever a page has come, until 10,000 rows are in.
        while (Number(await page.locator('[role="grid"]').getAttribute('aria-rowcount')) <= 10_001) {
          await page.locator('[role="grid"]').evaluate((grid) => grid.scrollTo(0, grid.scrollHeight));
          await page.waitForTimeout(16);
        }
      },
      deepEnough,
    );
    await rememberFirst(page);
    figures['jump to the end (objectId order reversed)'] = await timed(page, () => page.getByRole('button', { name: 'Sort by objectId' }).click(), firstRowIs);
    await rememberFirst(page);
    await page.getByLabel('Filter column').selectOption('score');
    await page.getByLabel('Filter operator').selectOption('lt');
    await page.getByLabel('Filter value').fill('1000');
    figures['filter applied (score < 1000): first rows'] = await timed(page, () => page.getByRole('button', { name: 'Add filter' }).click(), firstRowIs);
    await page.waitForFunction(totalShown, undefined, { timeout: 120_000 });
    figures['filter applied (score < 1000): count'] = await page.evaluate(() => performance.now() - (window as unknown as { t0: number }).t0);
    await rememberFirst(page);
    figures['sort by score (no index), filtered'] = await timed(page, () => page.getByRole('button', { name: 'Sort by score' }).click(), firstRowIs);
    return figures;
  } finally {
    await browser.close();
  }
}

async function main(): Promise<void> {
  const results: Record<string, Record<string, number>> = {};
  for (const target of TARGETS) {
    const cleanups: Cleanup[] = [];
    try {
      let seeder: Seeder;
      let url: string;
      if (target === 'sqlite') {
        const dataDir = tempDataDir(cleanups);
        url = (await startBasalt('sqlite', { BASALT_DATA_DIR: dataDir }, cleanups)).url;
        seeder = sqliteSeeder(dataDir);
      } else {
        const database = await tempDatabase(ADMIN_URL, cleanups);
        url = (await startBasalt('postgres', { BASALT_DATABASE_URL: database.url, BASALT_DATA_DIR: tempDataDir(cleanups) }, cleanups)).url;
        seeder = await postgresSeeder(database.url);
      }
      cleanups.push(() => seeder.close());
      await createClass(url, ITEM_SET.className, { score: { type: 'Number' }, name: { type: 'String' }, owner: { type: 'Pointer', targetClass: 'Owner' }, loc: { type: 'GeoPoint' } });
      const started = performance.now();
      await seeder.insert(ITEM_SET, 0, ROWS);
      await seeder.settle(ITEM_SET.className);
      console.log(`${target}: seeded ${ROWS.toLocaleString('en-US')} objects in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      results[target] = await measure(url);
    } finally {
      for (const cleanup of cleanups.reverse()) await cleanup();
    }
  }
  console.log(`\n| ms, ${ROWS.toLocaleString('en-US')} objects | ${TARGETS.join(' | ')} |\n|---|${TARGETS.map(() => '---:').join('|')}|`);
  for (const name of Object.keys(results[TARGETS[0]!] ?? {})) {
    console.log(`| ${name} | ${TARGETS.map((t) => Math.round(results[t]?.[name] ?? NaN)).join(' | ')} |`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
