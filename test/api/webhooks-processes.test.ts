import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AppClient } from '../helpers/client.ts';
import { withTwoProcesses } from '../helpers/shared-database.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';

/**
 * Hooks across server processes: each keeps the app's hooks in memory, so a hook created, changed
 * or deleted through one must reach the others. Only PostgreSQL is shared by several processes.
 */

const MASTER = { key: 'master' } as const;
const WEBHOOK_KEY = 'shared-webhook-key';

/** Polls (bounded) until `call` answers as `test` wants; only the change notification can make it pass. */
async function seenWithin<T>(call: () => Promise<T>, test: (value: T) => boolean, limitMs = 10_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  let value = await call();
  while (!test(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await call();
  }
  return value;
}

describe('webhooks: several processes on one PostgreSQL', () => {
  it('a hook created, edited or deleted through one process is used by the other, which had the app open', async () => {
    const receiver = await WebhookReceiver.start(WEBHOOK_KEY);
    try {
      await withTwoProcesses(
        async (a: AppClient, b: AppClient) => {
          // B has the app open, with no hooks.
          assert.equal((await b.post('/1/functions/shout', { word: 'hi' })).body.code, 141);
          const created = await b.post('/1/classes/Note', { text: 'before' });
          assert.equal(created.status, 201, created.text);

          receiver.on('/shout', (call) => ({ body: { success: String(call.body.params.word).toUpperCase() } }));
          assert.equal((await a.post('/1/hooks/functions', { functionName: 'shout', url: receiver.url('/shout') }, MASTER)).status, 201);
          const shouted = await seenWithin(() => b.post('/1/functions/shout', { word: 'hi' }), (response) => response.status === 200);
          assert.deepEqual(shouted.body, { result: 'HI' });
          assert.equal(receiver.callsTo('/shout').at(-1)!.signed, true);

          receiver.on('/note', (call) => ({ body: { success: { ...call.body.object, text: `${call.body.object.text}!` } } }));
          assert.equal((await a.post('/1/hooks/triggers', { className: 'Note', triggerName: 'beforeSave', url: receiver.url('/note') }, MASTER)).status, 201);
          const hooked = await seenWithin(
            async () => {
              const note = await b.post('/1/classes/Note', { text: 'hello' });
              return (await b.get(`/1/classes/Note/${note.body.objectId}`)).body;
            },
            (note) => note.text === 'hello!',
          );
          assert.equal(hooked.text, 'hello!');

          // Deleted through B: A stops calling it.
          assert.deepEqual((await a.post('/1/functions/shout', { word: 'a' })).body, { result: 'A' });
          assert.equal((await b.delete('/1/hooks/functions/shout', MASTER)).status, 200);
          const gone = await seenWithin(() => a.post('/1/functions/shout', {}), (response) => response.status === 400);
          assert.deepEqual(gone.body, { code: 141, error: 'Invalid function: "shout"' });
        },
        { env: { BASALT_WEBHOOK_KEY: WEBHOOK_KEY } },
      );
    } finally {
      await receiver.close();
    }
  });
});
