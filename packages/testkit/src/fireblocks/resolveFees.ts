import type { EvmRpc } from './evmRpc.ts';
import type { TransactionRecord } from './simulatorState.ts';

/** The simulator's own preset levels: multiples of the node's suggested tip (Fireblocks' formula is its own). */
const LEVEL_TIP_PERCENT: Record<string, bigint> = { LOW: 100n, MEDIUM: 150n, HIGH: 200n };

/**
 * The EIP-1559 fees a transaction is signed with. Given `maxFee` and `priorityFee` (gwei in the request, wei here)
 * are used as they are, as Fireblocks does with custom fees ("Custom fees are not adjusted once set"); what is
 * missing comes from `feeLevel` (MEDIUM by default, as Fireblocks' default): the tip from the node, the cap twice
 * the latest base fee plus the tip.
 */
export async function resolveFees(
  rpc: EvmRpc,
  tx: Pick<TransactionRecord, 'maxFeePerGas' | 'maxPriorityFeePerGas' | 'feeLevel'>,
): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
  const givenMax = tx.maxFeePerGas === undefined ? undefined : BigInt(tx.maxFeePerGas);
  const givenTip = tx.maxPriorityFeePerGas === undefined ? undefined : BigInt(tx.maxPriorityFeePerGas);
  if (givenMax !== undefined && givenTip !== undefined)
    return { maxFeePerGas: givenMax, maxPriorityFeePerGas: givenTip };
  const levelTip = ((await rpc.priorityFee()) * (LEVEL_TIP_PERCENT[tx.feeLevel ?? 'MEDIUM'] ?? 150n)) / 100n;
  let tip = givenTip ?? levelTip;
  if (givenMax !== undefined) {
    if (tip > givenMax) tip = givenMax;
    return { maxFeePerGas: givenMax, maxPriorityFeePerGas: tip };
  }
  return { maxFeePerGas: (await rpc.baseFee()) * 2n + tip, maxPriorityFeePerGas: tip };
}
