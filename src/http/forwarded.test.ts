import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { forwardedEntry } from './forwarded.ts';

describe('forwardedEntry', () => {
  it('takes the first address of X-Forwarded-For: the client as the first proxy saw it', () => {
    assert.equal(forwardedEntry('203.0.113.7', 'first'), '203.0.113.7');
    assert.equal(forwardedEntry('203.0.113.7, 10.0.0.2, 10.0.0.1', 'first'), '203.0.113.7');
    assert.equal(forwardedEntry('  203.0.113.7  ,10.0.0.1', 'first'), '203.0.113.7');
  });

  it('skips empty entries, and answers undefined when there is none', () => {
    assert.equal(forwardedEntry(', ,203.0.113.9', 'first'), '203.0.113.9');
    assert.equal(forwardedEntry('', 'first'), undefined);
    assert.equal(forwardedEntry(' , ', 'first'), undefined);
    assert.equal(forwardedEntry(undefined, 'first'), undefined);
  });

  it('takes the last entry of X-Forwarded-Proto and X-Forwarded-Host', () => {
    assert.equal(forwardedEntry('https', 'last'), 'https');
    assert.equal(forwardedEntry('http, https', 'last'), 'https');
    assert.equal(forwardedEntry('a.example, b.example ', 'last'), 'b.example');
    assert.equal(forwardedEntry('https,', 'last'), undefined);
  });

  it('reads a header sent twice as one list', () => {
    assert.equal(forwardedEntry(['203.0.113.7', '10.0.0.1'], 'first'), '203.0.113.7');
    assert.equal(forwardedEntry(['http', 'https'], 'last'), 'https');
  });
});
