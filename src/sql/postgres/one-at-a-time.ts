/**
 * Runs the tasks given to it one after another, in the order given: each starts once the one
 * before it has settled, whatever its outcome. A connection that is shared (a transaction's,
 * the one holding advisory locks) takes its statements through one of these: the pg driver's own
 * queue of statements sent while another runs is deprecated and goes away in pg 9.
 */
export class OneAtATime {
  private last: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.last.then(task);
    this.last = result.catch(() => undefined);
    return result;
  }
}
