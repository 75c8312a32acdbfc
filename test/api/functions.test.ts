import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { newApp, type AppClient } from '../helpers/client.ts';

/** Spec 4.10: POST /1/functions/<name>; what a function does is cloud code's and webhooks' (their own tests). */

eachBackend('functions', (target) => {
  let app: AppClient;

  before(async () => {
    app = await newApp(target);
  });

  it('answers 141 for a name nothing defines, to every key', async () => {
    for (const key of ['master', 'rest', 'client'] as const) {
      const response = await app.post('/1/functions/nothingHere', {}, { key });
      assert.equal(response.status, 400, response.text);
      assert.deepEqual(response.body, { code: 141, error: 'Invalid function: "nothingHere"' });
    }
  });

  it('refuses parameters that are not a JSON object with 107', async () => {
    const response = await app.post('/1/functions/nothingHere', [1, 2]);
    assert.equal(response.status, 400, response.text);
    assert.equal(response.body.code, 107);
  });
});
