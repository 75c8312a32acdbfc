import { before, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend } from '../helpers/each-backend.ts';
import { http, newApp, sdkBody, unique, type AppClient } from '../helpers/client.ts';

/**
 * The Parse JS SDK sends a save's `context` option (meant for Cloud Code triggers, which Basalt
 * has none of) as `_context` in its body form. It is an SDK field like `_ClientVersion`: never a
 * field of the object, never a 105.
 */
eachBackend('SDK body form: _context', (target) => {
  let app: AppClient;
  before(async () => {
    app = await newApp(target, { rateLimits: { authRequestsPerMinute: 0 } });
  });

  const sdkPost = (path: string, body: Record<string, unknown>) =>
    http(`${target.url}${path}`, 'POST', { raw: JSON.stringify(body), headers: { 'Content-Type': 'text/plain' } });

  it('a create and an update with _context store only their own fields', async () => {
    const cls = unique('Ctx');
    const created = await sdkPost(`/1/classes/${cls}`, sdkBody(app.app, { name: 'a', _context: { reason: 'test' }, _ClientVersion: 'js8.6.2' }));
    assert.equal(created.status, 201, created.text);
    const path = `/1/classes/${cls}/${created.body.objectId}`;
    const updated = await sdkPost(path, sdkBody(app.app, { _method: 'PUT', name: 'b', _context: { reason: 'again' } }));
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(Object.keys(updated.body), ['updatedAt']);
    const stored = await app.get(path, { key: 'master' });
    assert.deepEqual(Object.keys(stored.body).sort(), ['createdAt', 'name', 'objectId', 'updatedAt']);
    assert.equal(stored.body.name, 'b');
    const schema = await app.get(`/1/schemas/${cls}`, { key: 'master' });
    assert.equal('_context' in schema.body.fields, false, schema.text);
  });

  it('a sign-up with _context makes the user without such a field', async () => {
    const username = unique('user');
    const created = await sdkPost('/1/users', sdkBody(app.app, { username, password: 'pw', _context: {} }));
    assert.equal(created.status, 201, created.text);
    const stored = await app.get(`/1/users/${created.body.objectId}`, { key: 'master' });
    assert.equal(stored.body.username, username);
    assert.equal('_context' in stored.body, false, stored.text);
  });

  it('a field named _context outside the body form is still refused (105)', async () => {
    const response = await app.post(`/1/classes/${unique('Ctx')}`, { _context: { a: 1 } });
    assert.equal(response.status, 400, response.text);
    assert.equal(response.body.code, 105);
  });
});
