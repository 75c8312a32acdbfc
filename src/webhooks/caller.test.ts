import { it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { outcomeOf, signature } from './caller.ts';

it('signs "<t>.<body>" with HMAC-SHA256 of the webhook key, as a receiver recomputes it', () => {
  const body = JSON.stringify({ functionName: 'f', params: {} });
  const header = signature('secret', body, 1_700_000_000);
  const expected = createHmac('sha256', 'secret').update(`1700000000.${body}`).digest('hex');
  assert.equal(header, `t=1700000000,v1=${expected}`);
  assert.notEqual(signature('other', body, 1_700_000_000), header);
  assert.notEqual(signature('secret', `${body} `, 1_700_000_000), header);
});

it('reads {success} on a 2xx, {error} on any status, and fails everything else', () => {
  assert.deepEqual(outcomeOf(200, '{"success":{"a":1}}'), { kind: 'success', value: { a: 1 } });
  assert.deepEqual(outcomeOf(201, '{"success":null}'), { kind: 'success', value: null });
  assert.deepEqual(outcomeOf(200, '{"error":"no"}'), { kind: 'error', message: 'no', status: 200 });
  assert.deepEqual(outcomeOf(400, '{"error":{"code":142,"message":"bad"}}'), { kind: 'error', message: 'bad', status: 400 });
  assert.deepEqual(outcomeOf(500, '{"error":{"code":1}}'), { kind: 'error', message: '{"code":1}', status: 500 });
  assert.deepEqual(outcomeOf(500, '{"success":true}'), { kind: 'failed', message: 'the hook answered HTTP 500' });
  assert.deepEqual(outcomeOf(200, 'ok'), { kind: 'failed', message: 'the hook\'s reply is not {"success": …} or {"error": …}: "ok"' });
  assert.deepEqual(outcomeOf(200, '[1]'), { kind: 'failed', message: 'the hook\'s reply is not {"success": …} or {"error": …}: "[1]"' });
});
