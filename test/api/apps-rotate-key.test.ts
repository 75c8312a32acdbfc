import assert from 'node:assert/strict';
import { it } from 'node:test';
import { eachBackend } from '../helpers/each-backend.ts';
import { http } from '../helpers/client.ts';
import { apps, createApp, KEY, KEY_FIELDS, readApp } from '../helpers/apps.ts';

/** POST /1/apps/<applicationId>/rotateKey (docs/api.md "Apps"): one key replaced by a random one. */
eachBackend('apps: key rotation', (target) => {
  const schemasAs = (applicationId: string, masterKey: string) =>
    http(`${target.url}/1/schemas`, 'GET', { headers: { 'X-Svc-Application-Id': applicationId, 'X-Svc-Master-Key': masterKey } });

  it('replaces the named key only; the old one stops working at once, the new one works', async () => {
    const app = await createApp(target.url);
    assert.equal((await schemasAs(app.applicationId, app.masterKey)).status, 200);
    const answer = await apps(target.url, 'POST', `/${app.applicationId}/rotateKey`, { body: { key: 'masterKey' } });
    assert.equal(answer.status, 200, answer.text);
    assert.match(answer.body.masterKey, KEY);
    assert.notEqual(answer.body.masterKey, app.masterKey);
    for (const name of KEY_FIELDS.filter((n) => n !== 'masterKey')) assert.equal(answer.body[name], app[name], name);
    assert.deepEqual({ ...answer.body, masterKey: app.masterKey }, app);
    assert.deepEqual(await readApp(target.url, app.applicationId), answer.body);
    const old = await schemasAs(app.applicationId, app.masterKey);
    assert.equal(old.status, 401);
    assert.equal(old.body.code, 903);
    assert.equal((await schemasAs(app.applicationId, answer.body.masterKey)).status, 200);
  });

  it('every key name can be rotated', async () => {
    const app = await createApp(target.url);
    let current = app;
    for (const name of KEY_FIELDS) {
      const answer = await apps(target.url, 'POST', `/${app.applicationId}/rotateKey`, { body: { key: name } });
      assert.equal(answer.status, 200, answer.text);
      assert.notEqual(answer.body[name], current[name], name);
      assert.match(answer.body[name], KEY);
      current = answer.body;
    }
  });

  it('refusals: another field, no body, no credentials, an app the account cannot see', async () => {
    const app = await createApp(target.url);
    for (const body of [{ key: 'applicationId' }, { key: 'dashboardURL' }, { key: 42 }, {}, undefined]) {
      const answer = await apps(target.url, 'POST', `/${app.applicationId}/rotateKey`, { body });
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.deepEqual(answer.body, { code: 107, error: 'key must be one of masterKey, restKey, clientKey, javascriptKey, windowsKey, webhookKey.' });
    }
    const anonymous = await apps(target.url, 'POST', `/${app.applicationId}/rotateKey`, { body: { key: 'restKey' }, headers: {} });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.code, 903);
    const missing = await apps(target.url, 'POST', '/no-such-app/rotateKey', { body: { key: 'restKey' } });
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, { code: 101, error: 'No app no-such-app for this account.' });
    assert.deepEqual(await readApp(target.url, app.applicationId), app);
  });
});
