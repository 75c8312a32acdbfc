import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { keepText, plannedText, textKey } from './query-plans.ts';
import type { ClassSchema } from '../schema/types.ts';
import type { ParsedQuery } from '../query/parse.ts';

/**
 * The kept parses of query texts (query-plans.ts): an app that cycles through more texts than are
 * kept (a page per value of a range) must still find most of them again, so a full record lets
 * go of its oldest text only.
 */
describe('kept query texts', () => {
  const parsed = { where: { kind: 'const', value: true } } as unknown as ParsedQuery;

  it('keep 1,024 texts per schema map, and past that let go of the oldest one only', () => {
    const schemas = new Map<string, ClassSchema>();
    const key = (i: number) => textKey('Item', JSON.stringify({ score: { $gte: i } }), '-score')!;
    for (let i = 0; i < 1024; i++) keepText(schemas, key(i), parsed, []);
    assert.ok(plannedText(schemas, key(0)));
    keepText(schemas, key(1024), parsed, []);
    assert.equal(plannedText(schemas, key(0)), undefined);
    for (const i of [1, 512, 1023, 1024]) assert.ok(plannedText(schemas, key(i)), `text ${i} is kept`);
  });

  it('are kept per map of schemas: another map finds none of them', () => {
    const first = new Map<string, ClassSchema>();
    const key = textKey('Item', '{"a":1}', undefined)!;
    keepText(first, key, parsed, []);
    assert.ok(plannedText(first, key));
    assert.equal(plannedText(new Map(), key), undefined);
  });
});
