import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { eachBackend } from '../helpers/each-backend.ts';
import { AppClient, http, unique } from '../helpers/client.ts';
import { start, stop, tempDatabase, tempDir, type Started } from '../helpers/process.ts';
import { as } from '../helpers/users.ts';

/**
 * A password must not reach the log, not even at the most verbose level: GET /1/login carries it
 * in the URL, which request logs print. The shared test servers log at warn, so this file starts
 * its own server at trace and reads everything it printed.
 */

const KEYS = { applicationId: 'logged', masterKey: 'logged-master', restKey: 'logged-rest' };

eachBackend('users: passwords stay out of the log', (target) => {
  let server: Started;
  let cleanup: () => Promise<void>;

  before(async () => {
    const dataDir = tempDir();
    const env: Record<string, string> = { BASALT_DATA_DIR: dataDir, BASALT_LOG_LEVEL: 'trace', BASALT_APP_ID: KEYS.applicationId, BASALT_MASTER_KEY: KEYS.masterKey, BASALT_REST_KEY: KEYS.restKey };
    let drop = async () => {};
    if (target.backend === 'postgres') {
      const db = await tempDatabase();
      env.BASALT_DATABASE_URL = db.url;
      drop = db.drop;
    }
    server = await start(env);
    cleanup = async () => {
      await stop(server);
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    };
  });
  after(() => cleanup());

  it('prints no password of a sign-up, a login in any form, a failed login or a password change', async () => {
    const app = new AppClient({ backend: target.backend, url: server.url }, { ...KEYS, clientKey: '', javascriptKey: '', windowsKey: '', webhookKey: '' });
    const secrets = [unique('FirstSecret'), unique('SecondSecret'), unique('WrongSecret')];
    const [first, second, wrong] = secrets as [string, string, string];
    const username = unique('logged');
    const signedUp = await app.post('/1/users', { username, password: first });
    assert.equal(signedUp.status, 201, signedUp.text);
    assert.equal((await app.get('/1/login', { query: { username, password: first } })).status, 200);
    assert.equal((await app.get('/1/login', { query: { username, password: wrong } })).status, 404);
    assert.equal((await app.post('/1/login', { username, password: first })).status, 200);
    const sdkForm = { _ApplicationId: KEYS.applicationId, _MasterKey: KEYS.masterKey, _method: 'GET', username, password: first };
    const sdk = await http(`${server.url}/1/login`, 'POST', { raw: JSON.stringify(sdkForm), headers: { 'Content-Type': 'text/plain' } });
    assert.equal(sdk.status, 200, sdk.text);
    const changed = await app.put(`/1/users/${signedUp.body.objectId}`, { password: second }, as(signedUp.body.sessionToken));
    assert.equal(changed.status, 200, changed.text);
    assert.equal((await app.get(`/1/login?username=${encodeURIComponent(username)}&password=${encodeURIComponent(second)}`)).status, 200);

    // The request log lines are written as the requests finish; give the stream a moment to flush.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const printed = server.stdout() + server.stderr();
    assert.match(printed, /\/1\/login/, 'the requests were logged at all');
    for (const secret of secrets) assert.equal(printed.includes(secret), false, `${secret} printed:\n${printed.split('\n').filter((line) => line.includes(secret)).join('\n')}`);
  });
});
