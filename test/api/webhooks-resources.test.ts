import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, type AppClient } from '../helpers/client.ts';
import { as, assertError, signUp } from '../helpers/users.ts';

/** Spec 4.13, decisions.md "Hooks": the hook resources, their shapes and every refusal. */

const MASTER = { key: 'master' } as const;
const URL_A = 'https://hooks.example.test/a';
const URL_B = 'http://hooks.example.test/b';

function assertHookError(response: { status: number; body: any; text: string }, error: string, context = ''): void {
  assert.equal(response.status, 400, `${context} ${response.text}`);
  assert.deepEqual(response.body, { code: 143, error }, context);
}

eachBackend('webhooks: resources', (target) => {
  let app: AppClient;

  before(async () => {
    app = await newApp(target);
  });

  it('creates, reads, lists, edits and deletes a function hook', async () => {
    const created = await app.post('/1/hooks/functions', { functionName: 'greet', url: URL_A }, MASTER);
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body, { functionName: 'greet', url: URL_A });
    assert.deepEqual((await app.get('/1/hooks/functions/greet', MASTER)).body, { functionName: 'greet', url: URL_A });
    assert.equal((await app.post('/1/hooks/functions', { functionName: 'another', url: URL_B }, MASTER)).status, 201);
    const listed = await app.get('/1/hooks/functions', MASTER);
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.body, { results: [{ functionName: 'another', url: URL_B }, { functionName: 'greet', url: URL_A }] });

    const edited = await app.put('/1/hooks/functions/greet', { url: URL_B }, MASTER);
    assert.equal(edited.status, 200, edited.text);
    assert.deepEqual(edited.body, { functionName: 'greet', url: URL_B });
    assert.deepEqual((await app.get('/1/hooks/functions/greet', MASTER)).body, { functionName: 'greet', url: URL_B });

    const deleted = await app.delete('/1/hooks/functions/greet', MASTER);
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(deleted.body, {});
    assertHookError(await app.get('/1/hooks/functions/greet', MASTER), 'no function named: greet is defined');
    // PUT {"__op": "Delete"} deletes too (Parse's form).
    const opDeleted = await app.put('/1/hooks/functions/another', { __op: 'Delete' }, MASTER);
    assert.equal(opDeleted.status, 200, opDeleted.text);
    assert.deepEqual(opDeleted.body, {});
    assert.deepEqual((await app.get('/1/hooks/functions', MASTER)).body, { results: [] });
  });

  it('creates, reads, lists, edits and deletes a trigger hook', async () => {
    const fresh = await newApp(target);
    const created = await fresh.post('/1/hooks/triggers', { className: 'Game', triggerName: 'beforeSave', url: URL_A }, MASTER);
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body, { className: 'Game', triggerName: 'beforeSave', url: URL_A });
    for (const triggerName of ['afterSave', 'beforeDelete', 'afterDelete']) {
      assert.equal((await fresh.post('/1/hooks/triggers', { className: 'Game', triggerName, url: URL_B }, MASTER)).status, 201, triggerName);
    }
    assert.deepEqual((await fresh.get('/1/hooks/triggers/Game/beforeSave', MASTER)).body, { className: 'Game', triggerName: 'beforeSave', url: URL_A });
    const listed = await fresh.get('/1/hooks/triggers', MASTER);
    assert.deepEqual(listed.body.results.map((hook: { triggerName: string }) => hook.triggerName), ['afterDelete', 'afterSave', 'beforeDelete', 'beforeSave']);
    // Function and trigger lists are apart.
    assert.deepEqual((await fresh.get('/1/hooks/functions', MASTER)).body, { results: [] });

    assert.deepEqual((await fresh.put('/1/hooks/triggers/Game/beforeSave', { url: URL_B }, MASTER)).body, { className: 'Game', triggerName: 'beforeSave', url: URL_B });
    assert.deepEqual((await fresh.delete('/1/hooks/triggers/Game/beforeSave', MASTER)).body, {});
    assert.deepEqual((await fresh.put('/1/hooks/triggers/Game/afterSave', { __op: 'Delete' }, MASTER)).body, {});
    assertHookError(await fresh.get('/1/hooks/triggers/Game/beforeSave', MASTER), 'class Game has no trigger hook beforeSave');
    assert.equal((await fresh.get('/1/hooks/triggers', MASTER)).body.results.length, 2);
  });

  it('refuses bad input with 143', async () => {
    const cases: [string, unknown, string][] = [
      ['/1/hooks/functions', { functionName: 'f' }, 'invalid hook declaration'],
      ['/1/hooks/functions', { url: URL_A }, 'invalid hook declaration'],
      ['/1/hooks/functions', { functionName: 'f', url: 'ftp://example.test/x' }, 'invalid hook url: "ftp://example.test/x" is not http or https'],
      ['/1/hooks/functions', { functionName: 'f', url: 'not a url' }, 'invalid hook url: "not a url" is not a URL'],
      ['/1/hooks/functions', { functionName: 'f', url: 42 }, 'invalid hook url: it must be an http or https URL'],
      ['/1/hooks/triggers', { className: 'Game', triggerName: 'beforeFind', url: URL_A }, 'invalid trigger name: "beforeFind"; one of beforeSave, afterSave, beforeDelete, afterDelete'],
      ['/1/hooks/triggers', { className: 'Game', url: URL_A }, 'invalid hook declaration'],
      ['/1/hooks/triggers', { className: '_Session', triggerName: 'beforeSave', url: URL_A }, 'the _Session class has no triggers'],
      ['/1/hooks/triggers', { className: '_Hooks', triggerName: 'afterSave', url: URL_A }, 'the _Hooks class has no triggers'],
      ['/1/hooks/triggers', { className: 'no-dash', triggerName: 'afterSave', url: URL_A }, 'invalid class name: "no-dash"'],
      ['/1/hooks/triggers', { className: 'Game', triggerName: 'afterSave', url: 'javascript:alert(1)' }, 'invalid hook url: "javascript:alert(1)" is not http or https'],
    ];
    for (const [path, body, error] of cases) assertHookError(await app.post(path, body, MASTER), error, JSON.stringify(body));
    assert.deepEqual((await app.get('/1/hooks/triggers', MASTER)).body, { results: [] });
  });

  it('refuses a duplicate with 143 and keeps the first', async () => {
    assert.equal((await app.post('/1/hooks/functions', { functionName: 'twice', url: URL_A }, MASTER)).status, 201);
    assertHookError(await app.post('/1/hooks/functions', { functionName: 'twice', url: URL_B }, MASTER), 'function name: twice already exists');
    assert.equal((await app.post('/1/hooks/triggers', { className: 'Twice', triggerName: 'afterSave', url: URL_A }, MASTER)).status, 201);
    assertHookError(await app.post('/1/hooks/triggers', { className: 'Twice', triggerName: 'afterSave', url: URL_B }, MASTER), 'class Twice already has trigger afterSave');
    assert.deepEqual((await app.get('/1/hooks/functions/twice', MASTER)).body, { functionName: 'twice', url: URL_A });
    assert.deepEqual((await app.get('/1/hooks/triggers/Twice/afterSave', MASTER)).body, { className: 'Twice', triggerName: 'afterSave', url: URL_A });
  });

  it('lets one of several simultaneous creates of the same hook win, the others get 143', async () => {
    const fresh = await newApp(target);
    const functions = await Promise.all(Array.from({ length: 6 }, (_, i) => fresh.post('/1/hooks/functions', { functionName: 'raced', url: `${URL_A}/${i}` }, MASTER)));
    assert.deepEqual(functions.map((response) => response.status).sort(), [201, 400, 400, 400, 400, 400]);
    for (const response of functions.filter((one) => one.status === 400)) assert.deepEqual(response.body, { code: 143, error: 'function name: raced already exists' });
    const triggers = await Promise.all(Array.from({ length: 6 }, (_, i) => fresh.post('/1/hooks/triggers', { className: 'Raced', triggerName: 'beforeSave', url: `${URL_A}/${i}` }, MASTER)));
    assert.deepEqual(triggers.map((response) => response.status).sort(), [201, 400, 400, 400, 400, 400]);
    for (const response of triggers.filter((one) => one.status === 400)) assert.deepEqual(response.body, { code: 143, error: 'class Raced already has trigger beforeSave' });
    assert.equal((await fresh.get('/1/hooks/functions', MASTER)).body.results.length, 1);
    assert.equal((await fresh.get('/1/hooks/triggers', MASTER)).body.results.length, 1);
  });

  it('answers 143 for a missing hook on GET, PUT and DELETE (and a bad trigger name in the path)', async () => {
    assertHookError(await app.put('/1/hooks/functions/nobody', { url: URL_A }, MASTER), 'no function named: nobody is defined');
    assertHookError(await app.delete('/1/hooks/functions/nobody', MASTER), 'no function named: nobody is defined');
    assertHookError(await app.put('/1/hooks/functions/nobody', { __op: 'Delete' }, MASTER), 'no function named: nobody is defined');
    assertHookError(await app.put('/1/hooks/triggers/Nobody/afterSave', { url: URL_A }, MASTER), 'class Nobody has no trigger hook afterSave');
    assertHookError(await app.delete('/1/hooks/triggers/Nobody/afterDelete', MASTER), 'class Nobody has no trigger hook afterDelete');
    assertHookError(await app.get('/1/hooks/triggers/Nobody/afterLogin', MASTER), 'invalid trigger name: "afterLogin"; one of beforeSave, afterSave, beforeDelete, afterDelete');
    assertHookError(await app.put('/1/hooks/functions/twice', { url: 'mailto:x@example.test' }, MASTER), 'invalid hook url: "mailto:x@example.test" is not http or https');
    assertHookError(await app.put('/1/hooks/functions/twice', {}, MASTER), 'invalid hook declaration');
  });

  it('refuses every hook route without the master key (403/119), and hides _Hooks from other keys', async () => {
    assert.equal((await app.post('/1/hooks/functions', { functionName: 'secret', url: URL_A }, MASTER)).status, 201);
    const user = await signUp(app);
    const requests: [string, string, unknown?][] = [
      ['GET', '/1/hooks/functions'],
      ['POST', '/1/hooks/functions', { functionName: 'x', url: URL_A }],
      ['GET', '/1/hooks/functions/secret'],
      ['PUT', '/1/hooks/functions/secret', { url: URL_B }],
      ['PUT', '/1/hooks/functions/secret', { __op: 'Delete' }],
      ['DELETE', '/1/hooks/functions/secret'],
      ['GET', '/1/hooks/triggers'],
      ['POST', '/1/hooks/triggers', { className: 'Game', triggerName: 'afterSave', url: URL_A }],
      ['GET', '/1/hooks/triggers/Game/afterSave'],
      ['PUT', '/1/hooks/triggers/Game/afterSave', { url: URL_B }],
      ['DELETE', '/1/hooks/triggers/Game/afterSave'],
    ];
    for (const [method, path, body] of requests) {
      for (const options of [{ key: 'rest' }, { key: 'client' }, as(user.sessionToken)] as const) {
        assertError(await app.request(method, path, { ...options, body }), 403, 119, `${method} ${path} ${JSON.stringify(options)}`);
      }
    }
    // The definitions are objects of _Hooks: the master key reads them, no other key does.
    assertError(await app.get('/1/classes/_Hooks'), 403, 119);
    assertError(await app.get('/1/classes/_Hooks', as(user.sessionToken)), 403, 119);
    assertError(await app.get('/1/classes/_Hooks', { key: 'client' }), 403, 119);
    assertError(await app.post('/1/classes/_Hooks', { functionName: 'x', url: URL_A }, MASTER), 403, 119);
    const stored = await app.get('/1/classes/_Hooks', { ...MASTER, query: { where: { functionName: 'secret' } } });
    assert.equal(stored.status, 200, stored.text);
    assert.equal(stored.body.results.length, 1);
    assert.equal(stored.body.results[0].url, URL_A);
    // Nothing changed through the refused calls.
    assert.deepEqual((await app.get('/1/hooks/functions/secret', MASTER)).body, { functionName: 'secret', url: URL_A });
  });
  it('purging _Hooks removes every hook at once: functions answer 141 as unknown, triggers stop refusing writes', async () => {
    // Both receivers are unreachable: a call fails with 141, which shows that the hook still runs.
    assert.equal((await app.post('/1/hooks/functions', { functionName: 'purged', url: URL_A }, MASTER)).status, 201);
    assert.equal((await app.post('/1/hooks/triggers', { className: 'Purged', triggerName: 'beforeSave', url: URL_A }, MASTER)).status, 201);
    const called = await app.post('/1/functions/purged', {});
    assert.equal(called.status, 400, called.text);
    assert.equal(called.body.code, 141);
    assert.notEqual(called.body.error, 'Invalid function: "purged"');
    assert.equal((await app.post('/1/classes/Purged', { n: 1 })).status, 400);

    const purged = await app.delete('/1/purge/_Hooks', MASTER);
    assert.deepEqual([purged.status, purged.body], [200, {}]);
    assert.deepEqual((await app.get('/1/hooks/functions', MASTER)).body, { results: [] });
    assert.deepEqual((await app.get('/1/hooks/triggers', MASTER)).body, { results: [] });
    assert.deepEqual((await app.post('/1/functions/purged', {})).body, { code: 141, error: 'Invalid function: "purged"' });
    const saved = await app.post('/1/classes/Purged', { n: 2 });
    assert.equal(saved.status, 201, saved.text);
    // The same hook can be made again.
    assert.equal((await app.post('/1/hooks/functions', { functionName: 'purged', url: URL_B }, MASTER)).status, 201);
    assert.deepEqual((await app.get('/1/hooks/functions', MASTER)).body, { results: [{ functionName: 'purged', url: URL_B }] });
  });
});
