import type { PublicClient } from 'viem';

/**
 * EIP-1559 fees with room for the base fee to rise: a cap of twice the latest base fee plus the tip stays valid
 * through six full blocks in a row (+12.5% each), so a burst of transactions does not strand its own tail below
 * the base fee. The cap is only a ceiling: a mined transaction pays the base fee of its block plus the tip.
 */
export async function feesWithHeadroom(
  client: PublicClient,
): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
  const [block, maxPriorityFeePerGas] = await Promise.all([
    client.getBlock({ blockTag: 'latest' }),
    client.estimateMaxPriorityFeePerGas(),
  ]);
  return { maxFeePerGas: (block.baseFeePerGas ?? 0n) * 2n + maxPriorityFeePerGas, maxPriorityFeePerGas };
}
