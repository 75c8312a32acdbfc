import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { OneAtATime } from './one-at-a-time.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('OneAtATime', () => {
  it('starts each task only once the one before has settled, in the order given', async () => {
    const line = new OneAtATime();
    const events: string[] = [];
    let running = 0;
    const task = (name: string, fail = false) => async () => {
      running++;
      assert.equal(running, 1, `${name} started while another task ran`);
      events.push(`start ${name}`);
      await tick();
      await tick();
      events.push(`end ${name}`);
      running--;
      if (fail) throw new Error(name);
      return name;
    };
    const results = await Promise.allSettled([line.run(task('a')), line.run(task('b', true)), line.run(task('c'))]);
    assert.deepEqual(events, ['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    assert.deepEqual(
      results.map((result) => (result.status === 'fulfilled' ? result.value : (result.reason as Error).message)),
      ['a', 'b', 'c'],
      'a failing task hands its own error to its caller and does not stop the ones after it',
    );
  });

  it('runs a task given after the line emptied at once', async () => {
    const line = new OneAtATime();
    assert.equal(await line.run(async () => 1), 1);
    assert.equal(await line.run(async () => 2), 2);
  });
});
