import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newRequestId } from './request-id.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

test('request ids have the form of a UUID and never repeat within a process', () => {
  const ids = Array.from({ length: 10_000 }, () => newRequestId());
  for (const id of ids) assert.match(id, UUID);
  assert.equal(new Set(ids).size, ids.length);
  // One process prefix, then a count.
  assert.equal(new Set(ids.map((id) => id.slice(0, 24))).size, 1);
  assert.equal(parseInt(ids[1]!.slice(24), 16) - parseInt(ids[0]!.slice(24), 16), 1);
});
