import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import { ADMIN } from '../helpers/targets.ts';
import { launch, screenshot } from './browser.ts';

/** The mail page (docs/dashboard.md "Mail"): the outbox of an app without SMTP settings, read through GET /1/outbox. */
let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

const UNLIMITED = { rateLimits: { authRequestsPerMinute: 0 } };

interface Mail {
  readonly objectId: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

eachBackend('dashboard: mail outbox', (target) => {
  let client: AppClient;
  let page: Page;
  const rows = () => page.locator('tr[data-mail]');

  async function outbox(): Promise<Mail[]> {
    const answer = await client.get('/1/outbox', { key: 'master', query: { limit: 1000 } });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.results;
  }
  async function reset(email: string): Promise<void> {
    const answer = await client.post('/1/requestPasswordReset', { email });
    assert.equal(answer.status, 200, answer.text);
  }

  before(async () => {
    client = await newApp(target, UNLIMITED);
    page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.goto(`${target.url}/dashboard/apps/${client.app.applicationId}/mail`);
    await page.getByLabel('Email', { exact: true }).fill(ADMIN.email);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('No mail in the outbox.').waitFor();
  });
  after(async () => {
    await page?.close();
  });

  it('lists the outbox newest first in pages of 50, and opens a mail to read its text', async () => {
    const many = `${unique('many')}@example.com`;
    const last = `${unique('last')}@example.com`;
    for (const email of [many, last]) assert.equal((await client.post('/1/users', { username: unique('user'), password: 'secret-1', email })).status, 201);
    for (let i = 0; i < 51; i++) await reset(many);
    await reset(last);
    const stored = await outbox();
    assert.equal(stored.length, 52);

    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('button', { name: 'Older mail' }).waitFor();
    assert.equal(await rows().count(), 50);
    await page.getByRole('button', { name: 'Older mail' }).click();
    await page.getByRole('button', { name: 'Older mail' }).waitFor({ state: 'detached' });
    const shown = await rows().evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-mail')!));
    assert.deepEqual(shown, stored.map((mail) => mail.objectId), 'every mail once, in the order of GET /1/outbox');
    const cells = await page.locator(`tr[data-mail="${stored[0]!.objectId}"] td`).allTextContents();
    assert.deepEqual(cells.slice(1, 4), [stored[0]!.to, stored[0]!.subject, 'unsent']);

    const mail = stored.find((m) => m.to === last)!;
    await page.getByRole('button', { name: `Read the mail ${mail.subject} to ${last}` }).click();
    const reader = page.getByRole('region', { name: `Mail to ${last}` });
    await reader.getByRole('heading', { name: mail.subject }).waitFor();
    assert.equal(await reader.getByLabel('Mail text').textContent(), mail.text);
    assert.match(mail.text, /reset_password\?token=/);
    await screenshot(page, target, 'mail-01-reading');
    await reader.getByRole('button', { name: 'Close' }).click();
    await reader.waitFor({ state: 'detached' });
  });
});
