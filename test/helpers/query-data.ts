import assert from 'node:assert/strict';
import { unique, type AppClient } from './client.ts';

/**
 * The fixed data set the query tables run on. Items hold every field type a query can meet;
 * persons are what their pointers and the persons' `likes` relation refer to. Items are created
 * one after another with distinct creation times, in name order, so createdAt comparisons have
 * exact answers. Places and polygons keep clear of edges, where the backends may differ.
 */

type Pointer = { __type: 'Pointer'; className: string; objectId: string };
const date = (iso: string) => ({ __type: 'Date', iso });
const geo = (latitude: number, longitude: number) => ({ __type: 'GeoPoint', latitude, longitude });
const polygon = (...coordinates: [number, number][]) => ({ __type: 'Polygon', coordinates });

export const PERSONS: readonly Record<string, unknown>[] = [
  { name: 'ann', age: 30, city: 'Oslo', fav: 'red' },
  { name: 'bob', age: 40, city: 'Rome', fav: 'green' },
  { name: 'cid', age: 50, city: 'Oslo', fav: 'purple' },
  { name: 'dee', age: 60 },
];

/** A long text: the one word "needle" after some 24,000 characters. */
export const LONG_TEXT = `Zebra ${'filler words '.repeat(2000)}needle`;

function items(person: (name: string) => Pointer): Record<string, unknown>[] {
  return [
    {
      name: 'alpha', score: 10, active: true, when: date('2024-01-01T00:00:00.000Z'), tags: ['red', 'blue'], owners: [person('ann'), person('bob')], owner: person('ann'),
      meta: { color: 'red', size: { w: 1, h: 2 }, level: 1 }, place: geo(59.9139, 10.7522), area: polygon([59, 10], [59, 11], [60, 11], [60, 10]),
      body: 'The quick brown fox jumps over the lazy dog',
    },
    {
      name: 'bravo', score: 20, active: false, when: date('2024-02-01T00:00:00.000Z'), tags: ['blue'], owners: [person('bob')], owner: person('bob'),
      meta: { color: 'blue', size: { w: 2, h: 2 }, level: 2 }, place: geo(59.7439, 10.2045), area: polygon([0, 0], [0, 10], [10, 0]),
      body: 'Lorem ipsum dolor sit amet,\nconsectetur adipiscing elit',
    },
    {
      name: 'charlie', score: 30, active: true, when: date('2024-03-01T00:00:00.000Z'), tags: ['green', 'red', 'blue'], owners: [person('cid')], owner: person('cid'),
      meta: { color: 'green', size: { w: 3, h: 1 }, level: 3 }, place: geo(60.7945, 11.068), area: polygon([50, 0], [50, 20], [70, 20], [70, 0]),
      body: 'Foxes are QUICK; dogs are lazy.',
    },
    {
      name: 'delta', score: 40, active: false, when: date('2024-04-01T00:00:00.000Z'), tags: [], owners: [], owner: person('ann'),
      meta: { level: 4, color: 'red' }, place: geo(63.4305, 10.3951), body: 'Running runners ran quickly',
    },
    {
      name: 'echo', score: 50, active: true, when: date('2024-05-01T00:00:00.000Z'), tags: ['Red'], owners: [person('ann'), person('cid')], owner: person('bob'),
      meta: { color: 'Red', level: 5 }, place: geo(57.7089, 11.9746), body: 'ÉCOLE café naïve',
    },
    {
      name: 'foxtrot', score: -5, active: false, when: date('2023-12-31T23:59:59.999Z'), tags: ['red', 'red'], owners: [person('dee')], owner: person('dee'),
      meta: { color: 'red', size: { w: 1 } }, place: geo(41.9028, 12.4964), body: 'Price: $5.00 (a.b*c) [x] back\\Eslash',
    },
    {
      name: 'golf', score: 2.5, active: true, when: date('2024-06-15T12:30:00.000Z'), tags: ['yellow'], owners: [],
      meta: { level: 'high' }, place: geo(-33.8688, 151.2093), body: 'line one\nline two\nLINE three',
    },
    { name: 'hotel', score: 0, body: 'state-of-the-art foo_bar 3.14 bob@example.com' },
    {
      name: 'india', score: 100, active: true, when: date('2025-01-01T00:00:00.000Z'), tags: ['blue', 'green'], owners: [person('bob'), person('cid')], owner: person('cid'),
      meta: { color: 'blue', level: 10, deep: { x: { y: 'z' } } }, place: geo(-17, 179.5), body: LONG_TEXT,
    },
    { name: 'juliet' },
    { name: 'kilo', score: null, meta: null },
    { name: 'lima', score: 7, tags: ['blue', 3, true], meta: { level: true, color: 5 }, place: geo(-17, -179.5) },
  ];
}

