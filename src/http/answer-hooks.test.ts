import { it } from 'node:test';
import assert from 'node:assert/strict';
import { AnswerHooks } from './answer-hooks.ts';

it('binds each hook once per route pattern and calls every hook for an answer', () => {
  const hooks = new AnswerHooks();
  assert.equal(hooks.empty, true);
  assert.equal(hooks.forRoute('/1/classes/:className'), null);
  const bindings: string[] = [];
  const answers: string[] = [];
  for (const name of ['a', 'b']) {
    hooks.add((pattern) => {
      bindings.push(`${name} ${pattern}`);
      return { answered: (status, elapsedMs) => answers.push(`${name} ${pattern} ${status} ${elapsedMs}`) };
    });
  }
  assert.equal(hooks.empty, false);
  const route = hooks.forRoute('/1/classes/:className')!;
  assert.equal(hooks.forRoute('/1/classes/:className'), route);
  route.answered(201, 3);
  hooks.forRoute(undefined)!.answered(404, 1);
  assert.deepEqual(bindings, ['a /1/classes/:className', 'b /1/classes/:className', 'a undefined', 'b undefined']);
  assert.deepEqual(answers, ['a /1/classes/:className 201 3', 'b /1/classes/:className 201 3', 'a undefined 404 1', 'b undefined 404 1']);
});
