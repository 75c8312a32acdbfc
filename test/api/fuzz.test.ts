import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import type fc from 'fast-check';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, unique, type AppClient } from '../helpers/client.ts';
import { logIn, signUp, type TestUser } from '../helpers/users.ts';
import { Families, type FuzzRequest, type World } from '../helpers/fuzz/requests.ts';
import { fuzz, fuzzSettings, FuzzTally } from '../helpers/fuzz/run.ts';

/**
 * Thousands of generated hostile requests on every endpoint family (docs/testing.md): no answer
 * is a 5xx, every 4xx is exactly `{code, error}`, none takes longer than the hang bound, and a
 * canary object and a canary user, which no request may change, are unchanged at the end.
 */

/** Requests per family and seed: the whole file stays within about a minute per backend. */
const RUNS: Record<string, number> = {
  objects: 2_000,
  batch: 500,
  users: 800,
  sessions: 300,
  roles: 300,
  installations: 300,
  schemas: 600,
  config: 200,
  events: 300,
  files: 400,
  unserved: 300,
  headers: 600,
};

const settings = fuzzSettings();
const TIMEOUT = { timeout: 180_000 };

eachBackend('fuzz', (target) => {
  let app: AppClient;
  let families: Families;
  let canary: { path: string; stored: unknown };
  let canaryUser: TestUser & { stored: unknown };
  const tally = new FuzzTally();

  const masterGet = async (path: string) => {
    const response = await app.get(path, { key: 'master' });
    assert.equal(response.status, 200, response.text);
    return response.body;
  };

  before(async () => {
    process.stdout.write(`fuzz [${target.backend}] seeds ${settings.seeds.join(', ')}; replay one with TEST_FUZZ_SEED=<seed> npm test -- test/api/fuzz.test.ts\n`);
    // Rate limits off: a request refused with 429 reaches none of the code behind the limit.
    app = await newApp(target, { rateLimits: { authRequestsPerMinute: 0, countQueriesPerMinute: 1_000_000 } });
    const fuzzUser = await signUp(app);
    const fuzzClass = unique('Fuzz');
    const objectIds: string[] = [];
    for (const [i, name] of ['alpha', 'beta', 'gamma'].entries()) {
      const created = await app.post(`/1/classes/${fuzzClass}`, {
        name,
        score: i * 10,
        tags: [name, 'x'],
        when: { __type: 'Date', iso: `2024-0${i + 1}-01T00:00:00.000Z` },
        owner: { __type: 'Pointer', className: '_User', objectId: fuzzUser.objectId },
        place: { __type: 'GeoPoint', latitude: i, longitude: -i },
        meta: { a: { b: i } },
        flag: i % 2 === 0,
      });
      assert.equal(created.status, 201, created.text);
      objectIds.push(created.body.objectId);
    }
    // Readable by anyone, writable by the master key alone: no request of the fuzzer may change it.
    const canaryClass = unique('Canary');
    const created = await app.post(`/1/classes/${canaryClass}`, { name: 'canary', score: 7, tags: ['c'], meta: { deep: { x: 1 } }, ACL: { '*': { read: true } } });
    assert.equal(created.status, 201, created.text);
    objectIds.push(created.body.objectId);
    const path = `/1/classes/${canaryClass}/${created.body.objectId}`;
    canary = { path, stored: await masterGet(path) };
    const user = await signUp(app, { email: `${unique('canary')}@example.com` });
    canaryUser = { ...user, stored: await masterGet(`/1/users/${user.objectId}`) };

    const world: World = {
      backend: target.backend,
      appId: app.app.applicationId,
      restKey: app.app.restKey,
      masterKey: app.app.masterKey,
      javascriptKey: app.app.javascriptKey,
      fuzzClass,
      canaryClass,
      objectIds,
      canaryUserId: user.objectId,
      fuzzUserId: fuzzUser.objectId,
      fuzzUserToken: fuzzUser.sessionToken,
    };
    families = new Families(world);
  });

  const family = (name: string, what: string, requests: () => fc.Arbitrary<FuzzRequest>) =>
    it(`${name}: ${what}`, TIMEOUT, async (t) => {
      const runs = settings.runs ?? RUNS[name]!;
      await fuzz(target.url, requests(), settings.seeds, runs, tally);
      t.diagnostic(tally.summary());
    });

  family('objects', 'create, get, update, delete and query with generated where, order, keys, include, limit, skip, count, and the _method form', () => families.objects());
  family('batch', 'command lists of every shape', () => families.batch());
  family('users', 'sign-up, login, update, reads, logout, password reset, verification email', () => families.users());
  family('sessions', 'reads, updates, deletes and creates of sessions', () => families.sessions());
  family('roles', 'roles with generated names, ACLs and relations', () => families.roles());
  family('installations', 'installations with generated device fields', () => families.installations());
  family('schemas', 'the schema API with the master key: fields, class-level permissions, indexes', () => families.schemas());
  family('config', 'reads and changes of the config', () => families.config());
  family('events', 'events and their counts', () => families.events());
  family('files', 'uploads of generated names, types and sizes, downloads with ranges, deletes', () => families.files());
  family('unserved', 'push, functions, jobs and broken paths answer 404/108', () => families.unserved());
  family('headers', 'requests with spoiled keys, tokens, content types, methods and headers', () => families.headers());

  it('leaves the canary object and the canary user as they were', async (t) => {
    assert.deepEqual(await masterGet(canary.path), canary.stored);
    assert.deepEqual(await masterGet(`/1/users/${canaryUser.objectId}`), canaryUser.stored);
    const login = await logIn(app, canaryUser.username, canaryUser.password);
    assert.equal(login.status, 200, `the canary user's password still works: ${login.text}`);
    t.diagnostic(tally.summary());
  });
});
