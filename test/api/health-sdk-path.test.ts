import { it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { http } from '../helpers/client.ts';

/**
 * The Parse SDKs ask for health at `<serverURL>/health`, that is `/1/health`, and send it as every
 * SDK request: a POST whose text/plain body names the method (`_method: "GET"`) beside the app's
 * id and key. Both forms answer as `GET /health` does, with no key needed.
 */
eachBackend('health at the SDK path', (target) => {
  const sdkBody = (fields: Record<string, unknown>) => ({
    raw: JSON.stringify({ _ApplicationId: 'any-app', _JavaScriptKey: 'any-key', _ClientVersion: 'js8.6.2', _InstallationId: 'x', ...fields }),
    headers: { 'Content-Type': 'text/plain' },
  });

  it('GET /1/health answers 200 {status, database} without a key', async () => {
    const response = await http(`${target.url}/1/health`, 'GET');
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, { status: 'ok', database: target.backend });
  });

  it('the SDK form, POST /1/health with _method GET, answers the same', async () => {
    const response = await http(`${target.url}/1/health`, 'POST', sdkBody({ _method: 'GET' }));
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, { status: 'ok', database: target.backend });
    const lower = await http(`${target.url}/1/health`, 'POST', sdkBody({ _method: 'get' }));
    assert.deepEqual(lower.body, { status: 'ok', database: target.backend });
  });

  it('any other method, or a POST that does not name GET, has no endpoint (404, 108)', async () => {
    const answers = [
      await http(`${target.url}/1/health`, 'POST', sdkBody({})),
      await http(`${target.url}/1/health`, 'POST', sdkBody({ _method: 'DELETE' })),
      await http(`${target.url}/1/health`, 'POST'),
      await http(`${target.url}/1/health`, 'PUT'),
      await http(`${target.url}/1/health`, 'DELETE'),
    ];
    for (const response of answers) {
      assert.equal(response.status, 404, response.text);
      assert.deepEqual(Object.keys(response.body).sort(), ['code', 'error']);
      assert.equal(response.body.code, 108);
    }
  });

  it('a malformed SDK body is 107, as everywhere', async () => {
    const response = await http(`${target.url}/1/health`, 'POST', { raw: '{"_method": ', headers: { 'Content-Type': 'text/plain' } });
    assert.equal(response.status, 400, response.text);
    assert.equal(response.body.code, 107);
  });
});
