import { it } from 'node:test';
import assert from 'node:assert/strict';
import { Parse, eachBackendWithSdk } from '../helpers/sdk.ts';

/** Parse.getServerHealth(): the SDK asks `<serverURL>/health` in its POST body form. */
eachBackendWithSdk('SDK server health', (suite) => {
  it('getServerHealth answers {status: "ok"} and the backend', async () => {
    const health = await (Parse as unknown as { getServerHealth(): Promise<unknown> }).getServerHealth();
    assert.deepEqual(health, { status: 'ok', database: suite.target.backend });
  });
});
