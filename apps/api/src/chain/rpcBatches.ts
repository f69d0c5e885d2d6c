import { mapLimit } from '#api/lib/mapLimit.ts';

/** Calls per JSON-RPC batch of the chain clients' HTTP transport (chains.ts). */
export const RPC_BATCH_SIZE = 64;

/**
 * Calls `fn` for every item so that the transport sends the calls as full JSON-RPC batches: the calls of a chunk of
 * RPC_BATCH_SIZE start in one tick, and calls made in one tick share a batch. At most `parallel` batches are in
 * flight at once; with 1, a batch leaves only once the previous one has answered (the node takes them in order).
 * Answers in the items' order.
 */
export async function inRpcBatches<T, R>(
  items: readonly T[],
  parallel: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += RPC_BATCH_SIZE) {
    chunks.push(items.slice(start, start + RPC_BATCH_SIZE));
  }
  const answers = await mapLimit(chunks, parallel, (chunk, c) =>
    Promise.all(chunk.map((item, k) => fn(item, c * RPC_BATCH_SIZE + k))),
  );
  return answers.flat();
}
