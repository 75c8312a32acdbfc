import { it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Parse, eachBackendWithSdk, pointSdkAt, rejectsWithCode, sdkRequests } from '../helpers/sdk.ts';

/** Parse.Installation: saving installations (through /1/classes/_Installation), updating them, master-key queries. */

const MASTER = { key: 'master' } as const;
const useMasterKey = { useMasterKey: true } as const;

eachBackendWithSdk('SDK installations', (suite) => {
  async function stored(objectId: string): Promise<Record<string, any>> {
    const response = await suite.app.get(`/1/installations/${objectId}`, MASTER);
    assert.equal(response.status, 200, response.text);
    return response.body;
  }

  it('saves an installation with installationId and deviceType; updates its channels and badge', async () => {
    const installationId = randomUUID();
    const installation = new Parse.Installation();
    installation.set({ installationId, deviceType: 'ios', channels: ['', 'Giants'], timeZone: 'Europe/Paris', appVersion: '2.1' });
    await installation.save();
    assert.ok(installation.id);
    assert.equal(sdkRequests.at(-1)!.path, 'classes/_Installation');
    const row = await stored(installation.id!);
    assert.deepEqual(
      { installationId: row.installationId, deviceType: row.deviceType, channels: row.channels, timeZone: row.timeZone, appVersion: row.appVersion },
      { installationId, deviceType: 'ios', channels: ['', 'Giants'], timeZone: 'Europe/Paris', appVersion: '2.1' },
    );

    installation.addUnique('channels', 'Mets');
    installation.increment('badge', 3);
    await installation.save();
    const updated = await stored(installation.id!);
    assert.deepEqual(updated.channels, ['', 'Giants', 'Mets']);
    assert.equal(updated.badge, 3);
    assert.equal(installation.installationId, installationId);
    assert.equal(installation.deviceType, 'ios');
    assert.deepEqual(installation.channels, ['', 'Giants', 'Mets']);
  });

  it('currentInstallation() saves as a web installation with the SDK’s installation id', async () => {
    // Every Parse.Installation the SDK saves becomes its current one; start as a fresh client.
    pointSdkAt(suite.app);
    const current = await Parse.Installation.currentInstallation();
    assert.ok(current);
    current.set('channels', ['news']);
    await current.save();
    const iid = await Parse.CoreManager.getInstallationController().currentInstallationId();
    const row = await stored(current.id!);
    assert.equal(row.installationId, iid);
    assert.equal(row.deviceType, 'web');
    assert.deepEqual(row.channels, ['news']);
  });

  it('finds installations with the master key only (119 otherwise)', async () => {
    const installationId = randomUUID();
    const installation = await new Parse.Installation<Record<string, any>>({ installationId, deviceType: 'android', channels: ['query-me'] }).save();
    const found = await new Parse.Query(Parse.Installation).equalTo('channels', 'query-me').find(useMasterKey);
    assert.deepEqual(found.map((i) => i.id), [installation.id]);
    assert.ok(found[0] instanceof Parse.Installation);
    assert.equal(found[0]!.get('installationId'), installationId);
    assert.equal(await new Parse.Query(Parse.Installation).equalTo('installationId', installationId).count(useMasterKey), 1);
    await rejectsWithCode(() => new Parse.Query(Parse.Installation).find(), Parse.Error.OPERATION_FORBIDDEN);
  });

  it('a second POST for a known installationId updates that installation instead of adding one', async () => {
    const installationId = randomUUID();
    const first = await new Parse.Installation<Record<string, any>>({ installationId, deviceType: 'ios', appVersion: '1' }).save();
    const second = await new Parse.Installation<Record<string, any>>({ installationId, deviceType: 'ios', appVersion: '2' }).save();
    assert.equal(second.id, first.id);
    assert.equal((await stored(first.id!)).appVersion, '2');
    assert.equal(await new Parse.Query(Parse.Installation).equalTo('installationId', installationId).count(useMasterKey), 1);
  });

  it('refuses bad fields with their codes: deviceType 133, changing the installationId 136, a bad time zone 142', async () => {
    await rejectsWithCode(() => new Parse.Installation<Record<string, any>>({ installationId: randomUUID(), deviceType: 'toaster' }).save(), 133);
    const installation = await new Parse.Installation<Record<string, any>>({ installationId: randomUUID(), deviceType: 'ios' }).save();
    installation.set('installationId', randomUUID());
    await rejectsWithCode(() => installation.save(), 136);
    const other = await new Parse.Installation<Record<string, any>>({ installationId: randomUUID(), deviceType: 'ios' }).save();
    other.set('timeZone', '+02:00');
    await rejectsWithCode(() => other.save(), 142);
  });

  it('destroy with the master key; a save of the deleted installation creates it again', async () => {
    const installationId = randomUUID();
    const installation = await new Parse.Installation<Record<string, any>>({ installationId, deviceType: 'ios', channels: ['a'] }).save();
    const oldId = installation.id!;
    await rejectsWithCode(() => installation.destroy(), Parse.Error.OPERATION_FORBIDDEN);
    await installation.destroy(useMasterKey);
    assert.equal((await suite.app.get(`/1/installations/${oldId}`, MASTER)).status, 404);
    // The SDK answers a 101 on save by saving every field as a new installation.
    installation.set('badge', 1);
    await installation.save();
    assert.notEqual(installation.id, oldId);
    const row = await stored(installation.id!);
    assert.deepEqual([row.installationId, row.deviceType, row.channels, row.badge], [installationId, 'ios', ['a'], 1]);
  });
});
