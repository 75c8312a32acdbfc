import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import { launch, screenshot, signInAt } from './browser.ts';

/**
 * Moving around the data browser (docs/dashboard.md "What it does", "The data grid"): filters on a
 * Pointer and on a Relation, a Pointer followed to its object and a Relation to its members, the
 * URL of one object, and the jump to the end of a class read through the reversed order.
 */
const ROWS = 700;

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** Every 7th player has no score: sorted by score, they are the second phase and the end of the order. */
const scoreOf = (i: number) => (i % 7 === 0 ? undefined : i % 50);

eachBackend('dashboard: pointers, relations, one object and the end of a class', (target) => {
  let client: AppClient;
  let page: Page;
  const team = unique('Team');
  const player = unique('Player');
  const teams: string[] = [];
  const players: string[] = [];

  async function master(method: 'get' | 'post' | 'put', path: string, body?: unknown, query?: Record<string, string | number | object>) {
    const answer = method === 'get' ? await client.get(path, { key: 'master', ...(query ? { query } : {}) }) : await client[method](path, body, { key: 'master' });
    assert.ok(answer.status === 200 || answer.status === 201, answer.text);
    return answer.body;
  }
  const pointer = (className: string, objectId: string) => ({ __type: 'Pointer', className, objectId });
  const total = (text: string) => page.locator('[data-total]').filter({ hasText: new RegExp(`^${text}$`) }).waitFor();

  async function open(path: string): Promise<void> {
    await signInAt(page, `${target.url}/dashboard/apps/${client.app.applicationId}/browser/${path}`);
    await page.locator('[data-total]').filter({ hasText: /object/ }).waitFor();
  }

  before(async () => {
    client = await newApp(target);
    await master('post', `/1/schemas/${player}`, { className: player, fields: { name: { type: 'String' }, score: { type: 'Number' }, team: { type: 'Pointer', targetClass: team } } });
    await master('post', `/1/schemas/${team}`, { className: team, fields: { name: { type: 'String' }, members: { type: 'Relation', targetClass: player } } });
    for (const name of ['Red', 'Blue', 'Green']) teams.push((await master('post', `/1/classes/${team}`, { name })).objectId);
    for (let start = 0; start < ROWS; start += 50) {
      const requests = Array.from({ length: 50 }, (_, k) => {
        const i = start + k;
        const score = scoreOf(i);
        return { method: 'POST', path: `/1/classes/${player}`, body: { name: `p${i}`, ...(score === undefined ? {} : { score }), team: pointer(team, teams[i % 3]!) } };
      });
      for (const answer of await master('post', '/1/batch', { requests })) players.push(answer.success.objectId);
    }
    await master('put', `/1/classes/${team}/${teams[0]}`, { members: { __op: 'AddRelation', objects: players.slice(0, 3).map((id) => pointer(player, id)) } });
    await master('put', `/1/classes/${team}/${teams[1]}`, { members: { __op: 'AddRelation', objects: [pointer(player, players[1]!)] } });
    // Green's members are more than a page: their later pages and the end are read with $relatedTo inside $and.
    await master('put', `/1/classes/${team}/${teams[2]}`, { members: { __op: 'AddRelation', objects: players.slice(100, 350).map((id) => pointer(player, id)) } });
    page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  });
  after(async () => {
    await page?.close();
  });

  it('"points to" filters a Pointer column by an objectId checked before sending, and stays in the URL', async () => {
    await open(player);
    await total(`${ROWS} objects`);
    // The test server holds many apps, some with long names: the app switcher must not squeeze the links into a column.
    await page.getByLabel('Switch app').waitFor();
    assert.ok((await page.locator('.topbar').boundingBox())!.height < 60, 'the top bar is one line at 1280 px');
    await page.getByLabel('Filter column').selectOption('team');
    await page.getByLabel('Filter operator').selectOption('pointsTo');
    await page.getByLabel('Filter value').fill('not an id');
    await page.getByRole('button', { name: 'Add filter' }).click();
    assert.equal(await page.locator('.filters [role="alert"]').textContent(), '"not an id" is not an objectId (letters, digits, _ and -).');
    await page.getByLabel('Filter value').fill(teams[0]!);
    await page.getByRole('button', { name: 'Add filter' }).click();
    await total('234 objects');
    assert.equal(new URL(page.url()).searchParams.get('filter'), `team.pointsTo.${teams[0]}`);
    await screenshot(page, target, 'navigation-01-points-to');
  });

  it('a Pointer is followed to its object: the target class shows it alone, with a panel of its fields', async () => {
    const first = page.locator('.grid-row[data-object-id]').first();
    await first.getByRole('button', { name: `Open ${team} ${teams[0]}` }).click();
    await total('1 object');
    assert.equal(new URL(page.url()).pathname, `/dashboard/apps/${client.app.applicationId}/browser/${team}/${teams[0]}`);
    const panel = page.getByRole('region', { name: `Object ${teams[0]}` });
    await panel.locator('[data-field="name"] dd').filter({ hasText: 'Red' }).waitFor();
    assert.equal(await page.locator('.grid-row[data-object-id]').getAttribute('data-object-id'), teams[0]);
    await screenshot(page, target, 'navigation-02-object');
  });

  it('a Relation is followed to its members through $relatedTo, shown as a removable chip', async () => {
    await page.locator(`.grid-row[data-object-id="${teams[0]}"]`).getByRole('button', { name: `Members of members of ${teams[0]}` }).click();
    await total('3 objects');
    const url = new URL(page.url());
    assert.equal(url.pathname, `/dashboard/apps/${client.app.applicationId}/browser/${player}`);
    assert.equal(url.searchParams.get('filter'), `$relatedTo.memberOf.${team}.${teams[0]}.members`);
    // Wait for the rows themselves, not only the total, before reading them.
    await page.waitForFunction(() => document.querySelectorAll('.grid-row[data-object-id]').length === 3);
    assert.deepEqual((await page.locator('.grid-row[data-object-id]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-object-id')))).sort(), players.slice(0, 3).sort());
    assert.equal((await page.getByRole('list', { name: 'Filters' }).textContent())?.replace('×', ''), `members of ${team} ${teams[0]}`);
    await screenshot(page, target, 'navigation-03-members');
    await page.getByRole('button', { name: 'Remove filter on $relatedTo' }).click();
    await total(`${ROWS} objects`);
    // Back returns to the object the members were opened from.
    await page.goBack();
    await total('1 object');
    assert.equal(new URL(page.url()).pathname, `/dashboard/apps/${client.app.applicationId}/browser/${team}/${teams[0]}`);
  });

  it('the members of a relation of more than a page are read to the end, and Last joins them at once', async () => {
    await open(`${team}/${teams[2]}`);
    await page.locator(`.grid-row[data-object-id="${teams[2]}"]`).getByRole('button', { name: `Members of members of ${teams[2]}` }).click();
    await total('250 objects');
    const grid = page.locator('[role="grid"]');
    await page.locator('.grid-row[data-object-id]').first().waitFor();
    // 250 rows: the last page overlaps the first, so the two join and no gap is left.
    await page.getByRole('button', { name: 'Last rows' }).click();
    await page.waitForFunction(() => document.querySelector('[role="grid"]')?.getAttribute('aria-rowcount') === '251');
    assert.equal(await grid.getAttribute('data-gap-at'), null);
    const ids = (await master('get', `/1/classes/${player}`, undefined, { where: { $relatedTo: { object: pointer(team, teams[2]!), key: 'members' } }, order: '-objectId', limit: 1, keys: 'objectId' })).results;
    await page.locator(`.grid-row[data-object-id="${ids[0].objectId}"] [data-column="objectId"]:focus`).waitFor();
    // Sorted by name, the second page is a keyset page under the $relatedTo: scrolled to, it is read.
    await page.getByRole('button', { name: 'Sort by name' }).click();
    await page.locator('[role="columnheader"][aria-sort="ascending"]').waitFor();
    while ((await grid.getAttribute('aria-rowcount')) !== '251') {
      await grid.evaluate((element) => element.scrollTo(0, element.scrollHeight));
      await page.waitForTimeout(50);
    }
    assert.equal(await page.locator('[role="alert"]').count(), 0);
  });

  it('"contains" filters a Relation column by a member', async () => {
    await open(`${team}?filter=members.holds.${players[1]}`);
    await total('2 objects');
    await page.waitForFunction(() => document.querySelectorAll('.grid-row[data-object-id]').length === 2);
    assert.deepEqual((await page.locator('.grid-row[data-object-id]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-object-id')))).sort(), [teams[0], teams[1]].sort());
    await page.getByLabel('Filter column').selectOption('members');
    assert.deepEqual(await page.getByLabel('Filter operator').locator('option').allTextContents(), ['contains']);
  });

  it('the URL of one object (?objectId= too) opens it alone with its fields, after signing in', async () => {
    await open(`${player}?objectId=${players[5]}`);
    await total('1 object');
    assert.equal(new URL(page.url()).pathname, `/dashboard/apps/${client.app.applicationId}/browser/${player}/${players[5]}`);
    const panel = page.getByRole('region', { name: `Object ${players[5]}` });
    assert.equal(await panel.locator('[data-field="score"] dd').textContent(), '5');
    assert.equal(await panel.locator('[data-field="name"] dd').textContent(), 'p5');
    assert.equal(await panel.locator('[data-field="team"] dd').textContent(), `→${team} ${teams[2]}`);
    await page.getByRole('button', { name: 'Show all rows' }).click();
    await total(`${ROWS} objects`);
    await open(`${player}/nosuchobject1`);
    await page.getByRole('region', { name: 'Object nosuchobject1' }).getByText(`No object nosuchobject1 in ${player}.`).waitFor();
  });

  it('Last reads the end of the order reversed (no skip, no page between), and the gap fills as it is scrolled into', async () => {
    const asked: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes(`/1/classes/${player}?`)) asked.push(decodeURIComponent(request.url()));
    });
    await open(`${player}?sort=score`);
    await total(`${ROWS} objects`);
    await page.locator('.grid-row[data-object-id]').first().waitFor();
    const pagesBefore = asked.filter((url) => !url.includes('count=1')).length;
    // Opening the class read one page, once.
    assert.equal(pagesBefore, 1, asked.join('\n'));
    await page.getByRole('button', { name: 'Last rows' }).click();
    // The order ends with the players without a score, by objectId: the last of them is the grid's last row.
    const noScore = (await master('get', `/1/classes/${player}`, undefined, { where: { score: { $exists: false } }, order: '-objectId', limit: 1000, keys: 'objectId' })).results.map((o: { objectId: string }) => o.objectId);
    const withScore = (await master('get', `/1/classes/${player}`, undefined, { where: { score: { $exists: true } }, order: 'score,objectId', limit: 1000, keys: 'objectId' })).results.map((o: { objectId: string }) => o.objectId);
    await page.locator(`.grid-row[data-object-id="${noScore[0]}"] [data-column="objectId"]:focus`).waitFor();
    assert.equal(await page.locator('.grid-row[data-object-id]').last().getAttribute('data-object-id'), noScore[0]);
    // The first page, one gap row, the last page, and the header.
    assert.equal(await page.locator('[role="grid"]').getAttribute('aria-rowcount'), String(200 + 1 + 200 + 1));
    assert.equal(await page.locator('[role="grid"]').getAttribute('data-gap-at'), '200');
    const jump = asked.filter((url) => !url.includes('count=1')).slice(pagesBefore);
    assert.equal(jump.length, 2, jump.join('\n'));
    assert.match(jump[0]!, /order=-objectId/);
    assert.match(jump[1]!, /order=-score,-objectId/);
    // Scrolled to, the gap row says how many rows it stands for, and is read forward from the first
    // page, by keyset pages, until it meets the end.
    // The page it asks for is held until the gap row has been read, so the row is seen as it was.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route((url) => url.pathname === `/1/classes/${player}` && (url.searchParams.get('where') ?? '').includes('$or'), async (route) => {
      await held;
      await route.continue();
    });
    await page.locator('[role="grid"]').evaluate((grid) => grid.scrollTo(0, 190 * 32));
    assert.equal(await page.locator('[data-gap]').textContent(), `… ${ROWS - 400} rows … (read as you scroll here)`);
    await screenshot(page, target, 'navigation-04-gap');
    release();
    for (let gapAt = await page.locator('[role="grid"]').getAttribute('data-gap-at'); gapAt; gapAt = await page.locator('[role="grid"]').getAttribute('data-gap-at')) {
      await page.locator('[role="grid"]').evaluate((grid, at) => grid.scrollTo(0, (at - 5) * 32), Number(gapAt));
      await page.waitForTimeout(50);
    }
    assert.equal(await page.locator('[role="grid"]').getAttribute('aria-rowcount'), String(ROWS + 1));
    assert.ok(asked.every((url) => !url.includes('skip')), 'no skip sent');
    // Every row once, in the order: scrolled from the top, each row index holds the expected id.
    const seen = new Map<number, string>();
    for (let top = 0; seen.size < ROWS; top += 300) {
      await page.locator('[role="grid"]').evaluate((grid, y) => grid.scrollTo(0, y), top);
      await page.waitForTimeout(30);
      for (const [index, id] of await page.locator('.grid-row[data-object-id]').evaluateAll((rows) => rows.map((row) => [Number(row.getAttribute('aria-rowindex')), row.getAttribute('data-object-id')!] as const))) seen.set(index - 2, id);
      if (top > ROWS * 40) break;
    }
    assert.deepEqual([...seen.entries()].sort((a, b) => a[0] - b[0]).map(([, id]) => id), [...withScore, ...noScore.reverse()]);
  });

  it('Ctrl+End in the grid goes to the last row by objectId', async () => {
    await open(player);
    await page.locator('.grid-row[data-object-id]').first().locator('[data-column="name"]').click();
    await page.keyboard.press('Control+End');
    const last = (await master('get', `/1/classes/${player}`, undefined, { order: '-objectId', limit: 1, keys: 'objectId' })).results[0].objectId;
    await page.locator(`.grid-row[data-object-id="${last}"] [data-column="name"]:focus`).waitFor();
    await page.keyboard.press('Control+Home');
    const first = (await master('get', `/1/classes/${player}`, undefined, { order: 'objectId', limit: 1, keys: 'objectId' })).results[0].objectId;
    await page.locator(`.grid-row[data-object-id="${first}"] [data-column="name"]:focus`).waitFor();
  });
});
