import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isStoredName, newStoredName, sanitizeFileName } from './names.ts';
import { contentTypeFor, isActiveContent } from './content-type.ts';
import { ApiError } from '../errors/index.ts';

function refusedWith(code: number) {
  return (error: unknown) => error instanceof ApiError && error.code === code;
}

describe('file names (decisions.md "Files")', () => {
  it('replaces every character outside [A-Za-z0-9_.-], one per code point', () => {
    const cases: [string, string][] = [
      ['photo.jpg', 'photo.jpg'],
      ['Résumé.pdf', 'R_sum_.pdf'],
      ['😀.png', '_.png'],
      ['../../etc/passwd', '.._.._etc_passwd'],
      ['a\\b', 'a_b'],
      ['..', '..'],
      ['x\u0000y', 'x_y'],
    ];
    for (const [given, expected] of cases) assert.equal(sanitizeFileName(given), expected, given);
  });

  it('refuses an empty name and one over 128 characters with 122', () => {
    assert.equal(sanitizeFileName('a'.repeat(128)).length, 128);
    assert.throws(() => sanitizeFileName(''), refusedWith(122));
    assert.throws(() => sanitizeFileName('a'.repeat(129)), refusedWith(122));
  });

  it('prefixes 32 random hex characters; only such names are looked up', () => {
    const name = newStoredName('a.txt');
    assert.match(name, /^[0-9a-f]{32}_a\.txt$/);
    assert.notEqual(newStoredName('a.txt'), name);
    assert.equal(isStoredName(name), true);
    for (const other of ['a.txt', '..', `${'0'.repeat(32)}_`, `${'0'.repeat(32)}_a/b`, `${'0'.repeat(31)}_a`, `${'0'.repeat(32)}_${'a'.repeat(129)}`, `.meta`]) {
      assert.equal(isStoredName(other), false, other);
    }
  });
});

describe('content types', () => {
  it('keeps a given media type, guesses from the extension without one, refuses garbage with 126', () => {
    assert.equal(contentTypeFor('image/png', 'x.txt'), 'image/png');
    assert.equal(contentTypeFor('text/plain; charset=utf-8', 'x'), 'text/plain; charset=utf-8');
    assert.equal(contentTypeFor(undefined, 'x.JPG'), 'image/jpeg');
    assert.equal(contentTypeFor('', 'x.unknown'), 'application/octet-stream');
    assert.equal(contentTypeFor(undefined, 'noext'), 'application/octet-stream');
    for (const bad of ['png', 'image/', 'image/png extra', 'a/b\u00e9', `a/${'b'.repeat(300)}`]) assert.throws(() => contentTypeFor(bad, 'x'), refusedWith(126), bad);
  });

  it('marks the types browsers run scripts in', () => {
    for (const type of ['text/html', 'text/html; charset=utf-8', 'application/xhtml+xml', 'image/svg+xml', 'application/xml', 'text/xml', 'application/rss+xml']) assert.equal(isActiveContent(type), true, type);
    for (const type of ['image/png', 'application/pdf', 'text/plain', 'application/json', 'video/mp4', 'text/htmlx']) assert.equal(isActiveContent(type), false, type);
  });
});
