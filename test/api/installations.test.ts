import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { eachBackend } from '../helpers/each-backend.ts';
import { http, newApp, sdkBody, type AppClient, type RequestOptions } from '../helpers/client.ts';
import { TIMESTAMP, as, assertError, signUp, type TestUser } from '../helpers/users.ts';

/** Spec 2.8 and 4.9: installations, their fields and who may do what with them. */

const MASTER = { key: 'master' } as const;

eachBackend('installations', (target) => {
  let app: AppClient;
  let alice: TestUser;

  before(async () => {
    app = await newApp(target, { rateLimits: { authRequestsPerMinute: 0 } });
    alice = await signUp(app);
  });

  async function create(body: Record<string, unknown>, options?: RequestOptions): Promise<string> {
    const response = await app.post('/1/installations', body, options);
    assert.equal(response.status, 201, response.text);
    return response.body.objectId;
  }

  async function read(objectId: string): Promise<Record<string, any>> {
    const response = await app.get(`/1/installations/${objectId}`, MASTER);
    assert.equal(response.status, 200, response.text);
    return response.body;
  }

  it('creates with 201, Location and exactly {objectId, createdAt}; any key reads it back', async () => {
    const installationId = randomUUID();
    const body = { deviceType: 'ios', installationId, deviceToken: 'ab'.repeat(32), channels: ['', 'Giants'], badge: 3, timeZone: 'Europe/Paris', appName: 'Scores', appVersion: '1.2', parseVersion: '1.19.0', appIdentifier: 'com.example.scores' };
    const response = await app.post('/1/installations', body);
    assert.equal(response.status, 201, response.text);
    assert.deepEqual(Object.keys(response.body).sort(), ['createdAt', 'objectId']);
    const { objectId, createdAt } = response.body;
    assert.match(createdAt, TIMESTAMP);
    assert.equal(response.headers.get('location'), `${target.url}/1/installations/${objectId}`);

    const expected = { ...body, objectId, createdAt, updatedAt: createdAt };
    for (const options of [MASTER, {}, { key: 'client' } as const, as(alice.sessionToken)]) {
      const got = await app.get(`/1/installations/${objectId}`, options);
      assert.equal(got.status, 200, got.text);
      assert.deepEqual(got.body, expected);
    }
    // The Parse SDKs use the class URL; it is the same endpoint.
    assert.deepEqual((await app.get(`/1/classes/_Installation/${objectId}`)).body, expected);
  });

  it('updates channels and other fields with PUT, answering {updatedAt}', async () => {
    const objectId = await create({ deviceType: 'android', installationId: randomUUID(), channels: ['News'] });
    const put = await app.put(`/1/installations/${objectId}`, { channels: ['Giants', 'Mets'], badge: 1, subscribedToOffers: true });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(Object.keys(put.body), ['updatedAt']);
    assert.match(put.body.updatedAt, TIMESTAMP);
    let stored = await read(objectId);
    assert.deepEqual(stored.channels, ['Giants', 'Mets']);
    assert.equal(stored.subscribedToOffers, true);
    assert.equal(stored.updatedAt, put.body.updatedAt);

    // The SDKs subscribe and unsubscribe with AddUnique and Remove.
    assert.equal((await app.put(`/1/installations/${objectId}`, { channels: { __op: 'AddUnique', objects: ['Mets', 'Jets'] } })).status, 200);
    assert.equal((await app.put(`/1/classes/_Installation/${objectId}`, { channels: { __op: 'Remove', objects: ['Giants'] }, badge: { __op: 'Increment', amount: 2 } })).status, 200);
    stored = await read(objectId);
    assert.deepEqual(stored.channels, ['Mets', 'Jets']);
    assert.equal(stored.badge, 3);
  });

  it('lets only the master key list and delete installations (403/119 for other keys)', async () => {
    const objectId = await create({ deviceType: 'winrt', installationId: randomUUID() });
    const others: RequestOptions[] = [{}, { key: 'client' }, as(alice.sessionToken)];
    for (const options of others) {
      assertError(await app.get('/1/installations', options), 403, 119, 'list');
      assertError(await app.get('/1/classes/_Installation', { ...options, query: { count: 1, limit: 0 } }), 403, 119, 'count');
      assertError(await app.delete(`/1/installations/${objectId}`, options), 403, 119, 'delete');
    }
    const listed = await app.get('/1/installations', { ...MASTER, query: { where: { objectId } } });
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.body.results.map((row: { objectId: string }) => row.objectId), [objectId]);

    const deleted = await app.delete(`/1/installations/${objectId}`, MASTER);
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(deleted.body, {});
    assertError(await app.get(`/1/installations/${objectId}`), 404, 101);
    assertError(await app.delete(`/1/installations/${objectId}`, MASTER), 404, 101);
  });

  it('answers queries on channels: one channel, the exact array, $all and $in', async () => {
    const tag = `run${randomUUID().slice(0, 8)}`;
    const ids = {
      giants: await create({ deviceType: 'ios', installationId: randomUUID(), channels: ['Giants'], tag }),
      both: await create({ deviceType: 'ios', installationId: randomUUID(), channels: ['Giants', 'Mets'], tag }),
      mets: await create({ deviceType: 'android', installationId: randomUUID(), channels: ['Mets'], tag }),
      none: await create({ deviceType: 'android', installationId: randomUUID(), channels: [], tag }),
    };
    const found = async (where: Record<string, unknown>) => {
      const response = await app.get('/1/installations', { ...MASTER, query: { where: { tag, ...where }, order: 'createdAt' } });
      assert.equal(response.status, 200, response.text);
      return response.body.results.map((row: { objectId: string }) => row.objectId);
    };
    assert.deepEqual(await found({ channels: 'Giants' }), [ids.giants, ids.both]);
    assert.deepEqual(await found({ channels: ['Giants', 'Mets'] }), [ids.both]);
    assert.deepEqual(await found({ channels: ['Mets', 'Giants'] }), []);
    assert.deepEqual(await found({ channels: { $all: ['Mets', 'Giants'] } }), [ids.both]);
    assert.deepEqual(await found({ channels: { $in: ['Mets'] } }), [ids.both, ids.mets]);
    assert.deepEqual(await found({ channels: [] }), [ids.none]);
    assert.deepEqual(await found({ deviceType: 'android', channels: 'Mets' }), [ids.mets]);
  });

  it('checks deviceType (133), installationId (132), channels (112), timeZone (142) and the ids a new installation needs (135)', async () => {
    const cases: [string, Record<string, unknown>, number][] = [
      ['an unknown device type', { deviceType: 'symbian', installationId: randomUUID() }, 133],
      ['a device type in capitals', { deviceType: 'IOS', installationId: randomUUID() }, 133],
      ['a device type that is no string', { deviceType: 1, installationId: randomUUID() }, 133],
      ['an installationId that is no UUID', { deviceType: 'ios', installationId: 'not-a-uuid' }, 132],
      ['a UUID without dashes', { deviceType: 'ios', installationId: randomUUID().replace(/-/g, '') }, 132],
      ['an installationId that is no string', { deviceType: 'ios', installationId: 12 }, 132],
      ['a channel starting with a digit', { deviceType: 'ios', installationId: randomUUID(), channels: ['1st'] }, 112],
      ['a channel with a space', { deviceType: 'ios', installationId: randomUUID(), channels: ['New York'] }, 112],
      ['a channel with a dot', { deviceType: 'ios', installationId: randomUUID(), channels: ['a.b'] }, 112],
      ['a channel that is no string', { deviceType: 'ios', installationId: randomUUID(), channels: [7] }, 112],
      ['channels that are no array', { deviceType: 'ios', installationId: randomUUID(), channels: 'Giants' }, 112],
      ['a bad channel in AddUnique', { deviceType: 'ios', installationId: randomUUID(), channels: { __op: 'AddUnique', objects: ['ok', '-no'] } }, 112],
      ['channels incremented', { deviceType: 'ios', installationId: randomUUID(), channels: { __op: 'Increment', amount: 1 } }, 112],
      ['an unknown time zone', { deviceType: 'ios', installationId: randomUUID(), timeZone: 'Mars/Olympus_Mons' }, 142],
      ['an offset for a time zone', { deviceType: 'ios', installationId: randomUUID(), timeZone: '+01:00' }, 142],
      ['a time zone that is no string', { deviceType: 'ios', installationId: randomUUID(), timeZone: 1 }, 142],
      ['a pushType that is no string', { deviceType: 'ios', installationId: randomUUID(), pushType: true }, 111],
      ['neither installationId nor deviceToken', { deviceType: 'ios', channels: ['Giants'] }, 135],
      ['no deviceType', { installationId: randomUUID() }, 135],
      ['GCM without GCMSenderId', { deviceType: 'android', installationId: randomUUID(), pushType: 'gcm', deviceToken: 'gcm-token-1' }, 135],
      ['GCM without deviceToken', { deviceType: 'android', installationId: randomUUID(), pushType: 'gcm', GCMSenderId: '1076345567071' }, 135],
      ['a badge that is no number', { deviceType: 'ios', installationId: randomUUID(), badge: 'many' }, 111],
      ['an objectId', { deviceType: 'ios', installationId: randomUUID(), objectId: 'abc' }, 105],
    ];
    for (const [name, body, code] of cases) {
      assertError(await app.post('/1/installations', body), 400, code, name);
      if (typeof body.installationId === 'string') {
        const stored = await app.get('/1/installations', { ...MASTER, query: { where: { installationId: body.installationId.toLowerCase() } } });
        assert.deepEqual(stored.body.results, [], `${name} stored nothing`);
      }
    }
  });

  it('accepts every platform, the broadcast channel, IANA zones and their aliases, and GCM with its credentials', async () => {
    for (const deviceType of ['ios', 'android', 'winrt', 'winphone', 'dotnet', 'web']) await create({ deviceType, installationId: randomUUID() });
    for (const timeZone of ['America/Los_Angeles', 'America/Argentina/Buenos_Aires', 'UTC', 'GMT', 'US/Pacific', 'Etc/GMT+5']) {
      const objectId = await create({ deviceType: 'android', installationId: randomUUID(), timeZone });
      assert.equal((await read(objectId)).timeZone, timeZone);
    }
    const gcm = await create({ deviceType: 'android', installationId: randomUUID(), pushType: 'gcm', deviceToken: 'APA91bHun4MxP5egoKMwt2KZFBaFUH', GCMSenderId: '1076345567071', channels: ['', 'a_b-C9'] });
    const stored = await read(gcm);
    assert.equal(stored.pushType, 'gcm');
    assert.equal(stored.GCMSenderId, '1076345567071');
    assert.deepEqual(stored.channels, ['', 'a_b-C9']);
  });

  it('keeps installationId in lower case, and a hex APNs token too', async () => {
    const installationId = randomUUID();
    const objectId = await create({ deviceType: 'ios', installationId: installationId.toUpperCase(), deviceToken: 'AB'.repeat(32) });
    const stored = await read(objectId);
    assert.equal(stored.installationId, installationId);
    assert.equal(stored.deviceToken, 'ab'.repeat(32));
  });

  it('refuses to change deviceType, installationId or pushType once set (136), and changes nothing then', async () => {
    const installationId = randomUUID();
    const objectId = await create({ deviceType: 'ios', installationId, pushType: '', channels: ['A'] });
    const refused: [string, Record<string, unknown>][] = [
      ['another deviceType', { deviceType: 'android', channels: ['B'] }],
      ['deviceType deleted', { deviceType: { __op: 'Delete' } }],
      ['another installationId', { installationId: randomUUID(), channels: ['B'] }],
      ['installationId deleted', { installationId: { __op: 'Delete' } }],
      ['another pushType', { pushType: 'gcm', channels: ['B'] }],
    ];
    for (const [name, body] of refused) assertError(await app.put(`/1/installations/${objectId}`, body), 400, 136, name);
    const stored = await read(objectId);
    assert.deepEqual([stored.deviceType, stored.installationId, stored.pushType, stored.channels], ['ios', installationId, '', ['A']]);
    // The same values again, as an SDK saving the whole installation sends them, are fine.
    const same = await app.put(`/1/installations/${objectId}`, { deviceType: 'ios', installationId: installationId.toUpperCase(), pushType: '', channels: ['B'] });
    assert.equal(same.status, 200, same.text);
    assert.deepEqual((await read(objectId)).channels, ['B']);
  });

  it('lets a pushType or an installationId be set on an installation that has none', async () => {
    const objectId = await create({ deviceType: 'android', installationId: randomUUID() });
    assert.equal((await app.put(`/1/installations/${objectId}`, { pushType: 'gcm', deviceToken: 'fcm-token-1' })).status, 200);
    assert.equal((await read(objectId)).pushType, 'gcm');
    assertError(await app.put(`/1/installations/${objectId}`, { pushType: 'fcm' }), 400, 136);

    const tokenOnly = await create({ deviceType: 'ios', deviceToken: 'cd'.repeat(32) });
    const installationId = randomUUID();
    assert.equal((await app.put(`/1/installations/${tokenOnly}`, { installationId })).status, 200);
    assert.equal((await read(tokenOnly)).installationId, installationId);
  });

  it('changes a deviceToken only on an installation that has an installationId', async () => {
    const withId = await create({ deviceType: 'ios', installationId: randomUUID(), deviceToken: '01'.repeat(32) });
    assert.equal((await app.put(`/1/installations/${withId}`, { deviceToken: '02'.repeat(32) })).status, 200);
    assert.equal((await read(withId)).deviceToken, '02'.repeat(32));

    const withoutId = await create({ deviceType: 'ios', deviceToken: '03'.repeat(32) });
    assertError(await app.put(`/1/installations/${withoutId}`, { deviceToken: '04'.repeat(32) }), 400, 136);
    assertError(await app.put(`/1/installations/${withoutId}`, { deviceToken: { __op: 'Delete' } }), 400, 136);
    assert.equal((await read(withoutId)).deviceToken, '03'.repeat(32));
    // The same token again changes nothing, so it is accepted.
    assert.equal((await app.put(`/1/installations/${withoutId}`, { deviceToken: '03'.repeat(32), badge: 0 })).status, 200);
  });

  it('checks the fields of a PUT as strictly as those of a POST', async () => {
    const objectId = await create({ deviceType: 'ios', installationId: randomUUID(), channels: ['A'], timeZone: 'Europe/Paris' });
    assertError(await app.put(`/1/installations/${objectId}`, { channels: ['no way'] }), 400, 112);
    assertError(await app.put(`/1/installations/${objectId}`, { channels: { __op: 'Add', objects: ['9lives'] } }), 400, 112);
    assertError(await app.put(`/1/installations/${objectId}`, { timeZone: 'Nowhere/Special' }), 400, 142);
    assertError(await app.put(`/1/installations/${objectId}`, { deviceType: 'palm' }), 400, 133);
    assertError(await app.put(`/1/installations/${objectId}`, { installationId: 'x' }), 400, 132);
    const stored = await read(objectId);
    assert.deepEqual([stored.channels, stored.timeZone], [['A'], 'Europe/Paris']);
    assert.equal((await app.put(`/1/installations/${objectId}`, { timeZone: { __op: 'Delete' }, channels: { __op: 'Delete' } })).status, 200);
    const cleared = await read(objectId);
    assert.equal('timeZone' in cleared || 'channels' in cleared, false);
    assertError(await app.put('/1/installations/missing0001', { channels: ['A'] }), 404, 101);
  });

  it('stores other keys freely, Pointers to users included, and applies the ACL', async () => {
    const owner = { __type: 'Pointer', className: '_User', objectId: alice.objectId };
    const objectId = await create({ deviceType: 'ios', installationId: randomUUID(), owner, beta: true, ACL: { [alice.objectId]: { read: true, write: true } } }, as(alice.sessionToken));
    const mine = await app.get(`/1/installations/${objectId}`, as(alice.sessionToken));
    assert.equal(mine.status, 200, mine.text);
    assert.deepEqual(mine.body.owner, owner);
    assert.equal(mine.body.beta, true);

    const bob = await signUp(app);
    for (const options of [{}, as(bob.sessionToken)]) {
      assertError(await app.get(`/1/installations/${objectId}`, options), 404, 101);
      assertError(await app.put(`/1/installations/${objectId}`, { beta: false }, options), 404, 101);
    }
    const byOwner = await app.get('/1/installations', { ...MASTER, query: { where: { owner } } });
    assert.deepEqual(byOwner.body.results.map((row: { objectId: string }) => row.objectId), [objectId]);
    assert.equal((await read(objectId)).beta, true);
  });

  it('takes the installationId of X-Svc-Installation-Id, or of the SDK body form, when the body has none', async () => {
    const fromHeader = randomUUID();
    const byHeader = await create({ deviceType: 'ios' }, { headers: { 'X-Svc-Installation-Id': fromHeader.toUpperCase() } });
    assert.equal((await read(byHeader)).installationId, fromHeader);
    assertError(await app.post('/1/installations', { deviceType: 'ios' }, { headers: { 'X-Svc-Installation-Id': 'my-phone' } }), 400, 132);

    // The JavaScript SDK: a text/plain POST to the class URL with keys and the id in the body.
    const fromBody = randomUUID();
    const sdk = await http(`${target.url}/1/classes/_Installation`, 'POST', {
      raw: JSON.stringify(sdkBody(app.app, { _InstallationId: fromBody, deviceType: 'web', channels: ['Giants'] })),
      headers: { 'Content-Type': 'text/plain' },
    });
    assert.equal(sdk.status, 201, sdk.text);
    const stored = await read(sdk.body.objectId);
    assert.deepEqual([stored.installationId, stored.deviceType, stored.channels], [fromBody, 'web', ['Giants']]);
    assert.equal('_InstallationId' in stored, false);

    // An installationId in the body wins over the header's.
    const inBody = randomUUID();
    const both = await create({ deviceType: 'ios', installationId: inBody }, { headers: { 'X-Svc-Installation-Id': randomUUID() } });
    assert.equal((await read(both)).installationId, inBody);
  });

  it('works inside a batch', async () => {
    const installationId = randomUUID();
    const response = await app.post('/1/batch', {
      requests: [
        { method: 'POST', path: '/1/installations', body: { deviceType: 'ios', installationId } },
        { method: 'POST', path: '/1/installations', body: { deviceType: 'nokia', installationId: randomUUID() } },
        { method: 'GET', path: '/1/installations' },
      ],
    });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(Object.keys(response.body[0].success).sort(), ['createdAt', 'objectId']);
    assert.equal(response.body[1].error.code, 133);
    assert.equal(response.body[2].error.code, 119);
    assert.equal((await read(response.body[0].success.objectId)).installationId, installationId);
  });
});
