import { it } from 'node:test';
import assert from 'node:assert/strict';
import { Parse, eachBackendWithSdk, rejectsWithCode, sdkRequests } from '../helpers/sdk.ts';

/** Parse.Config: save (master key), get, current, and parameters only the master key sees. */

/** The SDK answers current() synchronously with the in-memory storage the helper installs. */
const currentConfig = () => Parse.Config.current() as Parse.Config;

eachBackendWithSdk('SDK config', (suite) => {
  it('an app starts with an empty config; current() is empty before the first get', async () => {
    assert.deepEqual(currentConfig().attributes, {});
    const config = await Parse.Config.get();
    assert.deepEqual(config.attributes, {});
  });

  it('save sets parameters of every type; get and current() give them back decoded', async () => {
    const launch = new Date('2026-03-01T09:30:00.000Z');
    const file = await new Parse.File('config.txt', [104, 105], 'text/plain').save();
    const saved = await Parse.Config.save({
      welcomeMessage: 'Hello',
      maxUploads: 5,
      ratio: 0.5,
      enabled: true,
      launch,
      place: new Parse.GeoPoint(48.85, 2.35),
      banner: file!,
      levels: [1, 2, 3],
      nested: { a: { b: 'c' } },
    }, {});
    // save writes with the master key, then reads the config back.
    const put = sdkRequests.find((request) => request.method === 'PUT' && request.path === 'config');
    assert.ok(put);
    assert.equal(saved.get('welcomeMessage'), 'Hello');

    Parse.Config._clearCache();
    const config = await Parse.Config.get();
    assert.equal(config.get('welcomeMessage'), 'Hello');
    assert.equal(config.get('maxUploads'), 5);
    assert.equal(config.get('ratio'), 0.5);
    assert.equal(config.get('enabled'), true);
    assert.ok(config.get('launch') instanceof Date);
    assert.equal(config.get('launch').toISOString(), launch.toISOString());
    assert.ok(config.get('place') instanceof Parse.GeoPoint);
    assert.deepEqual([config.get('place').latitude, config.get('place').longitude], [48.85, 2.35]);
    assert.ok(config.get('banner') instanceof Parse.File);
    assert.equal(config.get('banner').url(), file!.url());
    assert.deepEqual(config.get('levels'), [1, 2, 3]);
    assert.deepEqual(config.get('nested'), { a: { b: 'c' } });
    assert.equal(config.escape('welcomeMessage'), 'Hello');

    const current = currentConfig();
    assert.equal(current.get('welcomeMessage'), 'Hello');
    assert.equal(current.get('launch').toISOString(), launch.toISOString());

    // As stored, over plain HTTP.
    const read = await suite.app.get('/1/config');
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body.params.launch, { __type: 'Date', iso: launch.toISOString() });
    assert.deepEqual(read.body.params.place, { __type: 'GeoPoint', latitude: 48.85, longitude: 2.35 });
  });

  it('a later save changes only the parameters it names', async () => {
    await Parse.Config.save({ keep: 'kept', change: 1 }, {});
    await Parse.Config.save({ change: 2 }, {});
    const config = await Parse.Config.get();
    assert.equal(config.get('keep'), 'kept');
    assert.equal(config.get('change'), 2);
  });

  it('masterKeyOnly parameters are hidden from get() without the master key', async () => {
    await Parse.Config.save({ publicValue: 'everyone', secretValue: 'only master' }, { secretValue: true });
    const config = await Parse.Config.get();
    assert.equal(config.get('publicValue'), 'everyone');
    assert.equal(config.get('secretValue'), undefined);
    const withMaster = await Parse.Config.get({ useMasterKey: true });
    assert.equal(withMaster.get('secretValue'), 'only master');
    const http = await suite.app.get('/1/config', { key: 'master' });
    assert.equal(http.body.masterKeyOnly.secretValue, true);
  });

  it('a value with a dotted nested key is refused (121) and no parameter of that save is kept', async () => {
    const before = await suite.app.get('/1/config', { key: 'master' });
    await rejectsWithCode(() => Parse.Config.save({ good: 'value', bad: { 'a.b': 1 } }, {}), Parse.Error.INVALID_NESTED_KEY);
    const after = await suite.app.get('/1/config', { key: 'master' });
    assert.deepEqual(after.body, before.body);
  });
});
