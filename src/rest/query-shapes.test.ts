import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseOrder, parseQuery } from '../query/parse.ts';
import type { ClassSchema } from '../schema/types.ts';
import { learnShape, numberShape, putNumbers, withNumbers } from './query-shapes.ts';

const schema = {
  className: 'Item',
  fields: {
    objectId: { type: 'String' },
    createdAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
    ACL: { type: 'ACL' },
    score: { type: 'Number' },
    name: { type: 'String' },
    tags: { type: 'Array' },
    place: { type: 'GeoPoint' },
    meta: { type: 'Object' },
  },
  classLevelPermissions: {},
  indexes: {},
} as unknown as ClassSchema;

const parse = (text: string) => parseQuery(JSON.parse(text), schema);

describe('numberShape', () => {
  it('takes the numbers outside strings, in order, and puts others back', () => {
    const text = '{"score":{"$gte":-1.5e3,"$lt":20},"name":"a 5 \\" 6","meta.k":0}';
    const shape = numberShape(text)!;
    assert.deepEqual(shape.numbers, [-1500, 20, 0]);
    assert.deepEqual(shape.parts, ['{"score":{"$gte":', ',"$lt":', '},"name":"a 5 \\" 6","meta.k":', '}']);
    assert.equal(withNumbers(shape, shape.numbers.map((n) => n + 1)), '{"score":{"$gte":-1499,"$lt":21},"name":"a 5 \\" 6","meta.k":1}');
    assert.equal(numberShape('{"name":"7"}'), null);
    assert.equal(numberShape('{"a":\u00011}'), null);
    assert.equal(numberShape(`{"a":[${Array.from({ length: 17 }, (_, i) => i).join(',')}]}`), null);
    // Adjacent numbers (not JSON) make a key no valid text has.
    assert.notEqual(numberShape('{"a":01}')!.key, numberShape('{"a":1}')!.key);
  });
});

describe('learnShape', () => {
  const learn = (text: string) => {
    const shape = numberShape(text)!;
    return { shape, known: learnShape(shape, parse(text), parseOrder(undefined, schema), parse) };
  };

  it('puts other numbers into comparisons, giving the tree their parse gives', () => {
    const texts = [
      '{"score":{"$gte":5}}',
      '{"score":{"$gt":1,"$lte":9},"name":"x"}',
      '{"score":7}',
      '{"score":{"$ne":3}}',
      '{"$or":[{"score":{"$lt":1}},{"score":{"$gt":100}}]}',
      '{"$nor":[{"score":2}]}',
      '{"meta.k":{"$gte":4}}',
      '{"score":{"$in":[1,2]},"name":{"$nin":["a"]}}',
    ];
    for (const text of texts) {
      const { shape, known } = learn(text);
      assert.ok(known.template, text);
      for (const numbers of [shape.numbers.map((n) => n * 3 + 1), shape.numbers.map((n) => -n - 0.25)]) {
        assert.deepEqual(putNumbers(known.template, numbers), parse(withNumbers(shape, numbers)), `${text} with ${numbers}`);
      }
    }
  });

  it('leaves shapes whose numbers the parse checks, turns or copies elsewhere to a parse each time', () => {
    for (const text of [
      '{"tags":3}',
      '{"place":{"$nearSphere":{"__type":"GeoPoint","latitude":10,"longitude":20},"$maxDistanceInMiles":5}}',
      '{"createdAt":{"$gte":{"__type":"Date","iso":"2020-01-01T00:00:00.000Z"}},"score":{"$exists":true},"meta":{"a":1}}',
    ]) {
      assert.equal(learn(text).known.template, null, text);
    }
  });

  it('leaves a shape the sentinels are refused in to a parse each time', () => {
    const shape = numberShape('{"score":{"$gte":5}}')!;
    const known = learnShape(shape, parse('{"score":{"$gte":5}}'), [], () => {
      throw new Error('refused');
    });
    assert.equal(known.template, null);
  });
});
