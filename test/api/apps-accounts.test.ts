import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { eachBackend } from '../helpers/each-backend.ts';
import type { Target } from '../helpers/targets.ts';
import { unique } from '../helpers/client.ts';
import { start, stop, tempDatabase, tempDir, type Started } from '../helpers/process.ts';
import { assertError } from '../helpers/users.ts';
import { KEY, apps, assertNotCreated, createApp, listed, readApp, type Headers } from '../helpers/apps.ts';

/**
 * Spec 4.12 and 5 with two accounts: an account key, and an account that neither owns nor
 * collaborates on an app. Each backend gets a store of its own (see the before hook).
 */
eachBackend('apps of two accounts', (target) => {
  describe('two accounts', () => {
    const owner = { email: `${unique('owner')}@test.local`, password: unique('pw') };
    const outsider = { email: `${unique('outsider')}@test.local`, password: unique('pw') };
    const ownerHeaders = { 'X-Svc-Email': owner.email, 'X-Svc-Password': owner.password };
    const outsiderHeaders = { 'X-Svc-Email': outsider.email, 'X-Svc-Password': outsider.password };
    let store: PrivateStore;
    let server: Started | undefined;
    let ownerKey: string;
    let outsiderKey: string;

    // Accounts come only from --admin-email at a start (decisions.md "Accounts and apps"), one per
    // start, and the key of an account is printed only then. The runner's servers hold the one
    // admin account and must not be restarted, so these tests make a store of their own.
    before(async () => {
      store = await privateStore(target);
      const first = await start({ ...store.env, BASALT_ADMIN_EMAIL: owner.email, BASALT_ADMIN_PASSWORD: owner.password });
      ownerKey = printedAccountKey(first);
      assert.equal(await stop(first), 0);
      server = await start({ ...store.env, BASALT_ADMIN_EMAIL: outsider.email, BASALT_ADMIN_PASSWORD: outsider.password });
      outsiderKey = printedAccountKey(server);
    });

    after(async () => {
      if (server) await stop(server);
      await store?.remove();
    });

    it('an account key authenticates as its account; a wrong one answers 401/903', async () => {
      const url = server!.url;
      const app = await createApp(url, {}, { 'X-Svc-Account-Key': ownerKey });
      assert.deepEqual(await readApp(url, app.applicationId, ownerHeaders), app);
      assert.deepEqual(await readApp(url, app.applicationId, { 'X-Parse-Account-Key': ownerKey }), app);
      assert.deepEqual((await listed(url, { 'X-Svc-Account-Key': ownerKey })).filter((candidate) => candidate.applicationId === app.applicationId), [app]);

      const renamed = unique('renamed');
      const wrongKeys: [string, Headers][] = [
        ['a wrong key', { 'X-Svc-Account-Key': `${ownerKey.slice(0, -1)}${ownerKey.endsWith('a') ? 'b' : 'a'}` }],
        ['the key in another case', { 'X-Svc-Account-Key': ownerKey.toLowerCase() === ownerKey ? ownerKey.toUpperCase() : ownerKey.toLowerCase() }],
        ['the password as key', { 'X-Svc-Account-Key': owner.password }],
        ["the app's master key", { 'X-Svc-Account-Key': app.masterKey }],
        // The key is read first: a wrong key is not saved by a right email and password beside it.
        ['a wrong key beside a right password', { 'X-Svc-Account-Key': unique('key'), ...ownerHeaders }],
      ];
      for (const [label, headers] of wrongKeys) {
        for (const [method, path, body] of [['GET', '', undefined], ['GET', `/${app.applicationId}`, undefined], ['PUT', `/${app.applicationId}`, { appName: renamed }], ['POST', '', { appName: renamed }]] as const) {
          const response = await apps(url, method, path, { body, headers });
          assert.deepEqual({ status: response.status, body: response.body }, { status: 401, body: { code: 903, error: 'Invalid account credentials.' } }, `${method} ${path} with ${label}`);
        }
      }
      assert.deepEqual(await readApp(url, app.applicationId, ownerHeaders), app);
      await assertNotCreated(url, (candidate) => candidate.appName === renamed, 'with a wrong account key', ownerHeaders);
    });

    it('an account cannot list, read or update an app it neither owns nor collaborates on: 404/101', async () => {
      const url = server!.url;
      const ownerApp = await createApp(url, {}, ownerHeaders);
      const outsiderApp = await createApp(url, {}, { 'X-Svc-Account-Key': outsiderKey });
      for (const headers of [outsiderHeaders, { 'X-Svc-Account-Key': outsiderKey }]) {
        const seen = (await listed(url, headers)).map((app) => app.applicationId);
        assert.ok(!seen.includes(ownerApp.applicationId), "the owner's app is not listed");
        assert.ok(seen.includes(outsiderApp.applicationId), 'its own app is listed');
        assertError(await apps(url, 'GET', `/${ownerApp.applicationId}`, { headers }), 404, 101, 'GET:');
        assertError(await apps(url, 'PUT', `/${ownerApp.applicationId}`, { body: { appName: unique('taken'), clientPushEnabled: true }, headers }), 404, 101, 'PUT:');
        assertError(await apps(url, 'POST', `/${ownerApp.applicationId}`, { body: { appName: unique('taken') }, headers }), 404, 101, 'POST as update:');
      }
      // The refusal is the one an unknown id gets, so ids of other accounts cannot be probed.
      const unknown = await apps(url, 'GET', `/${ownerApp.applicationId}`, { headers: outsiderHeaders });
      const none = await apps(url, 'GET', `/${unique('noapp')}`, { headers: outsiderHeaders });
      assert.deepEqual({ status: unknown.status, code: unknown.body.code }, { status: none.status, code: none.body.code });
      assert.deepEqual(await readApp(url, ownerApp.applicationId, ownerHeaders), ownerApp);

      // And the other way round.
      assert.ok(!(await listed(url, ownerHeaders)).some((app) => app.applicationId === outsiderApp.applicationId));
      assertError(await apps(url, 'GET', `/${outsiderApp.applicationId}`, { headers: ownerHeaders }), 404, 101, "the owner reading the outsider's app:");
      assert.deepEqual(await readApp(url, outsiderApp.applicationId, outsiderHeaders), outsiderApp);
    });
  });
});

interface PrivateStore {
  readonly env: Record<string, string>;
  remove(): Promise<void>;
}

/** An empty data directory, and on PostgreSQL an empty database, of the target's backend. */
async function privateStore(target: Target): Promise<PrivateStore> {
  const dataDir = tempDir();
  const removeDir = () => rmSync(dataDir, { recursive: true, force: true });
  if (target.backend === 'sqlite') return { env: { BASALT_DATA_DIR: dataDir }, remove: async () => removeDir() };
  const database = await tempDatabase();
  return {
    env: { BASALT_DATA_DIR: dataDir, BASALT_DATABASE_URL: database.url },
    remove: async () => {
      await database.drop();
      removeDir();
    },
  };
}

function printedAccountKey(server: Started): string {
  const key = /account key:\s+(\S+)/.exec(server.stdout())?.[1];
  assert.ok(key, `no account key printed: ${server.stdout()}`);
  assert.match(key, KEY);
  return key;
}
