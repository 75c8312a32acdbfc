import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { quote } from './quote.ts';

describe('quote', () => {
  it('writes small values as JSON', () => {
    assert.equal(quote('ab"c'), '"ab\\"c"');
    assert.equal(quote(12.5), '12.5');
    assert.equal(quote(null), 'null');
    assert.equal(quote(undefined), 'undefined');
    assert.equal(quote({ a: [1, true, 'x'], b: {} }), '{"a":[1,true,"x"],"b":{}}');
  });

  it('shows three levels of objects and arrays', () => {
    assert.equal(quote([[[[1]]]]), '[[[[…]]]]');
    assert.equal(quote({ a: { b: { c: { d: 1 } } } }), '{"a":{"b":{"c":{…}}}}');
    assert.equal(quote([[[[]]]]), '[[[[]]]]');
  });

  it('cuts at the length given', () => {
    assert.equal(quote('x'.repeat(500), 10), `"${'x'.repeat(9)}…`);
    assert.equal(quote(Array.from({ length: 100_000 }, (_, i) => i), 12), '[0,1,2,3,4,5…');
  });

  it('quotes a value of any depth without overflowing the stack', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = i % 2 ? [deep] : { a: deep };
    assert.throws(() => JSON.stringify(deep), RangeError);
    assert.equal(quote(deep), '[{"a":[{…}]}]');
  });
});