export const ITEM_NAMES = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'] as const;
/** Items changed after every item was created (their updatedAt is later than any createdAt). */
export const UPDATED_ITEMS = ['bravo', 'delta'] as const;
/** Objects of the bulk class: `n` from 0, named b0000, b0001, … */
export const BULK_SIZE = 1005;

export interface Seed {
  readonly app: AppClient;
  readonly classes: { readonly item: string; readonly person: string; readonly bulk: string };
  /** objectId of every item and person, by name. */
  readonly ids: Readonly<Record<string, string>>;
  readonly createdAt: Readonly<Record<string, string>>;
  pointer(name: string): Pointer;
  /** The item's creation time as a Date value. */
  created(name: string): { __type: 'Date'; iso: string };
  /** The names in objectId order: how ties of a sort are broken. */
  byId(names: readonly string[]): string[];
}

async function create(app: AppClient, className: string, body: Record<string, unknown>): Promise<{ objectId: string; createdAt: string }> {
  const response = await app.post(`/1/classes/${className}`, body);
  assert.equal(response.status, 201, response.text);
  return response.body;
}

/** Waits until the clock has passed `iso`, so the next write gets a later timestamp. */
async function after(iso: string): Promise<void> {
  while (Date.now() <= Date.parse(iso)) await new Promise((resolve) => setTimeout(resolve, 2));
}

export async function seedQueryData(app: AppClient, options: { bulk?: boolean } = {}): Promise<Seed> {
  const classes = { item: unique('Item'), person: unique('Person'), bulk: unique('Bulk') };
  const ids: Record<string, string> = {};
  const createdAt: Record<string, string> = {};
  const classOf = (name: string) => (PERSONS.some((person) => person.name === name) ? classes.person : classes.item);
  const pointer = (name: string): Pointer => {
    assert.ok(ids[name], `no seeded object named ${name}`);
    return { __type: 'Pointer', className: classOf(name), objectId: ids[name]! };
  };

  for (const person of PERSONS) ids[person.name as string] = (await create(app, classes.person, person)).objectId;
  let last = '';
  for (const item of items(pointer)) {
    await after(last);
    const created = await create(app, classes.item, item);
    ids[item.name as string] = created.objectId;
    createdAt[item.name as string] = last = created.createdAt;
  }
  await after(last);
  for (const name of UPDATED_ITEMS) {
    const updated = await app.put(`/1/classes/${classes.item}/${ids[name]}`, { touched: true });
    assert.equal(updated.status, 200, updated.text);
  }
  const likes: Record<string, string[]> = { ann: ['alpha', 'charlie'], bob: ['bravo'] };
  for (const [name, liked] of Object.entries(likes)) {
    const response = await app.put(`/1/classes/${classes.person}/${ids[name]}`, { likes: { __op: 'AddRelation', objects: liked.map(pointer) } });
    assert.equal(response.status, 200, response.text);
  }

  if (options.bulk) {
    for (let start = 0; start < BULK_SIZE; start += 50) {
      const requests = [];
      for (let n = start; n < Math.min(start + 50, BULK_SIZE); n++) requests.push({ method: 'POST', path: `/1/classes/${classes.bulk}`, body: { n, name: `b${String(n).padStart(4, '0')}` } });
      const response = await app.post('/1/batch', { requests });
      assert.equal(response.status, 200, response.text);
      assert.ok((response.body as unknown[]).every((entry) => typeof entry === 'object' && entry !== null && 'success' in entry), response.text.slice(0, 300));
    }
  }

  return {
    app,
    classes,
    ids,
    createdAt,
    pointer,
    created: (name) => ({ __type: 'Date', iso: createdAt[name]! }),
    byId: (names) => [...names].sort((a, b) => (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0)),
  };
}
