/**
 * Runs `work` over `items` with at most `concurrency` at once, and gives the results in order.
 * `work` must not throw (each network turns a failure into a DeliveryResult); one that does
 * rejects the whole map.
 */
export async function mapLimited<T, R>(items: readonly T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, concurrency), items.length) }, worker));
  return results;
}
