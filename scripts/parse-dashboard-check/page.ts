/** What the steps of the Parse Dashboard check do in a page, and the REST calls that check them. */
import type { Page } from 'playwright-core';
import type { CheckTarget, State } from './run.ts';

/** A REST call with the master key, to prepare and to check what the dashboard did. */
export async function rest(target: CheckTarget, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${target.serverURL}${path}`, {
    method,
    headers: { 'X-Parse-Application-Id': target.appId, 'X-Parse-Master-Key': target.masterKey, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

export function expect(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

export function expectEqual(actual: unknown, expected: unknown, what: string): void {
  expect(JSON.stringify(actual) === JSON.stringify(expected), `${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

export const appPath = (state: State, path: string) => `${state.target.dashboardURL}/apps/${encodeURIComponent(state.target.appName)}/${path}`;

export async function openClass(page: Page, state: State, className = state.className): Promise<void> {
  await page.goto(appPath(state, `browser/${className}`));
  await page.getByText('objectId', { exact: true }).first().waitFor();
  await page.waitForTimeout(500);
}

/** The grid draws cells as plain divs: a cell is found by its column header's x and its row's y. */
async function cellPoint(page: Page, column: string, row: number): Promise<{ x: number; y: number }> {
  // Columns past the window's right edge (email, password of _User) are scrolled to first.
  await page.getByText(column, { exact: true }).first().scrollIntoViewIfNeeded();
  const header = await page.getByText(column, { exact: true }).first().boundingBox();
  const id = await page.getByText('objectId', { exact: true }).first().boundingBox();
  expect(header !== null && id !== null, `no column ${column} in the grid`);
  const rowHeight = 30;
  return { x: header!.x + 20, y: id!.y + id!.height / 2 + rowHeight * (row + 1) + 4 };
}

export async function editCell(page: Page, column: string, row: number, text: string): Promise<void> {
  const { x, y } = await cellPoint(page, column, row);
  await page.mouse.dblclick(x, y);
  await page.waitForTimeout(300);
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
  await page.waitForTimeout(800);
}

export async function menu(page: Page, name: string, item: string): Promise<void> {
  await page.getByText(name, { exact: true }).first().click();
  await page.getByText(item, { exact: true }).first().click();
}

export const modal = (page: Page) => page.locator('[data-modal=true]');

export const visible = (page: Page, text: string) => page.getByText(text, { exact: true }).locator('visible=true').first();

/** A dialog, once its opening animation is over (fields filled earlier lose their input). */
export async function dialog(page: Page) {
  await modal(page).waitFor();
  await page.waitForTimeout(700);
  return modal(page);
}

export async function objects(state: State, className = state.className): Promise<any[]> {
  const found = await rest(state.target, 'GET', `/classes/${className}?order=createdAt`);
  expectEqual(found.status, 200, `GET /classes/${className}`);
  return found.body.results;
}
