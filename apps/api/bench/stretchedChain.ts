// A JSON-RPC front that presents a chain `factor` times longer than it is: mining hundreds of thousands of empty
// blocks on anvil takes hours (each block costs more as the chain grows: 1,000 blocks in 1 s, 10,000 in 150 s), while
// a backfill through a hosted provider costs by blocks asked, not blocks mined. Real block `base + i` is presented as
// block `base + i × factor`, and the blocks between as empty ones (the real block they follow, renumbered): eth_getLogs
// answers exactly the logs of the presented range, renumbered, so that the provider proxy in front of it caps ranges
// and counts results as it would on the long chain.

import { type JsonRpcAnswer, type JsonRpcCall, rpcCall } from '@mountain/testkit/jsonRpc.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { type Interception, startJsonRpcProxy } from '@mountain/testkit/rpcProxy.ts';
import type { Hex } from 'viem';

const hex = (n: bigint): Hex => `0x${n.toString(16)}`;
const TAG_DEPTHS: Record<string, bigint> = { safe: 32n, finalized: 64n };

export async function startStretchedChain(node: string, base: bigint, factor: bigint) {
  const presented = (real: bigint) => (real <= base ? real : base + (real - base) * factor);
  /** The real block a presented one shows: the one it is, or the one it follows. */
  const realAt = (shown: bigint) => (shown <= base ? shown : base + (shown - base) / factor);
  /** The first real block shown at or after `shown`. */
  const realFrom = (shown: bigint) => (shown <= base ? shown : base + (shown - base + factor - 1n) / factor);

  const renumberBlock = (shown?: bigint) => ({
    rewrite(answer: JsonRpcAnswer): JsonRpcAnswer {
      const block = answer.result as { number?: Hex } | null;
      if (!block?.number) return answer;
      return { ...answer, result: { ...block, number: hex(shown ?? presented(BigInt(block.number))) } };
    },
  });

  async function intercept(call: JsonRpcCall): Promise<Interception | undefined> {
    const params = call.params ?? [];
    switch (call.method) {
      case 'eth_blockNumber':
        return {
          rewrite: (answer) => ({ ...answer, result: hex(presented(BigInt(answer.result as Hex))) }),
        };
      case 'eth_getBlockByNumber': {
        const tag = params[0] as string;
        // `safe` and `finalized` as far below the head as on the real chain (anvil: 32 and 64 blocks), not 64 real
        // blocks stretched.
        const depth = TAG_DEPTHS[tag];
        if (depth !== undefined) {
          const shown = presented(BigInt(await rpcCall<Hex>(node, 'eth_blockNumber'))) - depth;
          return { forward: { ...call, params: [hex(realAt(shown)), ...params.slice(1)] }, ...renumberBlock(shown) };
        }
        if (!tag.startsWith('0x')) return renumberBlock();
        const shown = BigInt(tag);
        return { forward: { ...call, params: [hex(realAt(shown)), ...params.slice(1)] }, ...renumberBlock(shown) };
      }
      case 'eth_getLogs': {
        const filter = params[0] as { fromBlock: Hex; toBlock: Hex };
        const from = realFrom(BigInt(filter.fromBlock));
        const to = realAt(BigInt(filter.toBlock));
        if (from > to) return { answer: { id: call.id, result: [] } };
        return {
          forward: { ...call, params: [{ ...filter, fromBlock: hex(from), toBlock: hex(to) }] },
          rewrite: (answer) => ({
            ...answer,
            result: Array.isArray(answer.result)
              ? (answer.result as { blockNumber: Hex }[]).map((log) => ({
                  ...log,
                  blockNumber: hex(presented(BigInt(log.blockNumber))),
                }))
              : answer.result,
          }),
        };
      }
      default:
        return undefined;
    }
  }

  const proxy = await startJsonRpcProxy(node, await freePort(), () => ({ intercept }));
  return { ...proxy, presented };
}
