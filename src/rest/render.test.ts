import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { RequestContext } from './context.ts';
import { withFileUrls } from './render.ts';

const ctx = { publicUrl: 'http://h/1', app: { record: { applicationId: 'app', settings: {} } } } as unknown as RequestContext;
const file = (name: string) => ({ __type: 'File', name });
const withUrl = (name: string) => ({ __type: 'File', name, url: `http://h/1/files/app/${encodeURIComponent(name)}` });

it('a value without a File is returned as it is, not copied', () => {
  const value = { a: [1, { b: 'x' }], c: { __type: 'Pointer', className: 'C', objectId: 'o' }, d: null };
  assert.equal(withFileUrls(ctx, value), value);
  const list = [1, 'two', { three: [3] }];
  assert.equal(withFileUrls(ctx, list), list);
});

it('Files anywhere in arrays and objects gain their url; the rest keeps its order and values', () => {
  assert.deepEqual(withFileUrls(ctx, [1, 2, file('a.txt'), 4]), [1, 2, withUrl('a.txt'), 4]);
  assert.deepEqual(withFileUrls(ctx, [file('a.txt'), 2]), [withUrl('a.txt'), 2]);
  const nested = { first: 1, second: { deep: [0, file('b c.png')] }, third: 'x' };
  const rendered = withFileUrls(ctx, nested) as Record<string, unknown>;
  assert.deepEqual(Object.keys(rendered), ['first', 'second', 'third']);
  assert.deepEqual(rendered, { first: 1, second: { deep: [0, withUrl('b c.png')] }, third: 'x' });
  assert.deepEqual(nested.second.deep[1], file('b c.png'), 'the stored value is left as it was');
});

it('a "__proto__" key stays a plain key of the copy', () => {
  const value = JSON.parse('{"__proto__": {"x": 1}, "f": {"__type": "File", "name": "n"}}') as Record<string, unknown>;
  const rendered = withFileUrls(ctx, value) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(rendered), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyDescriptor(rendered, '__proto__')?.value, { x: 1 });
  assert.deepEqual(rendered.f, withUrl('n'));
});
