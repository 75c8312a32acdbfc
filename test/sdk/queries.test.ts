import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { unique } from '../helpers/client.ts';
import { Parse, eachBackendWithSdk, rejectsWithCode, sdkRequests } from '../helpers/sdk.ts';

/** Parse.Query against Basalt: each constraint the SDK builds, with the exact objects it finds. */

type Obj = Parse.Object<Record<string, any>>;

eachBackendWithSdk('SDK queries', () => {
  const Player = unique('Player');
  const Team = unique('Team');
  const byName = new Map<string, Obj>();
  let red: Obj;
  let blue: Obj;

  const names = (objects: Obj[]) => objects.map((object) => object.get('name'));
  const sorted = (objects: Obj[]) => names(objects).sort();
  const query = () => new Parse.Query<Obj>(Player);

  before(async () => {
    red = new Parse.Object<Record<string, any>>(Team, { name: 'Red', league: 'A' });
    blue = new Parse.Object<Record<string, any>>(Team, { name: 'Blue', league: 'B' });
    await Parse.Object.saveAll([red, blue]);
    const rows: Record<string, any>[] = [
      { name: 'Alice', score: 10, team: red, tags: ['a', 'b'], location: new Parse.GeoPoint(0, 0), city: 'Paris' },
      { name: 'bob.smith', score: 20, team: blue, tags: ['b'], location: new Parse.GeoPoint(0, 1), city: 'Lyon' },
      { name: 'Carol (C)', score: 30, team: red, tags: [], location: new Parse.GeoPoint(10, 10), city: 'Paris' },
      { name: 'dave', score: 40, tags: ['c'], city: 'Nice' },
      { name: 'Eve', score: 50, team: blue, tags: ['a'], location: new Parse.GeoPoint(0, 0.1), nickname: 'evil', city: 'Lyon' },
    ];
    const players = rows.map((row) => new Parse.Object<Record<string, any>>(Player, row));
    await Parse.Object.saveAll(players);
    for (const player of players) byName.set(player.get('name'), player);
    red.relation('members').add([byName.get('Alice')!, byName.get('Carol (C)')!]);
    blue.relation('members').add(byName.get('Eve')!);
    await Parse.Object.saveAll([red, blue]);
  });

  it('equalTo, notEqualTo, containedIn, notContainedIn and containsAll', async () => {
    assert.deepEqual(names(await query().equalTo('score', 20).find()), ['bob.smith']);
    assert.deepEqual(names(await query().equalTo('team', red).ascending('score').find()), ['Alice', 'Carol (C)']);
    assert.deepEqual(sorted(await query().notEqualTo('city', 'Paris').find()), ['Eve', 'bob.smith', 'dave']);
    assert.deepEqual(sorted(await query().containedIn('score', [10, 40, 99]).find()), ['Alice', 'dave']);
    assert.deepEqual(sorted(await query().notContainedIn('city', ['Paris', 'Lyon']).find()), ['dave']);
    // An array field: equalTo matches an element, containsAll needs every value.
    assert.deepEqual(sorted(await query().equalTo('tags', 'a').find()), ['Alice', 'Eve']);
    assert.deepEqual(sorted(await query().containsAll('tags', ['a', 'b']).find()), ['Alice']);
    assert.deepEqual(sorted(await query().containedIn('team', [blue]).find()), ['Eve', 'bob.smith']);
  });

  it('lessThan, lessThanOrEqualTo, greaterThan, greaterThanOrEqualTo, and on dates', async () => {
    assert.deepEqual(sorted(await query().lessThan('score', 30).find()), ['Alice', 'bob.smith']);
    assert.deepEqual(sorted(await query().lessThanOrEqualTo('score', 30).find()), ['Alice', 'Carol (C)', 'bob.smith']);
    assert.deepEqual(sorted(await query().greaterThan('score', 30).lessThan('score', 50).find()), ['dave']);
    assert.deepEqual(sorted(await query().greaterThanOrEqualTo('score', 50).find()), ['Eve']);
    const eve = byName.get('Eve')!;
    assert.deepEqual(sorted(await query().greaterThanOrEqualTo('createdAt', eve.createdAt!).equalTo('objectId', eve.id).find()), ['Eve']);
    assert.equal(await query().greaterThan('createdAt', new Date(Date.now() + 3_600_000)).count(), 0);
  });

  it('matches, startsWith, endsWith and contains quote the text with \\Q…\\E and match it literally', async () => {
    sdkRequests.length = 0;
    assert.deepEqual(names(await query().startsWith('name', 'bob.').find()), ['bob.smith']);
    assert.deepEqual(sdkRequests.at(-1)!.data.where, { name: { $regex: '^\\Qbob.\\E' } });
    // The dot is literal: "bob" followed by any character does not match "bobXsmith"-like names here,
    // and "Carol (C)" is found by its parentheses.
    assert.deepEqual(names(await query().contains('name', '(C)').find()), ['Carol (C)']);
    assert.deepEqual(names(await query().endsWith('name', '(C)').find()), ['Carol (C)']);
    assert.deepEqual(sdkRequests.at(-1)!.data.where, { name: { $regex: '\\Q(C)\\E$' } });
    assert.deepEqual(names(await query().contains('name', 'b.s').find()), ['bob.smith']);
    assert.deepEqual(names(await query().contains('name', 'b.').find()), ['bob.smith']);
    assert.equal(await query().contains('name', 'o.').count(), 0);
    // A \E inside the text is quoted too.
    assert.equal(await query().contains('name', 'x\\Ey').count(), 0);
    // matches takes a real pattern and its modifiers.
    assert.deepEqual(sorted(await query().matches('name', /^[a-c]/i).find()), ['Alice', 'Carol (C)', 'bob.smith']);
    assert.deepEqual(sorted(await query().matches('name', '^[a-c]', '').find()), ['bob.smith']);
    assert.deepEqual(sorted(await query().startsWith('name', 'ALI', 'i').find()), ['Alice']);
  });

  it('exists and doesNotExist', async () => {
    assert.deepEqual(names(await query().exists('nickname').find()), ['Eve']);
    assert.deepEqual(names(await query().doesNotExist('team').find()), ['dave']);
    assert.deepEqual(sorted(await query().exists('location').doesNotExist('nickname').find()), ['Alice', 'Carol (C)', 'bob.smith']);
  });

  it('matchesQuery, doesNotMatchQuery, matchesKeyInQuery and doesNotMatchKeyInQuery', async () => {
    const leagueA = new Parse.Query(Team).equalTo('league', 'A');
    assert.deepEqual(sorted(await query().matchesQuery('team', leagueA).find()), ['Alice', 'Carol (C)']);
    // doesNotMatchQuery keeps players without a team too.
    assert.deepEqual(sorted(await query().doesNotMatchQuery('team', leagueA).find()), ['Eve', 'bob.smith', 'dave']);
    // Players whose city is the city of a player with a score above 40 (Eve: Lyon).
    const high = query().greaterThan('score', 40);
    assert.deepEqual(sorted(await query().matchesKeyInQuery('city', 'city', high).find()), ['Eve', 'bob.smith']);
    assert.deepEqual(sorted(await query().doesNotMatchKeyInQuery('city', 'city', high).find()), ['Alice', 'Carol (C)', 'dave']);
    // Across classes: players whose team name is the name of a league B team, by name.
    const otherClass = unique('Label');
    await new Parse.Object<Record<string, any>>(otherClass, { text: 'Paris' }).save();
    assert.deepEqual(sorted(await query().doesNotMatchKeyInQuery('city', 'text', new Parse.Query(otherClass)).find()), ['Eve', 'bob.smith', 'dave']);
  });

  it('Parse.Query.or, Parse.Query.and, and both nested', async () => {
    const low = query().lessThan('score', 20);
    const high = query().greaterThan('score', 40);
    assert.deepEqual(sorted(await Parse.Query.or(low, high).find()), ['Alice', 'Eve']);
    const paris = query().equalTo('city', 'Paris');
    const above = query().greaterThan('score', 15);
    assert.deepEqual(sorted(await Parse.Query.and(paris, above).find()), ['Carol (C)']);
    const nested = Parse.Query.and(Parse.Query.or(low, high), query().exists('location'));
    assert.deepEqual(sorted(await nested.find()), ['Alice', 'Eve']);
    assert.deepEqual(sorted(await Parse.Query.nor(low, high).find()), ['Carol (C)', 'bob.smith', 'dave']);
    // A constraint on the combined query applies to every branch.
    assert.deepEqual(sorted(await Parse.Query.or(low, high).equalTo('city', 'Lyon').find()), ['Eve']);
  });

  it('fullText finds every word in any order and case; containedBy keeps arrays within the values', async () => {
    const Post = unique('Post');
    const posts = ['The quick brown fox', 'A QUICK test of foxes', 'lazy dog'].map((body) => new Parse.Object<Record<string, any>>(Post, { body }));
    await Parse.Object.saveAll(posts);
    const bodies = async (q: Parse.Query<Obj>) => (await q.find()).map((o) => o.get('body')).sort();
    assert.deepEqual(await bodies(new Parse.Query<Obj>(Post).fullText('body', 'FOX quick')), ['The quick brown fox']);
    assert.deepEqual(await bodies(new Parse.Query<Obj>(Post).fullText('body', 'quick', { language: 'english' })), ['A QUICK test of foxes', 'The quick brown fox']);
    assert.deepEqual(sdkRequests.at(-1)!.data.where, { body: { $text: { $search: { $term: 'quick', $language: 'english' } } } });
    assert.deepEqual(sorted(await query().containedBy('tags', ['a', 'b']).find()), ['Alice', 'Carol (C)', 'Eve', 'bob.smith']);
  });

  it('withinPolygon finds the points inside; polygonContains the polygons holding a point', async () => {
    const square = [new Parse.GeoPoint(-1, -1), new Parse.GeoPoint(-1, 0.5), new Parse.GeoPoint(1, 0.5), new Parse.GeoPoint(1, -1)];
    assert.deepEqual(sorted(await query().withinPolygon('location', square as any).find()), ['Alice', 'Eve']);
    const Area = unique('Area');
    const area = await new Parse.Object<Record<string, any>>(Area, { shape: new Parse.Polygon([[0, 0], [0, 10], [10, 10], [10, 0]]) }).save();
    await new Parse.Object<Record<string, any>>(Area, { shape: new Parse.Polygon([[20, 20], [20, 30], [30, 30]]) }).save();
    const found = await new Parse.Query(Area).polygonContains('shape', new Parse.GeoPoint(5, 5)).find();
    assert.deepEqual(found.map((o) => o.id), [area.id]);
    const back = await new Parse.Query(Area).get(area.id!);
    assert.ok(back.get('shape') instanceof Parse.Polygon);
    assert.deepEqual(back.get('shape').coordinates, [[0, 0], [0, 10], [10, 10], [10, 0]]);
  });

  it('near sorts by distance; withinKilometers, withinMiles and withinGeoBox bound it', async () => {
    const origin = new Parse.GeoPoint(0, 0);
    // Without a maximum, near keeps points within 100 miles (docs/api.md, Geo queries): Carol, at
    // about 1,570 km, is left out.
    assert.deepEqual(names(await query().near('location', origin).find()), ['Alice', 'Eve', 'bob.smith']);
    // 0.1° of longitude at the equator is about 11.1 km; 1° about 111 km.
    assert.deepEqual(names(await query().withinKilometers('location', origin, 50).find()), ['Alice', 'Eve']);
    assert.deepEqual(names(await query().withinKilometers('location', origin, 200).find()), ['Alice', 'Eve', 'bob.smith']);
    assert.deepEqual(sorted(await query().withinKilometers('location', origin, 200, false).find()), ['Alice', 'Eve', 'bob.smith']);
    assert.deepEqual(names(await query().withinMiles('location', origin, 10).find()), ['Alice', 'Eve']);
    assert.deepEqual(names(await query().withinRadians('location', origin, 0.01).find()), ['Alice', 'Eve']);
    const box = await query().withinGeoBox('location', new Parse.GeoPoint(-1, -1), new Parse.GeoPoint(1, 0.5)).find();
    assert.deepEqual(box.map((o) => o.get('name')).sort(), ['Alice', 'Eve']);
  });

  it('ascending, descending, several keys, limit and skip', async () => {
    assert.deepEqual(names(await query().ascending('score').find()), ['Alice', 'bob.smith', 'Carol (C)', 'dave', 'Eve']);
    assert.deepEqual(names(await query().descending('score').limit(2).find()), ['Eve', 'dave']);
    assert.deepEqual(names(await query().descending('score').skip(1).limit(2).find()), ['dave', 'Carol (C)']);
    assert.deepEqual(names(await query().ascending('city').addDescending('score').find()), ['Eve', 'bob.smith', 'dave', 'Carol (C)', 'Alice']);
    assert.deepEqual(names(await query().ascending('city', 'score').find()), ['bob.smith', 'Eve', 'dave', 'Alice', 'Carol (C)']);
    assert.deepEqual(names(await query().ascending('score').skip(4).limit(10).find()), ['Eve']);
    assert.deepEqual(await query().ascending('score').skip(5).find(), []);
  });

  it('count, first, get, find and findAll', async () => {
    assert.equal(await query().count(), 5);
    assert.equal(await query().equalTo('city', 'Lyon').count(), 2);
    assert.equal(await query().equalTo('city', 'Nowhere').count(), 0);
    const first = await query().ascending('score').first();
    assert.equal(first!.get('name'), 'Alice');
    assert.equal(await query().equalTo('city', 'Nowhere').first(), undefined);
    const alice = byName.get('Alice')!;
    const got = await query().get(alice.id!);
    assert.equal(got.get('name'), 'Alice');
    assert.equal(got.get('team').id, red.id);
    const all = await query().findAll({ batchSize: 2 });
    assert.deepEqual(sorted(all), ['Alice', 'Carol (C)', 'Eve', 'bob.smith', 'dave']);
    const { results, count } = (await query().withCount().limit(1).ascending('score').find()) as unknown as { results: Obj[]; count: number };
    assert.equal(count, 5);
    assert.deepEqual(names(results), ['Alice']);
  });

  it('each visits every match once, in pages of batchSize', async () => {
    sdkRequests.length = 0;
    const seen: string[] = [];
    await query().greaterThan('score', 10).each((player) => void seen.push(player.get('name')), { batchSize: 2 });
    assert.deepEqual(seen.sort(), ['Carol (C)', 'Eve', 'bob.smith', 'dave']);
    const pages = sdkRequests.filter((request) => request.path === `classes/${Player}`);
    // Two full pages, then the page that comes back short (here empty) ends the walk.
    assert.equal(pages.length, 3);
    for (const page of pages) assert.equal(page.data.limit, 2);
  });

  it('select returns only the chosen keys (plus the built-in ones)', async () => {
    const [alice] = await query().equalTo('name', 'Alice').select('score', 'city').find();
    assert.deepEqual(Object.keys(alice!.attributes).sort(), ['city', 'createdAt', 'score', 'updatedAt']);
    assert.equal(alice!.get('score'), 10);
    assert.equal(alice!.has('name'), false);
    // select through a pointer with include.
    const [withTeam] = await query().equalTo('name', 'Alice').include('team').select('team.league').find();
    assert.equal(withTeam!.get('team').get('league'), 'A');
    assert.equal(withTeam!.get('team').has('name'), false);
  });

  it('exclude leaves out the named keys (excludeKeys)', async () => {
    sdkRequests.length = 0;
    const [alice] = await query().equalTo('name', 'Alice').exclude('score', 'tags').find();
    assert.equal(sdkRequests.at(-1)!.data.excludeKeys, 'score,tags');
    assert.equal(alice!.get('name'), 'Alice');
    assert.equal(alice!.get('city'), 'Paris');
    assert.equal(alice!.has('score'), false);
    assert.equal(alice!.has('tags'), false);
    const got = await query().exclude('city').get(alice!.id!);
    assert.equal(got.has('city'), false);
    assert.equal(got.get('score'), 10);
  });

  it('hint reads through a named index and answers the same; explain answers the plan (master key)', async () => {
    const expected = names(await query().greaterThan('score', 15).ascending('score').find());
    assert.deepEqual(names(await query().greaterThan('score', 15).ascending('score').hint('_id_').find()), expected);
    assert.equal(sdkRequests.at(-1)!.data.hint, '_id_');
    await rejectsWithCode(() => query().hint('noSuchIndex').find(), Parse.Error.INVALID_QUERY);
    const plan = (await query().equalTo('city', 'Paris').explain().find({ useMasterKey: true })) as unknown as Record<string, unknown>[];
    assert.ok(Array.isArray(plan) && plan.length >= 1);
    for (const entry of plan) assert.deepEqual(Object.keys(entry), ['QUERY PLAN']);
    await rejectsWithCode(() => query().explain().find(), Parse.Error.OPERATION_FORBIDDEN);
  });

  it('include expands pointers; includeAll expands every pointer field', async () => {
    const [plain] = await query().equalTo('name', 'Alice').find();
    assert.equal(plain!.get('team').isDataAvailable(), false);
    const [included] = await query().equalTo('name', 'Alice').include('team').find();
    assert.equal(included!.get('team').get('name'), 'Red');
    assert.equal(included!.get('team').get('league'), 'A');
    const [all] = await query().equalTo('name', 'Eve').includeAll().find();
    assert.equal(all!.get('team').get('name'), 'Blue');
    // Two levels: a pointer inside the included object.
    const Match = unique('Match');
    const match = await new Parse.Object<Record<string, any>>(Match, { winner: byName.get('Alice') }).save();
    const deep = await new Parse.Query(Match).include('winner.team').get(match.id!);
    assert.equal(deep.get('winner').get('name'), 'Alice');
    assert.equal(deep.get('winner').get('team').get('league'), 'A');
    // A player without a team includes nothing and fails nothing.
    const [dave] = await query().equalTo('name', 'dave').include('team').find();
    assert.equal(dave!.get('team'), undefined);
  });

  it('relation queries: the members of a relation, and the owners of a member', async () => {
    assert.deepEqual(sorted(await red.relation('members').query().find()), ['Alice', 'Carol (C)']);
    assert.deepEqual(names(await red.relation('members').query().greaterThan('score', 20).find()), ['Carol (C)']);
    assert.deepEqual(names(await blue.relation('members').query().find()), ['Eve']);
    const withAlice = await new Parse.Query(Team).equalTo('members', byName.get('Alice')).find();
    assert.deepEqual(withAlice.map((team) => team.id), [red.id]);
    // Removing a member shows in the next query.
    blue.relation('members').remove(byName.get('Eve')!);
    await blue.save();
    assert.deepEqual(await blue.relation('members').query().find(), []);
    blue.relation('members').add(byName.get('Eve')!);
    await blue.save();
    // A relation read back from the server queries the same members.
    const fetched = await new Parse.Query(Team).get(red.id!);
    assert.deepEqual(sorted(await fetched.relation('members').query().find()), ['Alice', 'Carol (C)']);
  });
});
