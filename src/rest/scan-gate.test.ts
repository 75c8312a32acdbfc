import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { scanTurn, whileIndexing } from './scan-gate.ts';

/** A promise and the function that settles it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('scan gate', () => {
  it('lets a scan in at once when no index of the class is being built', async () => {
    assert.equal(await scanTurn('app', 'Item'), null);
  });

  it('takes the scans of a class one at a time while its index is built, and tells those still waiting at its end that it is built', async () => {
    const build = gate();
    const building = whileIndexing('app', 'Item', () => build.promise.then(() => 'made'));
    const order: string[] = [];
    const scan = async (name: string, reading: Promise<void>) => {
      const turn = await scanTurn('app', 'Item');
      if (turn === null || turn === 'built') {
        order.push(`${name} ${turn ?? 'free'}`);
        return;
      }
      order.push(`${name} starts`);
      await reading;
      order.push(`${name} ends`);
      turn.end();
    };
    const first = gate();
    const second = gate();
    const scans = [scan('a', first.promise), scan('b', second.promise), scan('c', Promise.resolve())];
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, ['a starts'], 'b and c wait for a');
    first.open();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, ['a starts', 'a ends', 'b starts'], 'c waits for b');
    // The build ends while b reads and c waits: c is told to plan again.
    build.open();
    assert.equal(await building, 'made');
    second.open();
    await Promise.all(scans);
    assert.deepEqual(order, ['a starts', 'a ends', 'b starts', 'b ends', 'c built']);
    assert.equal(await scanTurn('app', 'Item'), null, 'after the build scans run at once again');
  });

  it('keeps other classes and other apps out of it, and ends the wait when the build fails', async () => {
    const build = gate();
    const failing = whileIndexing('app', 'Doc', () => build.promise.then(() => Promise.reject(new Error('no room'))));
    assert.equal(await scanTurn('app', 'Item'), null, 'another class');
    assert.equal(await scanTurn('other', 'Doc'), null, 'another app');
    const turn = await scanTurn('app', 'Doc');
    assert.ok(turn !== null && turn !== 'built', 'the first scan of the class is let in');
    const waiting = scanTurn('app', 'Doc');
    build.open();
    await assert.rejects(failing, /no room/);
    turn.end();
    assert.equal(await waiting, 'built', 'a failed build also ends the wait; the query is planned again and finds no index');
    assert.equal(await scanTurn('app', 'Doc'), null);
  });
});
