import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import type { Browser, Page, Route } from 'playwright-core';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, type AppClient } from '../helpers/client.ts';
import { ADMIN } from '../helpers/targets.ts';
import { launch, screenshot } from './browser.ts';

/** The installations page (docs/dashboard.md "Installations"): pages, filters, channels edited, a delete; checked through the REST API. */
let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

eachBackend('dashboard: installations', (target) => {
  let client: AppClient;
  let page: Page;
  const ids: Record<'phone' | 'tablet' | 'site', string> = { phone: '', tablet: '', site: '' };
  const token = randomBytes(32).toString('hex');

  async function install(fields: Record<string, unknown>): Promise<string> {
    const created = await client.post('/1/installations', { installationId: randomUUID(), ...fields });
    assert.equal(created.status, 201, created.text);
    return created.body.objectId;
  }
  async function channelsOf(objectId: string): Promise<string[]> {
    const read = await client.get(`/1/installations/${objectId}`, { key: 'master' });
    assert.equal(read.status, 200, read.text);
    return read.body.channels;
  }
  const row = (objectId: string) => page.locator(`tr[data-installation="${objectId}"]`);
  const rows = () => page.locator('tr[data-installation]');

  before(async () => {
    client = await newApp(target);
    ids.phone = await install({ deviceType: 'ios', deviceToken: token, channels: ['news', 'sports'], appVersion: '2.1.0', timeZone: 'Europe/Paris' });
    ids.tablet = await install({ deviceType: 'android', deviceToken: 'tablet-token', channels: ['news'] });
    ids.site = await install({ deviceType: 'web', channels: [] });
    // 50 more, so that the first page (50) is full and the rest is read by keyset.
    const requests = Array.from({ length: 50 }, () => ({ method: 'POST', path: '/1/installations', body: { deviceType: 'android', installationId: randomUUID(), channels: ['bulk'] } }));
    const batch = await client.post('/1/batch', { requests });
    assert.equal(batch.status, 200, batch.text);
    assert.ok(batch.body.every((answer: { success?: unknown }) => answer.success), batch.text);

    page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.goto(`${target.url}/dashboard/apps/${client.app.applicationId}/installations`);
    await page.getByLabel('Email', { exact: true }).fill(ADMIN.email);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Installations' }).waitFor();
  });
  after(async () => {
    await page?.close();
  });

  it('reads the installations in keyset pages of 50', async () => {
    await page.getByRole('button', { name: 'More installations' }).waitFor();
    assert.equal(await rows().count(), 50);
    await page.getByRole('button', { name: 'More installations' }).click();
    await page.getByRole('button', { name: 'More installations' }).waitFor({ state: 'detached' });
    assert.equal(await rows().count(), 53);
    // Ordered by objectId, every installation once.
    const shown = await rows().evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-installation')!));
    assert.deepEqual(shown, [...shown].sort());
    assert.equal(new Set(shown).size, 53);
    for (const id of Object.values(ids)) assert.ok(shown.includes(id), id);
  });

  it('filters by channel and by device type, and shows channels as chips and the token shortened', async () => {
    await page.getByLabel('Filter by channel').fill('sports');
    await row(ids.tablet).waitFor({ state: 'detached' });
    assert.equal(await rows().count(), 1);
    const phone = row(ids.phone);
    assert.deepEqual(await page.getByRole('list', { name: `Channels of ${ids.phone}` }).getByRole('listitem').allTextContents(), ['news×', 'sports×']);
    const cells = await phone.locator('td').allTextContents();
    assert.equal(cells[0], 'ios');
    assert.equal(cells[3], `${token.slice(0, 8)}…${token.slice(-4)}`);
    assert.equal(cells[4], '2.1.0 · Europe/Paris');
    await screenshot(page, target, 'installations-01-filtered');

    await page.getByLabel('Filter by channel').fill('news');
    await row(ids.tablet).waitFor();
    assert.equal(await rows().count(), 2);
    await page.getByLabel('Filter by device type').selectOption('android');
    await row(ids.phone).waitFor({ state: 'detached' });
    assert.equal(await rows().count(), 1);
    await page.getByLabel('Filter by channel').fill('');
    await page.getByRole('button', { name: 'More installations' }).waitFor();
    assert.equal(await rows().count(), 50, '51 android installations: a full first page');
    await page.getByLabel('Filter by device type').selectOption('web');
    await row(ids.site).waitFor();
    assert.equal(await rows().count(), 1);
    await page.getByLabel('Filter by device type').selectOption('');
    await page.getByLabel('Filter by channel').fill('sports');
    await row(ids.site).waitFor({ state: 'detached' });
  });

  it("adds and removes a channel (AddUnique / Remove as the master key); a name the server refuses is said", async () => {
    await page.getByLabel(`Channel to add to ${ids.phone}`).fill('weather');
    await row(ids.phone).getByRole('button', { name: 'Add channel' }).click();
    await page.getByRole('list', { name: `Channels of ${ids.phone}` }).getByText('weather').waitFor();
    assert.deepEqual(await channelsOf(ids.phone), ['news', 'sports', 'weather']);

    await page.getByRole('button', { name: `Remove the channel news from ${ids.phone}` }).click();
    await page.getByRole('button', { name: `Remove the channel news from ${ids.phone}` }).waitFor({ state: 'detached' });
    assert.deepEqual(await channelsOf(ids.phone), ['sports', 'weather']);

    await page.getByLabel(`Channel to add to ${ids.phone}`).fill('1bad');
    await row(ids.phone).getByRole('button', { name: 'Add channel' }).click();
    await row(ids.phone).getByRole('alert').getByText(/Invalid channel name "1bad"/).waitFor();
    assert.deepEqual(await channelsOf(ids.phone), ['sports', 'weather']);
    await screenshot(page, target, 'installations-02-channels');
  });

  it('shows the answer to the latest filters when an earlier answer comes back after it', async () => {
    await page.getByLabel('Filter by channel').fill('');
    await page.getByLabel('Filter by device type').selectOption('');
    await page.getByRole('button', { name: 'More installations' }).waitFor();
    // Every read of the installations without the device type "web" answers 1.5 s late.
    const late = async (route: Route) => {
      const where = new URL(route.request().url()).searchParams.get('where') ?? '';
      if (!where.includes('"web"')) await new Promise((resolve) => setTimeout(resolve, 1500));
      await route.continue().catch(() => {});
    };
    await page.route('**/classes/_Installation?*', late);
    try {
      await page.getByLabel('Filter by channel').fill('news');
      const slow = page.waitForResponse((response) => response.url().includes('_Installation?') && !response.url().includes('web'));
      await page.getByLabel('Filter by channel').fill('');
      await page.getByLabel('Filter by device type').selectOption('web');
      await row(ids.site).waitFor();
      await slow;
      // Give the late answers time to be shown, as they were before only the latest was.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(await rows().evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-installation'))), [ids.site]);
    } finally {
      await page.unroute('**/classes/_Installation?*', late);
    }
  });

  it('deletes an installation after a confirmation', async () => {
    await page.getByLabel('Filter by channel').fill('');
    await page.getByLabel('Filter by device type').selectOption('web');
    await row(ids.site).waitFor();
    await page.getByRole('button', { name: `Delete the installation ${ids.site}` }).click();
    await page.getByRole('alertdialog', { name: `Confirm deleting the installation ${ids.site}` }).getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await client.get(`/1/installations/${ids.site}`, { key: 'master' })).status, 200, 'kept after Cancel');
    await page.getByRole('button', { name: `Delete the installation ${ids.site}` }).click();
    await page.getByRole('alertdialog', { name: `Confirm deleting the installation ${ids.site}` }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText(`Deleted the installation ${ids.site}.`).waitFor();
    await page.getByText('No installations.').waitFor();
    const gone = await client.get(`/1/installations/${ids.site}`, { key: 'master' });
    assert.equal(gone.status, 404, gone.text);
    assert.equal(gone.body.code, 101);
  });
});
