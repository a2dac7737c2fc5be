// Bounded concurrency for work on several Claws at once (health, checks): the transport's pacer
// still governs the rate; this only caps how many conversations are open together.

/** Claws worked on at once. */
export const CONCURRENCY = 4;

/** `fn` over `items`, at most `limit` at a time, results in the items' order. */
export async function mapWithConcurrency<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
