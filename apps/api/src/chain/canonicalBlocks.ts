import { BlockNotFoundError, type Hex, type PublicClient } from 'viem';
import { isUnreachable } from './chainErrors.ts';

/**
 * The hash of the canonical block at each height (undefined where the node has no block: above its head, or a
 * load-balanced node behind the others). Asked in one tick, so the transport sends them as JSON-RPC batches.
 */
export async function canonicalHashes(client: PublicClient, heights: number[]): Promise<Map<number, Hex | undefined>> {
  const hashes = new Map<number, Hex | undefined>();
  await Promise.all(
    [...new Set(heights)].map(async (height) => {
      const block = await client.getBlock({ blockNumber: BigInt(height) }).catch((error: Error) => {
        if (error instanceof BlockNotFoundError) return undefined;
        throw error;
      });
      hashes.set(height, block?.hash ?? undefined);
    }),
  );
  return hashes;
}

/**
 * The node's `finalized` block, or undefined on a node without that tag (the caller then counts a confirmation
 * depth down from the head). A node that does not answer decides nothing: the error is thrown.
 */
export async function finalizedTag(client: PublicClient): Promise<number | undefined> {
  const block = await client.getBlock({ blockTag: 'finalized' }).catch((error: unknown) => {
    if (isUnreachable(error)) throw error;
    return undefined;
  });
  return block?.number != null ? Number(block.number) : undefined;
}
