import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { jsonString } from './json-string.ts';

describe('jsonString', () => {
  it('writes every string exactly as JSON.stringify does', () => {
    const strings = [
      '',
      'VcC3xm24dZjuvjN',
      '2026-11-27T16:56:55.859Z',
      'a "quoted" id',
      'back\\slash',
      'tab\there',
      'line\nbreak',
      '\u0000\u001f',
      'delete\u007f',
      'é and ü',
      '日本',
      '😀',
      'lone \ud800 high',
      'lone \udc00 low',
      '\u2028\u2029',
      '</script>',
    ];
    for (let code = 0; code < 0x100; code++) strings.push(`x${String.fromCharCode(code)}y`);
    for (const value of strings) assert.equal(jsonString(value), JSON.stringify(value), JSON.stringify(value));
  });

  it('gives text that parses back to the same string', () => {
    for (const value of ['plain', 'with "quotes" and \\', '\u0001', 'ø', '\ud83d']) assert.equal(JSON.parse(jsonString(value)), value);
  });
});
