import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, type AppClient } from '../helpers/client.ts';
import { as, assertError, signUp } from '../helpers/users.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';

/** Function hooks through POST /1/functions/<name> (decisions.md "Hooks"); the server's webhook timeout is 3 s in tests (scripts/test.ts). */

const MASTER = { key: 'master' } as const;

function assertFailed(response: { status: number; body: any; text: string }, error: string): void {
  assert.equal(response.status, 400, response.text);
  assert.deepEqual(response.body, { code: 141, error });
}

/** A port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

eachBackend('webhooks: function hooks', (target) => {
  let app: AppClient;
  let receiver: WebhookReceiver;

  before(async () => {
    app = await newApp(target);
    receiver = await WebhookReceiver.start(app.app.webhookKey);
  });

  after(() => receiver.close());

  async function define(functionName: string, url: string): Promise<void> {
    const response = await app.post('/1/hooks/functions', { functionName, url }, MASTER);
    assert.equal(response.status, 201, response.text);
  }

  it('answers the receiver\'s success as the result, to a signed call with the caller\'s details', async () => {
    await define('greet', receiver.on('/greet', (call) => ({ body: { success: { hello: call.body.params.name, n: [1, 2] } } })));
    const anonymous = await app.post('/1/functions/greet', { name: 'Ada' });
    assert.equal(anonymous.status, 200, anonymous.text);
    assert.deepEqual(anonymous.body, { result: { hello: 'Ada', n: [1, 2] } });
    const [call] = receiver.callsTo('/greet');
    assert.equal(call!.signed, true);
    assert.equal(call!.headers['x-svc-webhook-key'], app.app.webhookKey);
    assert.equal(call!.headers['x-parse-webhook-key'], app.app.webhookKey);
    assert.deepEqual(call!.body, { master: false, params: { name: 'Ada' }, functionName: 'greet' });

    const user = await signUp(app);
    const withUser = await app.post('/1/functions/greet', { name: 'Bo', when: { __type: 'Date', iso: '2020-01-01T00:00:00.000Z' } }, as(user.sessionToken, { 'X-Svc-Installation-Id': 'inst-1' }));
    assert.equal(withUser.status, 200, withUser.text);
    const second = receiver.callsTo('/greet')[1]!;
    assert.equal(second.signed, true);
    assert.equal(second.body.master, false);
    assert.equal(second.body.installationId, 'inst-1');
    assert.deepEqual(second.body.params, { name: 'Bo', when: { __type: 'Date', iso: '2020-01-01T00:00:00.000Z' } });
    assert.equal(second.body.user.objectId, user.objectId);
    assert.equal(second.body.user.username, user.username);
    assert.equal(second.body.user.sessionToken, user.sessionToken);
    assert.equal(second.body.user.password, undefined);
    assert.ok(!Object.keys(second.body.user).some((key) => key.startsWith('_')), JSON.stringify(second.body.user));

    assert.equal((await app.post('/1/functions/greet', {}, MASTER)).status, 200);
    assert.equal(receiver.callsTo('/greet')[2]!.body.master, true);
  });

  it('runs inside a transactional batch, reading the caller\'s user in the batch\'s transaction', async () => {
    await define('inBatch', receiver.on('/in-batch', (call) => ({ body: { success: call.body.user?.username ?? null } })));
    const user = await signUp(app);
    const response = await app.post(
      '/1/batch',
      {
        transaction: true,
        requests: [
          { method: 'POST', path: '/1/classes/BatchedNote', body: { n: 1 } },
          { method: 'POST', path: '/1/functions/inBatch', body: {} },
        ],
      },
      as(user.sessionToken),
    );
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body[1], { success: { result: user.username } });
  });

  it('answers the receiver\'s error with 141 and its message', async () => {
    await define('refuse', receiver.on('/refuse', () => ({ body: { error: 'not today' } })));
    assertFailed(await app.post('/1/functions/refuse', {}), 'not today');
    // A Parse-style error object: its message.
    await define('refuseObject', receiver.on('/refuse-object', () => ({ status: 400, body: { error: { code: 142, message: 'bad input' } } })));
    assertFailed(await app.post('/1/functions/refuseObject', {}), 'bad input');
  });

  it('answers 141 saying why when the call fails: a timeout, no receiver, an HTTP error, a redirect, a reply of another shape', async () => {
    await define('slow', receiver.on('/slow', () => 'hang'));
    assertFailed(await app.post('/1/functions/slow', {}), 'The function hook slow failed: the hook did not answer within 3000 ms.');

    const port = await closedPort();
    await define('gone', `http://127.0.0.1:${port}/nothing`);
    const gone = await app.post('/1/functions/gone', {});
    assertError(gone, 400, 141);
    assert.match(gone.body.error, /^The function hook gone failed: the hook could not be reached: .*ECONNREFUSED/);

    await define('broken', receiver.on('/broken', () => ({ status: 500, body: { oops: true } })));
    assertFailed(await app.post('/1/functions/broken', {}), 'The function hook broken failed: the hook answered HTTP 500.');

    await define('moved', receiver.on('/moved', () => ({ status: 302, body: { success: 'elsewhere' } })));
    assertFailed(await app.post('/1/functions/moved', {}), 'The function hook moved failed: the hook answered HTTP 302; redirects are not followed.');

    await define('odd', receiver.on('/odd', () => ({ body: { result: 1 } })));
    assertFailed(await app.post('/1/functions/odd', {}), 'The function hook odd failed: the hook\'s reply is not {"success": …} or {"error": …}: "{\\"result\\":1}".');
  });

  it('stops calling a deleted hook and calls the new URL of an edited one', async () => {
    await define('moving', receiver.on('/first', () => ({ body: { success: 'first' } })));
    assert.deepEqual((await app.post('/1/functions/moving', {})).body, { result: 'first' });
    receiver.on('/second', () => ({ body: { success: 'second' } }));
    assert.equal((await app.put('/1/hooks/functions/moving', { url: receiver.url('/second') }, MASTER)).status, 200);
    assert.deepEqual((await app.post('/1/functions/moving', {})).body, { result: 'second' });
    assert.equal((await app.delete('/1/hooks/functions/moving', MASTER)).status, 200);
    assertFailed(await app.post('/1/functions/moving', {}), 'Invalid function: "moving"');
    assert.equal(receiver.callsTo('/first').length, 1);
    assert.equal(receiver.callsTo('/second').length, 1);
  });
});
